package pgwarehouse

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/analyticsbot/analyticsbot/pgpool"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// The database's side of the access file: one login role per policy, with
// exactly the grants of its policy (schemas, tables, columns), so a query
// outside the policy is refused by PostgreSQL itself even if it got past
// the guard. The executor runs each question as the asker's policy role.

// ApplyLockKey is the transaction-level advisory lock ApplyPolicies takes
// in its database; whatever else changes policy roles there takes it too:
// PostgreSQL refuses two sessions changing one role's catalog rows at once
// ("tuple concurrently updated").
const ApplyLockKey int64 = 0x616e616c79_617070 // "analy" "app"

// maxRoleName is PostgreSQL's limit on an identifier (NAMEDATALEN-1).
const maxRoleName = 63

var notRoleChar = regexp.MustCompile(`[^a-z0-9_]+`)

// PolicyRole is the login role of policy: the reader role's name, "_" and
// the policy's name in lower case with anything but letters, digits and
// "_" replaced. A name that does not fit PostgreSQL's 63 bytes, or that
// holds other than ASCII (a policy within a channel's ceiling,
// "analysts∩everyone"), is cut and ends in a hash of the policy's name, so
// such roles stay apart. Two other policies whose names reduce alike get
// the same role: ApplyPolicies refuses that.
func PolicyRole(reader, policy string) string {
	if reader == "" {
		reader = DefaultReaderRole
	}
	name := reader + "_" + notRoleChar.ReplaceAllString(strings.ToLower(policy), "_")
	if len(name) > maxRoleName || !isASCII(policy) {
		sum := sha256.Sum256([]byte(policy))
		name = name[:min(len(name), maxRoleName-9)] + "_" + hex.EncodeToString(sum[:4])
	}
	return name
}

// isASCII reports whether s is ASCII only.
func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// ApplyConfig is what ApplyAccess needs besides the policies.
type ApplyConfig struct {
	// Reader is the reader role, whose name starts every policy role's
	// (DefaultReaderRole when empty). When it exists, it is given EXECUTE
	// on what its views call too.
	Reader string
	// Password, when not empty, is set on every role (the reader's, so one
	// secret serves them all).
	Password string
	// Schemas are the analytics schemas.
	Schemas []string
	// StatementTimeout is the default statement_timeout of the roles'
	// sessions (DefaultStatementTimeout when zero).
	StatementTimeout time.Duration
}

// Applied is what ApplyAccess did.
type Applied struct {
	// Roles are the policies' roles, by policy name.
	Roles map[string]string
	// Routines are the routines of the analytics schemas each policy's
	// role may execute (those its views and row-level security policies
	// call), by policy name.
	Routines map[string][]string
	// Changes are what changed for every role of the database (PUBLIC's
	// privileges, default privileges), and what could not, and the
	// warnings (a pattern of the file that matches nothing), in sentences
	// for the operator.
	Changes []string
}

// ApplyPolicies is ApplyAccess with reader, password and schemas, the
// default statement timeout, and the roles alone returned.
func ApplyPolicies[A warehouse.Access](ctx context.Context, pool *pgxpool.Pool, reader, password string, schemas []string, policies []A) (map[string]string, error) {
	a, err := ApplyAccess(ctx, pool, ApplyConfig{Reader: reader, Password: password, Schemas: schemas}, policies)
	return a.Roles, err
}

