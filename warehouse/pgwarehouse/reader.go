package pgwarehouse

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/analyticsbot/analyticsbot/pgpool"
)

// Roles belong to the whole server, not to one database. A reader shared
// by every deployment on a server would let each read what the others
// granted it (with the same credentials) and see the query text of the
// others' sessions, so the binary gives each database a reader of its own:
// ReaderRoleFor.

// readerPrefix starts every per-database reader's name.
const readerPrefix = DefaultReaderRole + "_"

// maxReaderDatabase is how much of a database's name a reader's name
// keeps, leaving room for the policy names of PolicyRole.
const maxReaderDatabase = 24

// ReaderRoleFor is the reader role of the database dsn names (a URL or
// key=value string): "analyticsbot_reader_" and the database's name, or,
// when that name is long or has characters a plain role name has not, its
// start and a hash of the whole, so two databases never share a reader.
func ReaderRoleFor(dsn string) (string, error) {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		// pgconn redacts the password in its parse errors.
		return "", fmt.Errorf("the database URL: %w", err)
	}
	db := cfg.Database
	if db == "" {
		db = cfg.User // as PostgreSQL defaults it
	}
	return readerRoleOf(db), nil
}

// readerRoleOf is ReaderRoleFor of the database named db.
func readerRoleOf(db string) string {
	name := notRoleChar.ReplaceAllString(strings.ToLower(db), "_")
	if name != db || len(name) > maxReaderDatabase {
		sum := sha256.Sum256([]byte(db))
		name = name[:min(len(name), maxReaderDatabase-9)] + "_" + hex.EncodeToString(sum[:4])
	}
	return readerPrefix + name
}

// LoginRole is the role a reader URL logs in as: its user, or PostgreSQL's
// default when it names none.
func LoginRole(readerURL string) (string, error) {
	cfg, err := pgconn.ParseConfig(readerURL)
	if err != nil {
		return "", fmt.Errorf("READER_DATABASE_URL: %w", err)
	}
	return cfg.User, nil
}

// Adopted is what AdoptReader carried from the shared reader to a
// database's own.
type Adopted struct {
	Schemas, Tables, Columns, Defaults, Policies int
}

// Any reports whether anything was carried over.
func (a Adopted) Any() bool {
	return a.Schemas+a.Tables+a.Columns+a.Defaults+a.Policies > 0
}

func (a Adopted) String() string {
	return fmt.Sprintf("%d schemas, %d tables, %d tables' columns, %d default grants, %d row-level security policies",
		a.Schemas, a.Tables, a.Columns, a.Defaults, a.Policies)
}

