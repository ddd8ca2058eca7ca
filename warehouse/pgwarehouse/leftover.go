package pgwarehouse

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// A policy taken out of the access file leaves its role behind, with its
// grants and its login, unless applying the file takes them away. Roles
// are the server's: another database's deployment may have roles whose
// names start alike (the reader analyticsbot_reader_shop_eu of the
// database shop_eu under analyticsbot_reader_shop's prefix), so a role
// is taken for a left-over policy role of this database only when its
// comment says it is one of this reader's (roleMark, which ApplyAccess
// sets) and it is set up in this database: per-database settings, CONNECT,
// or a privilege in the analytics schemas. A role without that comment is
// never taken, whatever it looks like: another deployment's reader
// (READER_ROLE=bi_staging beside bi) is made with the very settings and
// attributes a policy role has, so a policy role made before roles were
// marked, of a policy since removed, is left for the operator to drop.

// roleMark starts the comment of every policy role ApplyAccess makes, the
// policy's name following it.
func roleMark(reader string) string {
	return "analyticsbot access apply: a policy role of the reader " + reader + ", policy "
}

// markRole sets role's comment: the policy role of policy, for reader.
func markRole(ctx context.Context, tx pgx.Tx, role, reader, policy string) error {
	stmt := "COMMENT ON ROLE " + pgx.Identifier{role}.Sanitize() + " IS " + quoteLiteral(roleMark(reader)+policy)
	if _, err := tx.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("mark %s as the role of the policy %q: %w", role, policy, err)
	}
	return nil
}

// Leftover is the role of a policy the access file no longer has.
type Leftover struct {
	Role string
	// Policy is its policy's name.
	Policy string
	// Login: it may still log in to this database.
	Login bool
	// Reads are the tables and views of the analytics schemas it may
	// still read, "schema.table".
	Reads []string
	// Elsewhere are the other databases of the server it is set up in
	// (settings or CONNECT): its login is theirs too.
	Elsewhere []string
}

// String says it for the operator.
func (l Leftover) String() string {
	return l.Role + ", the role of the policy " + l.Policy + ", which the access file no longer has"
}

