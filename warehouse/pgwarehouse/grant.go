package pgwarehouse

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Grant gives the reader role what it needs to answer from schemas, in one
// transaction on pool (a login that owns the tables, or may grant on them):
// USAGE on each schema, SELECT on every table and view in it, and SELECT on
// the tables that login creates there later. Column or row restrictions
// are the deployment's to add afterwards (docs/security.md).
func Grant(ctx context.Context, pool *pgxpool.Pool, role string, schemas []string) error {
	if role == "" {
		role = DefaultReaderRole
	}
	r := pgx.Identifier{role}.Sanitize()
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		for _, s := range schemas {
			q := pgx.Identifier{s}.Sanitize()
			for _, stmt := range []string{
				"GRANT USAGE ON SCHEMA " + q + " TO " + r,
				"GRANT SELECT ON ALL TABLES IN SCHEMA " + q + " TO " + r,
				"ALTER DEFAULT PRIVILEGES IN SCHEMA " + q + " GRANT SELECT ON TABLES TO " + r,
			} {
				if _, err := tx.Exec(ctx, stmt); err != nil {
					return fmt.Errorf("%s: %w", stmt, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("grant %s read access: %w", role, err)
	}
	return nil
}