// AdoptReader gives role, in the database of pool, what from was granted
// in schemas there: USAGE on the schemas, SELECT on tables or on their
// columns, the default privileges on tables created later, and a place in
// every row-level security policy naming from. It is how an upgrade moves
// a deployment off the reader every database on the server once shared;
// from keeps its grants (a process still running as it keeps working)
// until they are revoked (RevokeStatements). role must exist; running it
// again adds nothing.
// Like every step of `migrate`, it runs in turn (pgpool.SetupTx).
func AdoptReader(ctx context.Context, pool *pgxpool.Pool, from, role string, schemas []string) (Adopted, error) {
	var a Adopted
	err := pgpool.SetupTx(ctx, pool, func(tx pgx.Tx) error {
		a = Adopted{} // counted again when run again
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, from).Scan(&exists); err != nil || !exists {
			return err
		}
		to := pgx.Identifier{role}.Sanitize()
		var stmts []string
		// Each query lists statements that want the role appended: after
		// " TO " for a grant, after ", " for a policy (ALTER POLICY … TO
		// replaces the list of roles, so the query lists the others).
		grants := []struct {
			count *int
			query string
			then  string
		}{
			{&a.Schemas, `
				SELECT 'GRANT USAGE ON SCHEMA ' || quote_ident(n.nspname)
				FROM pg_namespace n, aclexplode(n.nspacl) g
				WHERE n.nspname = ANY($1) AND g.grantee = to_regrole($2) AND g.privilege_type = 'USAGE'
				  AND NOT has_schema_privilege($3, n.oid, 'USAGE')`, " TO "},
			{&a.Tables, `
				SELECT 'GRANT SELECT ON ' || quote_ident(n.nspname) || '.' || quote_ident(c.relname)
				FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace, aclexplode(c.relacl) g
				WHERE n.nspname = ANY($1) AND g.grantee = to_regrole($2) AND g.privilege_type = 'SELECT'
				  AND NOT has_table_privilege($3, c.oid, 'SELECT')`, " TO "},
			{&a.Columns, `
				SELECT 'GRANT SELECT (' || string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) || ') ON '
				       || quote_ident(n.nspname) || '.' || quote_ident(c.relname)
				FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace,
				     aclexplode(a.attacl) g
				WHERE n.nspname = ANY($1) AND g.grantee = to_regrole($2) AND g.privilege_type = 'SELECT'
				  AND NOT has_column_privilege($3, c.oid, a.attnum, 'SELECT')
				GROUP BY n.nspname, c.relname`, " TO "},
			{&a.Defaults, `
				SELECT 'ALTER DEFAULT PRIVILEGES FOR ROLE ' || quote_ident(pg_get_userbyid(d.defaclrole))
				       || ' IN SCHEMA ' || quote_ident(n.nspname) || ' GRANT SELECT ON TABLES'
				FROM pg_default_acl d JOIN pg_namespace n ON n.oid = d.defaclnamespace, aclexplode(d.defaclacl) g
				WHERE n.nspname = ANY($1) AND d.defaclobjtype = 'r' AND g.grantee = to_regrole($2) AND g.privilege_type = 'SELECT'
				  AND NOT EXISTS (SELECT 1 FROM aclexplode(d.defaclacl) h WHERE h.grantee = to_regrole($3) AND h.privilege_type = 'SELECT')`, " TO "},
			{&a.Policies, `
				SELECT 'ALTER POLICY ' || quote_ident(p.polname) || ' ON ' || quote_ident(n.nspname) || '.' || quote_ident(c.relname)
				       || ' TO ' || string_agg(CASE WHEN r = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(r)) END, ', ')
				FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid JOIN pg_namespace n ON n.oid = c.relnamespace,
				     unnest(p.polroles) r
				WHERE n.nspname = ANY($1) AND to_regrole($2) = ANY(p.polroles) AND NOT to_regrole($3) = ANY(p.polroles)
				GROUP BY p.oid, p.polname, n.nspname, c.relname`, ", "},
		}
		for _, g := range grants {
			rows, err := tx.Query(ctx, g.query, schemas, from, role)
			if err != nil {
				return err
			}
			found, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return err
			}
			for _, s := range found {
				stmts = append(stmts, s+g.then+to)
			}
			*g.count = len(found)
		}
		for _, s := range stmts {
			if _, err := tx.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return nil
	})
	if err != nil {
		return Adopted{}, fmt.Errorf("carry %s's grants over to %s: %w", from, role, err)
	}
	return a, nil
}

