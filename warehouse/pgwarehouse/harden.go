package pgwarehouse

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/analyticsbot/analyticsbot/pgpool"
)

// The executor's sessions are safe by construction (a read-only
// transaction, rolled back, cleaned), but the reader and the policy roles
// can log in by hand too, and such a session may turn
// default_transaction_read_only off: it is a setting every session may
// change, which no role setting can lock. What must hold then is that the
// session can do nothing lasting: no grant to write, no CREATE anywhere,
// no temporary tables and no large objects (which need no privilege but
// EXECUTE on the functions that make them, and survive a read-only
// transaction's commit). TEMPORARY and those functions are PUBLIC's by
// default, and revoking them from one role changes nothing while PUBLIC
// keeps them: HardenDatabase takes them from PUBLIC in the bot's database,
// and SessionProblems says what still stands.

// largeObjectCreators are the functions that create a large object
// (lo_import reads server files and is a superuser's already).
var largeObjectCreators = []string{"pg_catalog.lo_creat(integer)", "pg_catalog.lo_create(oid)", "pg_catalog.lo_from_bytea(oid, bytea)"}

// HardenDatabase takes from PUBLIC, in the database of pool, what would
// let a session opened by hand as the reader or a policy role keep
// anything: TEMPORARY on the database, CREATE on schema public (PUBLIC's
// before PostgreSQL 15) and EXECUTE on the large-object-creating
// functions, where the login may (the database's owner, the schemas'
// owners, a superuser for the functions). It returns what it changed and
// what it could not, in sentences for the operator; nothing when all was
// done before.
// Like every step of `migrate`, it runs in turn (pgpool.SetupTx).
func HardenDatabase(ctx context.Context, pool *pgxpool.Pool) ([]string, error) {
	var out []string
	// The database's privileges change: in turn with the migrations and
	// access apply.
	err := pgpool.SetupTx(ctx, pool, func(tx pgx.Tx) error {
		var err error
		out, err = hardenDatabase(ctx, tx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("take TEMPORARY, CREATE and large objects from PUBLIC: %w", err)
	}
	return out, nil
}

func hardenDatabase(ctx context.Context, tx pgx.Tx) ([]string, error) {
	var db, owner string
	var publicTemp, ownerRights, super bool
	err := tx.QueryRow(ctx, `
		SELECT d.datname, pg_get_userbyid(d.datdba), has_database_privilege('public', d.oid, 'TEMPORARY'),
		       pg_has_role(current_user, d.datdba, 'USAGE'), (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
		FROM pg_database d WHERE d.datname = current_database()`).Scan(&db, &owner, &publicTemp, &ownerRights, &super)
	if err != nil {
		return nil, err
	}
	var out []string
	dbID := pgx.Identifier{db}.Sanitize()
	switch {
	case publicTemp && ownerRights:
		// The login keeps them through the owner's rights (the value
		// index's refresh uses one).
		if _, err := tx.Exec(ctx, "REVOKE TEMPORARY ON DATABASE "+dbID+" FROM PUBLIC"); err != nil {
			return nil, fmt.Errorf("REVOKE TEMPORARY ON DATABASE %s FROM PUBLIC: %w", dbID, err)
		}
		out = append(out, "PUBLIC may no longer create temporary tables in database "+db+", nor may the reader and the policy roles: "+
			"GRANT TEMPORARY ON DATABASE "+dbID+" TO the other roles that need them")
	case publicTemp:
		out = append(out, "could not take TEMPORARY on database "+db+" from PUBLIC: only its owner "+owner+" or a superuser can; "+
			"until then a session opened by hand as the reader may create temporary tables")
	}

	rows, err := tx.Query(ctx, `
		SELECT n.nspname, pg_get_userbyid(n.nspowner), pg_has_role(current_user, n.nspowner, 'USAGE')
		FROM pg_namespace n WHERE n.nspname = 'public' AND has_schema_privilege('public', n.oid, 'CREATE')`)
	if err != nil {
		return nil, err
	}
	var schema string
	var may bool
	var created, kept []string
	_, err = pgx.ForEachRow(rows, []any{&schema, &owner, &may}, func() error {
		if may {
			created = append(created, schema)
		} else {
			kept = append(kept, schema+" (owned by "+owner+")")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, s := range created {
		stmt := "REVOKE CREATE ON SCHEMA " + pgx.Identifier{s}.Sanitize() + " FROM PUBLIC"
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return nil, fmt.Errorf("%s: %w", stmt, err)
		}
	}
	if len(created) > 0 {
		out = append(out, "PUBLIC may no longer create objects in schema "+strings.Join(created, ", ")+
			" (as PostgreSQL 15 does for public in new databases): GRANT CREATE ON SCHEMA to the roles that need it")
	}
	if len(kept) > 0 {
		out = append(out, "could not take CREATE on schema "+strings.Join(kept, ", ")+" from PUBLIC: only its owner can; "+
			"until then a session opened by hand as the reader may create objects there")
	}

	rows, err = tx.Query(ctx, `SELECT f FROM unnest($1::text[]) f WHERE has_function_privilege('public', f::regprocedure, 'EXECUTE')`, largeObjectCreators)
	if err != nil {
		return nil, err
	}
	public, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	names := strings.Join(public, ", ")
	switch {
	case len(public) > 0 && super:
		if _, err := tx.Exec(ctx, "REVOKE EXECUTE ON FUNCTION "+names+" FROM PUBLIC"); err != nil {
			return nil, fmt.Errorf("REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC: %w", names, err)
		}
		out = append(out, "PUBLIC may no longer create large objects in database "+db+", nor may the reader and the policy roles: "+
			"GRANT EXECUTE ON FUNCTION "+names+" TO the other roles that need them")
	case len(public) > 0:
		out = append(out, "could not take "+names+" from PUBLIC: only a superuser can; "+
			"until then a session opened by hand as the reader may keep large objects")
	}
	return out, nil
}

// SetStatementTimeout makes timeout the default statement_timeout of
// role's sessions in the database of pool (a session may still lower or
// raise it: PostgreSQL has no setting a session cannot change).
// Like every step of `migrate`, it runs in turn (pgpool.SetupTx).
func SetStatementTimeout(ctx context.Context, pool *pgxpool.Pool, role string, timeout time.Duration) error {
	err := pgpool.SetupTx(ctx, pool, func(tx pgx.Tx) error {
		return setStatementTimeout(ctx, tx, role, timeout)
	})
	if err != nil {
		return fmt.Errorf("set the statement timeout of %s: %w", role, err)
	}
	return nil
}

func setStatementTimeout(ctx context.Context, tx pgx.Tx, role string, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = DefaultStatementTimeout
	}
	value := fmt.Sprintf("%dms", timeout.Milliseconds())
	if timeout%time.Second == 0 {
		value = fmt.Sprintf("%ds", int64(timeout/time.Second))
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM (SELECT set_config('analyticsbot.setting_value', $1, true)) v`, value); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `DO $$ BEGIN EXECUTE format('ALTER ROLE %I IN DATABASE %I SET statement_timeout = %L', `+
		quoteLiteral(role)+`, current_database(), current_setting('analyticsbot.setting_value')); END $$`)
	return err
}

// SessionProblems says what a session opened by hand as role could do in
// the database of pool that it should not, each with its fix: run without
// a statement timeout, write outside a transaction it made read-write,
// create objects, temporary tables or large objects. fix names the command
// that sets the role up (`analyticsbot migrate` for the reader, `access
// apply` for a policy's). It is empty when none.
func SessionProblems(ctx context.Context, pool *pgxpool.Pool, role, fix string) ([]string, error) {
	var timeout, readOnly string
	var createDB, temp bool
	var lo, schemas, writable, sequences []string
	err := pool.QueryRow(ctx, `
		SELECT coalesce((SELECT split_part(s, '=', 2) FROM pg_db_role_setting x, unnest(x.setconfig) s
		                 WHERE x.setrole = r.oid AND x.setdatabase IN (0, d.oid) AND s LIKE 'statement\_timeout=%'
		                 ORDER BY x.setdatabase DESC LIMIT 1), ''),
		       coalesce((SELECT split_part(s, '=', 2) FROM pg_db_role_setting x, unnest(x.setconfig) s
		                 WHERE x.setrole = r.oid AND x.setdatabase IN (0, d.oid) AND s LIKE 'default\_transaction\_read\_only=%'
		                 ORDER BY x.setdatabase DESC LIMIT 1), ''),
		       has_database_privilege(r.oid, d.oid, 'CREATE'),
		       has_database_privilege(r.oid, d.oid, 'TEMPORARY'),
		       ARRAY(SELECT f FROM unnest($2::text[]) f WHERE has_function_privilege(r.oid, f::regprocedure, 'EXECUTE')),
		       ARRAY(SELECT n.nspname FROM pg_namespace n WHERE has_schema_privilege(r.oid, n.oid, 'CREATE') ORDER BY 1),
		       ARRAY(SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		             WHERE c.relkind IN ('r', 'p', 'v', 'f') AND has_schema_privilege(r.oid, n.oid, 'USAGE')
		               -- pg_settings's UPDATE is PUBLIC's: it is SET.
		               AND n.nspname NOT IN ('pg_catalog', 'information_schema')
		               AND (has_table_privilege(r.oid, c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE')
		                    OR has_any_column_privilege(r.oid, c.oid, 'INSERT, UPDATE'))
		             ORDER BY 1),
		       ARRAY(SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		             WHERE c.relkind = 'S' AND has_schema_privilege(r.oid, n.oid, 'USAGE')
		               AND CASE WHEN c.relkind = 'S' THEN has_sequence_privilege(r.oid, c.oid, 'USAGE, UPDATE') END
		             ORDER BY 1)
		FROM pg_roles r, pg_database d WHERE r.rolname = $1 AND d.datname = current_database()`, role, largeObjectCreators).
		Scan(&timeout, &readOnly, &createDB, &temp, &lo, &schemas, &writable, &sequences)
	if err != nil {
		return nil, fmt.Errorf("check what a session of %s may do: %w", role, err)
	}
	var db string
	if err := pool.QueryRow(ctx, `SELECT current_database()`).Scan(&db); err != nil {
		return nil, fmt.Errorf("check what a session of %s may do: %w", role, err)
	}
	dbID, r := pgx.Identifier{db}.Sanitize(), pgx.Identifier{role}.Sanitize()
	var out []string
	if timeout == "" || timeout == "0" {
		out = append(out, "a session of its own has no statement_timeout here: run "+fix)
	}
	if readOnly != "on" {
		out = append(out, "a session of its own is not read-only by default (default_transaction_read_only): run "+fix)
	}
	if len(writable) > 0 {
		out = append(out, "it may write to "+someNames(writable)+": REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON "+writable[0]+" FROM "+r+" (and from PUBLIC)")
	}
	if len(sequences) > 0 {
		out = append(out, "it may advance the sequences "+someNames(sequences)+": REVOKE USAGE, UPDATE ON SEQUENCE "+sequences[0]+" FROM "+r+" (and from PUBLIC)")
	}
	if createDB {
		out = append(out, "it may create schemas: REVOKE CREATE ON DATABASE "+dbID+" FROM "+r+" (and from PUBLIC)")
	}
	if len(schemas) > 0 {
		out = append(out, "it may create objects in schema "+someNames(schemas)+": REVOKE CREATE ON SCHEMA "+pgx.Identifier{schemas[0]}.Sanitize()+" FROM "+r+" (and from PUBLIC)")
	}
	if temp {
		out = append(out, "it may create temporary tables: run "+fix+" as the database's owner, or REVOKE TEMPORARY ON DATABASE "+dbID+" FROM PUBLIC, "+r)
	}
	if len(lo) > 0 {
		out = append(out, "it may create large objects, which outlive its session: run "+fix+" as a superuser, or REVOKE EXECUTE ON FUNCTION "+
			strings.Join(lo, ", ")+" FROM PUBLIC")
	}
	return out, nil
}

// UnlimitedTempFiles reports whether a session of role in this database
// may write temporary files without bound: no temp_file_limit of its own
// here (limitTempFiles sets one when the role setting it up may), none of
// the database's, and none in the server's configuration (as the bot's own
// session reads it). Then a sort or hash spilling to disk is bounded only
// by statement_timeout.
func UnlimitedTempFiles(ctx context.Context, pool *pgxpool.Pool, role string) (bool, error) {
	var limit string
	err := pool.QueryRow(ctx, `
		SELECT coalesce((SELECT split_part(s, '=', 2) FROM pg_db_role_setting x, unnest(x.setconfig) s
		                 WHERE x.setrole IN (0, r.oid) AND x.setdatabase IN (0, d.oid) AND s LIKE 'temp\_file\_limit=%'
		                 ORDER BY x.setrole DESC, x.setdatabase DESC LIMIT 1),
		                (SELECT reset_val FROM pg_settings WHERE name = 'temp_file_limit'))
		FROM pg_roles r, pg_database d WHERE r.rolname = $1 AND d.datname = current_database()`, role).Scan(&limit)
	if err != nil {
		return false, fmt.Errorf("read the temp_file_limit of %s: %w", role, err)
	}
	return limit == "-1", nil
}

// someNames lists the first five of names and how many more there are.
func someNames(names []string) string {
	shown := strings.Join(names[:min(len(names), 5)], ", ")
	if len(names) > 5 {
		shown += fmt.Sprintf(" and %d more", len(names)-5)
	}
	return shown
}
