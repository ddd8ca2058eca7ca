package pgwarehouse

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Grant gives the reader role what it needs to answer from schemas, in one
// transaction on pool (a login that owns the tables, or may grant on them):
// USAGE on each schema, SELECT on every table and view in it, SELECT on
// the tables that login creates there later, and EXECUTE on the routines
// of schemas its views and row-level security policies call (which PUBLIC
// may no longer execute once RestrictRoutines has run). Column or row
// restrictions are the deployment's to add afterwards (docs/security.md).
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
		_, err := routineGrants(ctx, tx, role, schemas, false)
		return err
	})
	if err != nil {
		return fmt.Errorf("grant %s read access: %w", role, err)
	}
	return nil
}

// Ungranted lists the tables and views of schemas that role may not read
// (no SELECT on any column), as the login of pool sees them: what
// `analyticsbot grant` would fix.
func Ungranted(ctx context.Context, pool *pgxpool.Pool, role string, schemas []string) ([]string, error) {
	if role == "" {
		role = DefaultReaderRole
	}
	rows, err := pool.Query(ctx, `
		SELECT n.nspname || '.' || c.relname
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = ANY($1) AND c.relkind IN ('r', 'v', 'm', 'f', 'p')
		  AND NOT has_any_column_privilege($2, c.oid, 'SELECT')
		ORDER BY 1`, schemas, role)
	if err != nil {
		return nil, fmt.Errorf("list the tables %s may not read: %w", role, err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list the tables %s may not read: %w", role, err)
	}
	return tables, nil
}