// RevokeStatements are the statements that take away from role what it
// may read in schemas of the database of pool and its right to connect
// there: what to run once no process runs as the shared reader any more.
// It is empty when role has nothing there.
func RevokeStatements(ctx context.Context, pool *pgxpool.Pool, role string, schemas []string) ([]string, error) {
	var uses bool
	err := pool.QueryRow(ctx, `
		SELECT to_regrole($1) IS NOT NULL AND (
		       EXISTS (SELECT 1 FROM pg_namespace n, aclexplode(n.nspacl) g WHERE n.nspname = ANY($2) AND g.grantee = to_regrole($1))
		    OR EXISTS (SELECT 1 FROM pg_database d, aclexplode(d.datacl) g WHERE d.datname = current_database() AND g.grantee = to_regrole($1)))`,
		role, schemas).Scan(&uses)
	if err != nil || !uses {
		return nil, err
	}
	r := pgx.Identifier{role}.Sanitize()
	var stmts []string
	for _, s := range schemas {
		q := pgx.Identifier{s}.Sanitize()
		stmts = append(stmts,
			"REVOKE ALL ON ALL TABLES IN SCHEMA "+q+" FROM "+r,
			"REVOKE USAGE ON SCHEMA "+q+" FROM "+r)
	}
	var db string
	if err := pool.QueryRow(ctx, `SELECT current_database()`).Scan(&db); err != nil {
		return nil, err
	}
	return append(stmts, "REVOKE CONNECT ON DATABASE "+pgx.Identifier{db}.Sanitize()+" FROM "+r), nil
}

// OtherDatabases lists the databases of the server other than pool's that
// role is set up in (per-database settings, as EnsureReaderRole and the
// migrations leave) or granted CONNECT on by name: a reader found there is
// shared, and each of those deployments can read what the others granted
// it.
func OtherDatabases(ctx context.Context, pool *pgxpool.Pool, role string) ([]string, error) {
	rows, err := pool.Query(ctx, `
		SELECT d.datname FROM pg_database d
		WHERE d.datname <> current_database() AND to_regrole($1) IS NOT NULL AND (
		      EXISTS (SELECT 1 FROM pg_db_role_setting s WHERE s.setdatabase = d.oid AND s.setrole = to_regrole($1))
		   OR EXISTS (SELECT 1 FROM aclexplode(d.datacl) g WHERE g.grantee = to_regrole($1) AND g.privilege_type = 'CONNECT'))
		ORDER BY 1`, role)
	if err != nil {
		return nil, fmt.Errorf("look for %s in other databases: %w", role, err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// RetireReader takes from role, in the database of pool, the right to
// connect and its per-database settings, when it holds nothing there: no
// privilege on any schema, table, column or default, and no row-level
// security policy. It is how `migrate` leaves the shared reader the
// migrations create unused in a database whose deployment has a reader of
// its own. It reports whether it did; a role that holds something is left
// alone (RevokeStatements says what to run).
// Like every step of `migrate`, it runs in turn (pgpool.SetupTx).
func RetireReader(ctx context.Context, pool *pgxpool.Pool, role string) (bool, error) {
	retired := false
	err := pgpool.SetupTx(ctx, pool, func(tx pgx.Tx) error {
		retired = false
		var holds bool
		err := tx.QueryRow(ctx, `
			SELECT to_regrole($1) IS NULL
			    OR EXISTS (SELECT 1 FROM pg_namespace n, aclexplode(n.nspacl) g WHERE g.grantee = to_regrole($1))
			    OR EXISTS (SELECT 1 FROM pg_class c, aclexplode(c.relacl) g WHERE g.grantee = to_regrole($1))
			    OR EXISTS (SELECT 1 FROM pg_attribute a, aclexplode(a.attacl) g WHERE g.grantee = to_regrole($1))
			    OR EXISTS (SELECT 1 FROM pg_default_acl d, aclexplode(d.defaclacl) g WHERE g.grantee = to_regrole($1))
			    OR EXISTS (SELECT 1 FROM pg_policy p WHERE to_regrole($1) = ANY(p.polroles))`, role).Scan(&holds)
		if err != nil || holds {
			return err
		}
		q := `DO $$ BEGIN
			EXECUTE format('REVOKE CONNECT ON DATABASE %I FROM %I', current_database(), ` + quoteLiteral(role) + `);
			EXECUTE format('ALTER ROLE %I IN DATABASE %I RESET ALL', ` + quoteLiteral(role) + `, current_database());
		END $$`
		if _, err := tx.Exec(ctx, q); err != nil {
			return err
		}
		retired = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("retire %s here: %w", role, err)
	}
	return retired, nil
}