// ApplyAccess creates or updates the login role of each policy, in one
// transaction on pool (a login that may create roles and owns the tables
// of schemas, or may grant on them): LOGIN, no superuser, createdb,
// createrole, replication, RLS bypass or inherited membership; USAGE on
// the schemas it reads; SELECT on each table the policy allows, or only
// on the columns it allows; EXECUTE on the routines its views and
// row-level security policies call; and nothing else in schemas (earlier
// grants are revoked first, so applying again after the file changed
// takes away what it no longer allows). A pattern of the policies that
// matches nothing is among the Changes as a warning. PUBLIC loses EXECUTE
// on the routines of schemas (RestrictRoutines) and, in the database,
// what would let a session opened by hand keep anything (HardenDatabase).
func ApplyAccess[A warehouse.Access](ctx context.Context, pool *pgxpool.Pool, cfg ApplyConfig, policies []A) (Applied, error) {
	reader, password, schemas := cfg.Reader, cfg.Password, cfg.Schemas
	roles := make(map[string]string, len(policies))
	byRole := map[string]string{}
	for _, p := range policies {
		role := PolicyRole(reader, p.Policy())
		if other, dup := byRole[role]; dup {
			return Applied{}, fmt.Errorf("the policies %q and %q would share the role %s: rename one", other, p.Policy(), role)
		}
		byRole[role], roles[p.Policy()] = p.Policy(), role
	}
	applied := Applied{Roles: roles}
	// Grants on one table by two transactions at once fail with "tuple
	// concurrently updated": applies take turns with each other and with
	// the migrations (SetupTx), and run again after a change of a role
	// another database's setup made meanwhile.
	err := pgpool.SetupTx(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, ApplyLockKey); err != nil {
			return err
		}
		cat, err := describeAll(ctx, tx, schemas)
		if err != nil {
			return err
		}
		unmatched := unmatchedPatterns(cat, policies)
		for _, p := range policies {
			// The grants follow the policy as it applies to views,
			// partitions and inheritance children (warehouse.Decide).
			if err := applyPolicy(ctx, tx, roles[p.Policy()], password, schemas, cat, warehouse.Decide(cat, p)); err != nil {
				return fmt.Errorf("policy %q: %w", p.Policy(), err)
			}
			if err := markRole(ctx, tx, roles[p.Policy()], cmp.Or(reader, DefaultReaderRole), p.Policy()); err != nil {
				return err
			}
		}
		leftovers, err := leftoverRoles(ctx, tx, reader, slices.Collect(maps.Values(roles)), schemas)
		if err != nil {
			return err
		}
		retired, err := retireRoles(ctx, tx, leftovers, schemas)
		if err != nil {
			return err
		}
		// After the SELECT grants, from them.
		applied.Routines, applied.Changes, err = secureRoles(ctx, tx, cfg, roles)
		applied.Changes = append(retired, applied.Changes...)
		for _, u := range unmatched {
			applied.Changes = append(applied.Changes, "warning: "+UnmatchedSentence(u, schemas))
		}
		return err
	})
	if err != nil {
		return Applied{}, fmt.Errorf("apply the access policies: %w", err)
	}
	return applied, nil
}

// secureRoles does what applying the policies does beyond each policy's
// grants, once they are made: PUBLIC loses EXECUTE on the routines of the
// analytics schemas, each policy's role (and the reader, when it exists)
// may execute those its reads call, every role's sessions get the
// statement timeout, and PUBLIC loses what would let a session opened by
// hand keep anything.
func secureRoles(ctx context.Context, tx pgx.Tx, cfg ApplyConfig, roles map[string]string) (map[string][]string, []string, error) {
	changes, err := restrictRoutines(ctx, tx, cfg.Schemas)
	if err != nil {
		return nil, nil, err
	}
	routines := make(map[string][]string, len(roles))
	for policy, role := range roles {
		if routines[policy], err = routineGrants(ctx, tx, role, cfg.Schemas, true); err != nil {
			return nil, nil, fmt.Errorf("policy %q: %w", policy, err)
		}
		if err := setStatementTimeout(ctx, tx, role, cfg.StatementTimeout); err != nil {
			return nil, nil, fmt.Errorf("policy %q: %w", policy, err)
		}
	}
	reader := cfg.Reader
	if reader == "" {
		reader = DefaultReaderRole
	}
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, reader).Scan(&exists); err != nil {
		return nil, nil, err
	}
	if exists {
		if _, err := routineGrants(ctx, tx, reader, cfg.Schemas, false); err != nil {
			return nil, nil, fmt.Errorf("the reader %s: %w", reader, err)
		}
	}
	hardened, err := hardenDatabase(ctx, tx)
	if err != nil {
		return nil, nil, err
	}
	return routines, append(changes, hardened...), nil
}

