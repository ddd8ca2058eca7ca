package pgwarehouse

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// An access file's patterns are matched against the tables as they are:
// a misspelt one (analytics.app.price for analytics.apps.price) matches
// nothing and says so nowhere else, and a deny or a mask that matches
// nothing leaves readable what it was written to keep out. ApplyAccess
// and doctor (UnmatchedPatterns) name every pattern that matches nothing.
// Neither refuses one: a deny_tables may name a partition or table to
// come, so that it is denied from the moment it exists (docs/access.md).

// unmatchedPatterns lists the patterns of policies (those that are
// warehouse.Patterned) that match nothing in cat.
func unmatchedPatterns[A warehouse.Access](cat *warehouse.Catalog, policies []A) []warehouse.Unmatched {
	var out []warehouse.Unmatched
	for _, p := range policies {
		if pt, ok := any(p).(warehouse.Patterned); ok {
			out = append(out, pt.Unmatched(cat)...)
		}
	}
	return out
}

// UnmatchedPatterns reads the tables and columns of schemas as the login
// of pool sees them (ApplyAccess's catalog, in a read-only transaction)
// and lists the patterns of policies that match none of them.
func UnmatchedPatterns[A warehouse.Access](ctx context.Context, pool *pgxpool.Pool, schemas []string, policies []A) ([]warehouse.Unmatched, error) {
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("match the access file's patterns: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	cat, err := describeAll(ctx, tx, schemas)
	if err != nil {
		return nil, fmt.Errorf("match the access file's patterns: %w", err)
	}
	return unmatchedPatterns(cat, policies), nil
}

// UnmatchedSentence says u for the operator, with the schemas it was
// matched in and what it means.
func UnmatchedSentence(u warehouse.Unmatched, schemas []string) string {
	s := fmt.Sprintf("%s in %s", u, strings.Join(schemas, ", "))
	switch u.Key {
	case "deny_tables":
		return s + ": if it is misspelt, the table it was meant for stays readable; check it"
	case "deny_columns":
		return s + ": if it is misspelt, the column it was meant for stays readable; check it"
	case "mask_columns":
		return s + ": if it is misspelt, the column it was meant for is shown in full; check it"
	}
	return s + ": if it is misspelt, the policy reads less than it was meant to; check it"
}