// querier is what leftoverRoles reads with: a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// leftoverRoles lists reader's policy roles set up in this database that
// are none of current.
func leftoverRoles(ctx context.Context, q querier, reader string, current, schemas []string) ([]Leftover, error) {
	reader = cmp.Or(reader, DefaultReaderRole)
	rows, err := q.Query(ctx, `
		SELECT r.rolname, coalesce(shobj_description(r.oid, 'pg_authid'), ''),
			r.rolcanlogin AND has_database_privilege(r.oid, current_database(), 'CONNECT'),
			coalesce((SELECT array_agg(c.relname ORDER BY c.relname) FROM (
				SELECT n.nspname || '.' || c.relname AS relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
				WHERE n.nspname = ANY($3) AND c.relkind IN `+relationKinds+`
				  AND has_schema_privilege(r.oid, n.oid, 'USAGE') AND has_any_column_privilege(r.oid, c.oid, 'SELECT')) c), '{}'),
			coalesce((SELECT array_agg(d.datname::text ORDER BY d.datname) FROM pg_database d
				WHERE d.datname <> current_database() AND (
				      EXISTS (SELECT 1 FROM pg_db_role_setting s WHERE s.setdatabase = d.oid AND s.setrole = r.oid)
				   OR EXISTS (SELECT 1 FROM aclexplode(d.datacl) g WHERE g.grantee = r.oid))), '{}')
		FROM pg_roles r
		WHERE starts_with(r.rolname, $1) AND r.rolname <> ALL($2)
		  AND (EXISTS (SELECT 1 FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
		               WHERE d.datname = current_database() AND s.setrole = r.oid)
		    OR EXISTS (SELECT 1 FROM pg_database d, aclexplode(d.datacl) g WHERE d.datname = current_database() AND g.grantee = r.oid)
		    OR EXISTS (SELECT 1 FROM pg_namespace n, aclexplode(n.nspacl) g WHERE n.nspname = ANY($3) AND g.grantee = r.oid)
		    OR EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace, aclexplode(c.relacl) g
		               WHERE n.nspname = ANY($3) AND g.grantee = r.oid)
		    OR EXISTS (SELECT 1 FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace,
		               aclexplode(a.attacl) g WHERE n.nspname = ANY($3) AND g.grantee = r.oid)
		    OR EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace, aclexplode(p.proacl) g
		               WHERE n.nspname = ANY($3) AND g.grantee = r.oid))
		ORDER BY 1`, reader+"_", append([]string{reader}, current...), schemas)
	if err != nil {
		return nil, fmt.Errorf("look for left-over policy roles: %w", err)
	}
	var out []Leftover
	var (
		l       Leftover
		comment string
	)
	mark := roleMark(reader)
	_, err = pgx.ForEachRow(rows, []any{&l.Role, &comment, &l.Login, &l.Reads, &l.Elsewhere}, func() error {
		policy, ours := strings.CutPrefix(comment, mark)
		if !ours {
			return nil // another's: another reader, a role made by hand or before roles were marked
		}
		l.Policy = policy
		out = append(out, l)
		l = Leftover{}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("look for left-over policy roles: %w", err)
	}
	return out, nil
}

// LeftoverRoles lists, in a read-only transaction on pool, the roles of
// policies the access file no longer has (reader's policy roles set up in
// this database that none of policies names): what doctor reports and
// ApplyAccess takes away.
func LeftoverRoles[A warehouse.Access](ctx context.Context, pool *pgxpool.Pool, reader string, schemas []string, policies []A) ([]Leftover, error) {
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("look for left-over policy roles: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	current := make([]string, len(policies))
	for i, p := range policies {
		current[i] = PolicyRole(reader, p.Policy())
	}
	return leftoverRoles(ctx, tx, reader, current, schemas)
}

// retireRoles takes from each leftover role what it holds in this
// database (its grants in schemas, CONNECT, its settings here) and, when
// no other database has it set up, its login, then drops it; one that
// something still depends on (a privilege elsewhere in this database, an
// object it owns, a row-level security policy naming it) is kept without
// its login. Sessions already open as it are not ended: the grants are
// checked at each statement, so they read nothing more from the next one.
// It returns what it did, in sentences for the operator.
func retireRoles(ctx context.Context, tx pgx.Tx, leftovers []Leftover, schemas []string) ([]string, error) {
	var done []string
	for _, l := range leftovers {
		r := pgx.Identifier{l.Role}.Sanitize()
		var stmts []string
		for _, s := range schemas {
			q := pgx.Identifier{s}.Sanitize()
			stmts = append(stmts, "REVOKE ALL ON ALL TABLES IN SCHEMA "+q+" FROM "+r, "REVOKE ALL ON ALL ROUTINES IN SCHEMA "+q+" FROM "+r,
				"REVOKE ALL ON SCHEMA "+q+" FROM "+r)
		}
		stmts = append(stmts,
			`DO $$ BEGIN EXECUTE format('REVOKE ALL ON DATABASE %I FROM %I', current_database(), `+quoteLiteral(l.Role)+`); END $$`,
			`DO $$ BEGIN EXECUTE format('ALTER ROLE %I IN DATABASE %I RESET ALL', `+quoteLiteral(l.Role)+`, current_database()); END $$`)
		for _, stmt := range stmts {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return nil, fmt.Errorf("take away %s's grants: %s: %w", l.Role, stmt, err)
			}
		}
		if len(l.Elsewhere) > 0 {
			done = append(done, fmt.Sprintf("%s: its grants here taken away; it keeps its login, set up in %s too", l, strings.Join(l.Elsewhere, ", ")))
			continue
		}
		if _, err := tx.Exec(ctx, "ALTER ROLE "+r+" NOLOGIN"); err != nil {
			return nil, fmt.Errorf("take away %s's login: %w", l.Role, err)
		}
		dropped, err := dropIfFree(ctx, tx, r)
		if err != nil {
			return nil, fmt.Errorf("drop %s: %w", l.Role, err)
		}
		if dropped {
			done = append(done, fmt.Sprintf("%s: its grants taken away and the role dropped", l))
		} else {
			done = append(done, fmt.Sprintf("%s: its grants here and its login taken away; kept, as something still depends on it "+
				"(a grant outside %s, an object it owns): drop it by hand once you have checked (DROP OWNED BY %s; DROP ROLE %s)",
				l, strings.Join(schemas, ", "), r, r))
		}
	}
	return done, nil
}

// dropIfFree drops the role r (quoted) unless something depends on it, in
// a savepoint so that the transaction goes on either way.
func dropIfFree(ctx context.Context, tx pgx.Tx, r string) (bool, error) {
	sp, err := tx.Begin(ctx)
	if err != nil {
		return false, err
	}
	if _, err := sp.Exec(ctx, "DROP ROLE "+r); err != nil {
		if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok && pgErr.Code == "2BP01" { // dependent_objects_still_exist
			return false, sp.Rollback(ctx)
		}
		_ = sp.Rollback(ctx)
		return false, err
	}
	return true, sp.Commit(ctx)
}