// applyPolicy makes role exactly what p allows over cat.
func applyPolicy(ctx context.Context, tx pgx.Tx, role, password string, schemas []string, cat *warehouse.Catalog, p warehouse.Access) error {
	r := pgx.Identifier{role}.Sanitize()
	exists := false
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, role).Scan(&exists); err != nil {
		return err
	}
	stmts := []string{}
	attrs := " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS CONNECTION LIMIT 32"
	if exists {
		stmts = append(stmts, "ALTER ROLE "+r+attrs)
	} else {
		stmts = append(stmts, "CREATE ROLE "+r+attrs)
	}
	for _, s := range schemas {
		q := pgx.Identifier{s}.Sanitize()
		// Table-level revokes take the column grants with them.
		stmts = append(stmts, "REVOKE ALL ON ALL TABLES IN SCHEMA "+q+" FROM "+r, "REVOKE ALL ON SCHEMA "+q+" FROM "+r)
	}
	used := map[string]bool{}
	for _, g := range planGrants(cat, p) {
		target := pgx.Identifier{g.schema, g.table}.Sanitize()
		if g.whole {
			stmts = append(stmts, "GRANT SELECT ON "+target+" TO "+r)
		} else {
			cols := make([]string, len(g.columns))
			for i, c := range g.columns {
				cols[i] = pgx.Identifier{c}.Sanitize()
			}
			stmts = append(stmts, "GRANT SELECT ("+strings.Join(cols, ", ")+") ON "+target+" TO "+r)
		}
		used[g.schema] = true
	}
	for _, s := range schemas {
		if used[s] {
			stmts = append(stmts, "GRANT USAGE ON SCHEMA "+pgx.Identifier{s}.Sanitize()+" TO "+r)
		}
	}
	for _, stmt := range stmts {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	if err := restrictSessions(ctx, tx, role); err != nil {
		return err
	}
	if password != "" {
		// A bind parameter cannot be used in ALTER ROLE; format() quotes it.
		if _, err := tx.Exec(ctx, `SELECT 1 FROM (SELECT set_config('analyticsbot.pw', $1, true)) s`, password); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DO $$ BEGIN EXECUTE format('ALTER ROLE %I PASSWORD %L', `+
			quoteLiteral(role)+`, current_setting('analyticsbot.pw')); END $$`); err != nil {
			return fmt.Errorf("set the password of %s: %w", role, err)
		}
	}
	return nil
}

// tableGrant is one SELECT grant applying a policy makes: on a whole
// table (or view), or on some of its columns.
type tableGrant struct {
	schema, table string
	// columns are the columns granted, all of the table's when whole.
	columns []string
	whole   bool
}

// planGrants is what applying p over cat grants its role, besides USAGE on
// the schemas of these tables: SELECT on each table p allows, or only on
// the columns it allows. ApplyAccess makes these grants and AccessDrift
// compares a role's privileges with them.
func planGrants(cat *warehouse.Catalog, p warehouse.Access) []tableGrant {
	var grants []tableGrant
	for _, t := range cat.Tables {
		if !p.AllowsTable(t.Schema, t.Name) {
			continue
		}
		var cols []string
		for _, c := range t.Columns {
			if p.AllowsColumn(t.Schema, t.Name, c.Name) {
				cols = append(cols, c.Name)
			}
		}
		if len(cols) > 0 {
			grants = append(grants, tableGrant{schema: t.Schema, table: t.Name, columns: cols, whole: len(cols) == len(t.Columns)})
		}
	}
	return grants
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// describeAll lists every table, view, partition and column of schemas as
// the login applying the policies sees them (not the reader: a policy may
// allow what the reader was never granted), with what the views read and
// which tables inherit from which (addLineage).
func describeAll(ctx context.Context, tx pgx.Tx, schemas []string) (*warehouse.Catalog, error) {
	rows, err := tx.Query(ctx, `
		SELECT n.nspname, c.relname, a.attname
		FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
		WHERE n.nspname = ANY($1) AND c.relkind IN `+relationKinds+`
		ORDER BY 1, 2, a.attnum`, schemas)
	if err != nil {
		return nil, fmt.Errorf("list the tables of %s: %w", strings.Join(schemas, ", "), err)
	}
	cat := &warehouse.Catalog{}
	var schema, table, column string
	_, err = pgx.ForEachRow(rows, []any{&schema, &table, &column}, func() error {
		if n := len(cat.Tables); n == 0 || cat.Tables[n-1].Schema != schema || cat.Tables[n-1].Name != table {
			cat.Tables = append(cat.Tables, warehouse.Table{Schema: schema, Name: table})
		}
		t := &cat.Tables[len(cat.Tables)-1]
		t.Columns = append(t.Columns, warehouse.TableColumn{Name: column})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the tables of %s: %w", strings.Join(schemas, ", "), err)
	}
	if err := addLineage(ctx, tx, cat, schemas); err != nil {
		return nil, err
	}
	return cat, nil
}

// MissingRoles returns which of roles do not exist yet in the cluster of
// databaseURL (DATABASE_URL, the pool's settings in it ignored).
func MissingRoles(ctx context.Context, databaseURL string, roles []string) ([]string, error) {
	cfg, err := pgpool.ConnConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("look up the policy roles: %w", err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("look up the policy roles: %w", pgpool.Classify(err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rows, err := conn.Query(ctx, `SELECT r FROM unnest($1::text[]) AS r WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r)`, roles)
	if err != nil {
		return nil, fmt.Errorf("look up the policy roles: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// asRole is the executor configuration of cfg logged in as role instead of
// the reader: READER_DATABASE_URL's user replaced (its password kept, the
// same for every policy role), or the database URL with that user.
func asRole(cfg ExecConfig, role string) (ExecConfig, error) {
	cfg.Role = role
	if cfg.URL == "" {
		return cfg, nil
	}
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return cfg, fmt.Errorf("READER_DATABASE_URL must be a postgres:// URL to log in as the policy roles")
	}
	if pw, ok := u.User.Password(); ok {
		u.User = url.UserPassword(role, pw)
	} else {
		u.User = url.User(role)
	}
	cfg.URL = u.String()
	return cfg, nil
}

// readerSettings are the per-database defaults of every role generated SQL
// runs as (migration 00005 sets them for the default reader): even a
// session opened by hand is read-only, with short lock and idle timeouts.
var readerSettings = [][2]string{
	{"default_transaction_read_only", "on"},
	{"lock_timeout", "2s"},
	{"idle_in_transaction_session_timeout", "60s"},
	{"temp_buffers", "8MB"},
	{"work_mem", "64MB"},
}

// readerTempFiles is the temp_file_limit of every role generated SQL runs
// as: a sort or hash that spills past it fails instead of filling the
// server's disk (work_mem bounds only its memory).
const readerTempFiles = "1GB"

// limitTempFiles sets role's temp_file_limit in the current database when
// the role running the setup may: temp_file_limit is a superuser's
// setting, which only a superuser (or, from PostgreSQL 15, a role granted
// SET on it) may give a role. Otherwise the server's own limit holds
// (docs/security.md).
func limitTempFiles(ctx context.Context, tx pgx.Tx, role string) error {
	var may bool
	err := tx.QueryRow(ctx, `SELECT rolsuper FROM pg_roles WHERE rolname = current_user`).Scan(&may)
	if err == nil && !may {
		var version int
		err = tx.QueryRow(ctx, `SELECT current_setting('server_version_num')::int`).Scan(&version)
		if err == nil && version >= 150000 {
			err = tx.QueryRow(ctx, `SELECT has_parameter_privilege('temp_file_limit', 'SET')`).Scan(&may)
		}
	}
	if err != nil || !may {
		return err
	}
	q := `DO $$ BEGIN EXECUTE format('ALTER ROLE %I IN DATABASE %I SET temp_file_limit = %L', ` + quoteLiteral(role) +
		`, current_database(), ` + quoteLiteral(readerTempFiles) + `); END $$`
	if _, err := tx.Exec(ctx, q); err != nil {
		return fmt.Errorf("set temp_file_limit for %s: %w", role, err)
	}
	return nil
}

// EnsureReaderRole makes role what the migrations make the default reader
// role: created if missing, able to log in and nothing more (no superuser,
// createdb, createrole, replication, RLS bypass or inherited membership,
// 32 connections), read-only by default in the database of pool, and
// allowed to connect to it. A reader role of its own per deployment
// (READER_ROLE) keeps other databases' reader sessions, and their query
// text in pg_stat_activity, out of its sight.
// Like every step of `migrate`, it runs in turn (pgpool.SetupTx).
func EnsureReaderRole(ctx context.Context, pool *pgxpool.Pool, role string) error {
	err := pgpool.SetupTx(ctx, pool, func(tx pgx.Tx) error {
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, role).Scan(&exists); err != nil {
			return err
		}
		r := pgx.Identifier{role}.Sanitize()
		stmt := "ALTER ROLE " + r
		if !exists {
			stmt = "CREATE ROLE " + r
		}
		if _, err := tx.Exec(ctx, stmt+" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS CONNECTION LIMIT 32"); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
		return restrictSessions(ctx, tx, role)
	})
	if err != nil {
		return fmt.Errorf("set up the reader role %s: %w", role, err)
	}
	return nil
}

// restrictSessions sets role's per-database defaults in the current
// database and lets it connect there.
func restrictSessions(ctx context.Context, tx pgx.Tx, role string) error {
	for _, s := range readerSettings {
		if _, err := tx.Exec(ctx, `SELECT 1 FROM (SELECT set_config('analyticsbot.setting_value', $1, true)) v`, s[1]); err != nil {
			return err
		}
		q := `DO $$ BEGIN EXECUTE format('ALTER ROLE %I IN DATABASE %I SET %I = %L', ` + quoteLiteral(role) +
			`, current_database(), ` + quoteLiteral(s[0]) + `, current_setting('analyticsbot.setting_value')); END $$`
		if _, err := tx.Exec(ctx, q); err != nil {
			return fmt.Errorf("set %s for %s: %w", s[0], role, err)
		}
	}
	if err := limitTempFiles(ctx, tx, role); err != nil {
		return err
	}
	q := `DO $$ BEGIN EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), ` + quoteLiteral(role) + `); END $$`
	if _, err := tx.Exec(ctx, q); err != nil {
		return fmt.Errorf("let %s connect: %w", role, err)
	}
	return nil
}

// DropRoles drops roles that ApplyPolicies made, with their privileges in
// the database of pool (a role with privileges in other databases is
// refused by PostgreSQL), taking turns with ApplyPolicies: revoking
// grants on a table while another transaction grants on it fails; and,
// as ApplyAccess, in turn with the migrations and again after another
// database's change of a role's row (pgpool.SetupTx: roles are the
// server's, the locks one database's).
func DropRoles(ctx context.Context, pool *pgxpool.Pool, roles []string) error {
	err := pgpool.SetupTx(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, ApplyLockKey); err != nil {
			return err
		}
		for _, r := range roles {
			id := pgx.Identifier{r}.Sanitize()
			if _, err := tx.Exec(ctx, "DROP OWNED BY "+id+"; DROP ROLE "+id); err != nil {
				return fmt.Errorf("drop the role %s: %w", r, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("drop the policies' roles: %w", err)
	}
	return nil
}
