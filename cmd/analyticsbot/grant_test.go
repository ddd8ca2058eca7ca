package main

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// TestCLIGrant: `analyticsbot grant` lets the reader role read every schema
// of ANALYTICS_SCHEMA, tables made later included, and nothing else; the
// functions there are no longer every role's, and the reader may call
// those its views call.
func TestCLIGrant(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, `CREATE SCHEMA marts; CREATE TABLE marts.games (id int, name text);
		CREATE SCHEMA finance; CREATE TABLE finance.revenue (usd int);
		CREATE SCHEMA private; CREATE TABLE private.salaries (usd int);
		CREATE FUNCTION marts.tidy(text) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT trim($1)';
		CREATE VIEW marts.v_games AS SELECT id, marts.tidy(name) AS name FROM marts.games;
		CREATE FUNCTION finance.payroll() RETURNS bigint LANGUAGE sql STABLE SECURITY DEFINER AS 'SELECT sum(usd) FROM private.salaries';`)
	require.NoError(t, err)
	setUp(t, dbURL)
	t.Setenv("ANALYTICS_SCHEMA", "marts, finance")
	reader := readerOf(t, dbURL)
	var login string
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT current_user`).Scan(&login))

	got := runCLI(t, "", "grant")
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	assert.Equal(t, reader+" may now read every table of marts, finance, and the tables created there later\n"+
		"PUBLIC may no longer execute finance.payroll(), marts.tidy(text): only the roles whose views or row-level security policies call them may\n"+
		"functions "+login+" (a superuser) adds to marts, finance later stay executable by PUBLIC until `analyticsbot access apply` runs again: "+
		"PostgreSQL's default privileges would cover all it creates in this database, extensions included\n", got.stdout)
	for function, want := range map[string]bool{"marts.tidy(text)": true, "finance.payroll()": false} {
		var ok bool
		require.NoError(t, db.Pool().QueryRow(ctx, `SELECT has_function_privilege($1, $2, 'EXECUTE')`, reader, function).Scan(&ok))
		assert.Equal(t, want, ok, "the reader executes %s", function)
	}

	_, err = db.Pool().Exec(ctx, `CREATE TABLE finance.later (x int)`)
	require.NoError(t, err)
	for table, want := range map[string]bool{
		"marts.games": true, "finance.revenue": true, "finance.later": true, "private.salaries": false,
	} {
		var ok bool
		require.NoError(t, db.Pool().QueryRow(ctx,
			`SELECT has_table_privilege($2, $1, 'SELECT')
			    AND has_schema_privilege($2, split_part($1, '.', 1), 'USAGE')`, table, reader).Scan(&ok))
		assert.Equal(t, want, ok, "the reader reads %s", table)
	}
}

// hardened is what migrate says the first time it runs in the database
// name as a superuser: PUBLIC loses temporary tables and large objects.
func hardened(name string) string {
	return "PUBLIC may no longer create temporary tables in database " + name + ", nor may the reader and the policy roles: " +
		"GRANT TEMPORARY ON DATABASE \"" + name + "\" TO the other roles that need them\n" +
		"PUBLIC may no longer create large objects in database " + name + ", nor may the reader and the policy roles: " +
		"GRANT EXECUTE ON FUNCTION pg_catalog.lo_creat(integer), pg_catalog.lo_create(oid), pg_catalog.lo_from_bytea(oid, bytea) TO the other roles that need them\n"
}

// readerOf is the reader role the program uses on dbURL when READER_ROLE
// is not set.
func readerOf(t *testing.T, dbURL string) string {
	t.Helper()
	reader, err := pgwarehouse.ReaderRoleFor(dbURL)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(reader, "analyticsbot_reader_abt_test_"), "the reader of a test database: %s", reader)
	return reader
}

// TestCLIMigrateMovesOffTheSharedReader: a deployment of an earlier
// version, whose reader every database on the server shared, runs
// `migrate`: its own reader gets the shared one's grants here (schemas,
// tables, columns, later tables, row-level security policies) and answers
// as the old one did; migrate and doctor say how to take the shared one's
// grants away, and once that is done, say nothing more.
func TestCLIMigrateMovesOffTheSharedReader(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, `
		CREATE SCHEMA marts;
		CREATE TABLE marts.orders (id int, customer text, secret text);
		CREATE TABLE marts.customers (id int, name text, email text);
		CREATE TABLE marts.unshared (id int);
		INSERT INTO marts.orders VALUES (1, 'ann', 'x'), (2, 'bob', 'y');
		GRANT USAGE ON SCHEMA marts TO analyticsbot_reader;
		GRANT SELECT ON marts.orders TO analyticsbot_reader;
		GRANT SELECT (id, name) ON marts.customers TO analyticsbot_reader;
		ALTER DEFAULT PRIVILEGES IN SCHEMA marts GRANT SELECT ON TABLES TO analyticsbot_reader;
		ALTER TABLE marts.orders ENABLE ROW LEVEL SECURITY;
		CREATE POLICY ann_only ON marts.orders FOR SELECT TO analyticsbot_reader USING (customer = 'ann');`)
	require.NoError(t, err)
	setDemoEnv(t, dbURL)
	t.Setenv("ANALYTICS_SCHEMA", "marts")
	reader := readerOf(t, dbURL)

	got := runCLI(t, "", "migrate")
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	assert.Equal(t, "migrations applied\n"+hardened(strings.TrimPrefix(reader, "analyticsbot_reader_"))+
		"reader role "+reader+" ready\n"+
		reader+" now has the grants analyticsbot_reader, the reader every database on this server shared, had here: "+
		"1 schemas, 1 tables, 1 tables' columns, 1 default grants, 1 row-level security policies\n"+
		"analyticsbot_reader still reads here; once no process runs as it, take that away:\n"+
		"  REVOKE ALL ON ALL TABLES IN SCHEMA \"marts\" FROM \"analyticsbot_reader\";\n"+
		"  REVOKE USAGE ON SCHEMA \"marts\" FROM \"analyticsbot_reader\";\n"+
		"  REVOKE CONNECT ON DATABASE \""+strings.TrimPrefix(reader, "analyticsbot_reader_")+"\" FROM \"analyticsbot_reader\";\n", got.stdout)

	for _, c := range []struct {
		query string
		want  bool
	}{
		{`SELECT has_table_privilege($1, 'marts.orders', 'SELECT')`, true},
		{`SELECT has_column_privilege($1, 'marts.customers', 'name', 'SELECT')`, true},
		{`SELECT has_column_privilege($1, 'marts.customers', 'email', 'SELECT')`, false},
		{`SELECT has_table_privilege($1, 'marts.unshared', 'SELECT')`, false},
	} {
		var ok bool
		require.NoError(t, db.Pool().QueryRow(ctx, c.query, reader).Scan(&ok))
		assert.Equal(t, c.want, ok, "%s for the own reader", c.query)
	}
	_, err = db.Pool().Exec(ctx, `CREATE TABLE marts.later (x int)`)
	require.NoError(t, err)
	var later bool
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT has_table_privilege($1, 'marts.later', 'SELECT')`, reader).Scan(&later))
	assert.True(t, later, "tables created later are granted to the own reader too")

	// Queries as the own reader are under the row-level security policy
	// the shared reader was under.
	exec := pgwarehouse.NewExecutor(pgwarehouse.ExecConfig{DatabaseURL: dbURL, Role: reader, Schemas: []string{"marts"}})
	defer exec.Close()
	res, err := exec.Query(ctx, "SELECT customer FROM marts.orders ORDER BY id")
	require.NoError(t, err)
	assert.Equal(t, [][]any{{"ann"}}, res.Rows, "only the rows the policy lets the reader see")

	again := runCLI(t, "", "migrate")
	require.NoError(t, again.err)
	assert.NotContains(t, again.stdout, "now has the grants", "nothing more to carry over")

	doctor := runCLI(t, "", "doctor")
	assert.Contains(t, doctor.stdout, "! analyticsbot_reader, the reader databases on this server shared before, still reads here: once no process runs as it, REVOKE ALL ON ALL TABLES IN SCHEMA \"marts\"")
	assert.NotContains(t, doctor.stdout, "the reader role "+reader+" is set up in other databases")

	_, err = db.Pool().Exec(ctx, `REVOKE ALL ON ALL TABLES IN SCHEMA marts FROM analyticsbot_reader;
		REVOKE SELECT (id, name) ON marts.customers FROM analyticsbot_reader;
		REVOKE USAGE ON SCHEMA marts FROM analyticsbot_reader;
		ALTER DEFAULT PRIVILEGES IN SCHEMA marts REVOKE SELECT ON TABLES FROM analyticsbot_reader;
		ALTER POLICY ann_only ON marts.orders TO `+reader+`;`)
	require.NoError(t, err)
	again = runCLI(t, "", "migrate")
	require.NoError(t, again.err)
	assert.Equal(t, "migrations applied\nreader role "+reader+" ready\n", again.stdout, "the shared reader is retired here")
	doctor = runCLI(t, "", "doctor")
	assert.NotContains(t, doctor.stdout, "analyticsbot_reader, the reader databases on this server shared before")
}

// `access apply` gives each policy of ACCESS_FILE its own role with
// exactly its grants, columns included, and says so; without a file it
// says what is missing.
func TestCLIAccessApply(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, `CREATE SCHEMA marts; CREATE TABLE marts.customers (id int, name text, email text);
		CREATE TABLE marts.salaries (usd int);
		CREATE FUNCTION marts.salary_total() RETURNS int LANGUAGE sql STABLE SECURITY DEFINER AS 'SELECT sum(usd)::int FROM marts.salaries';
		CREATE FUNCTION marts.tidy(text) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT trim($1)';
		CREATE VIEW marts.v_names AS SELECT id, marts.tidy(name) AS name FROM marts.customers;`)
	require.NoError(t, err)
	setUp(t, dbURL)
	var login string
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT current_user`).Scan(&login))
	t.Setenv("ANALYTICS_SCHEMA", "marts")
	t.Setenv("ACCESS_FILE", "")
	got := runCLI(t, "", "access", "apply")
	assert.ErrorContains(t, got.err, "ACCESS_FILE is not set")

	reader := "abt_cli_reader_" + strings.ReplaceAll(t.Name(), "/", "_")[len("TestCLI"):]
	reader = strings.ToLower(reader)
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
policies:
  - name: support
    tables: ["marts.customers", "marts.v_names"]
    deny_columns: ["marts.customers.email"]
default: support
`), 0o600))
	t.Setenv("ACCESS_FILE", path)
	t.Setenv("READER_ROLE", reader)
	role := reader + "_support"
	t.Cleanup(func() {
		_, _ = db.Pool().Exec(context.Background(), `DROP OWNED BY "`+role+`"; DROP ROLE "`+role+`"`)
	})
	// docs/access.md: with READER_DATABASE_URL set, every policy role gets
	// its password.
	const password = "the-readers-own-pw-42"
	readerURL, err := url.Parse(dbURL)
	require.NoError(t, err)
	readerURL.User = url.UserPassword(reader, password)
	t.Setenv("READER_DATABASE_URL", readerURL.String())
	got = runCLI(t, "", "access", "apply")
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	var verifier string
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT coalesce(rolpassword, '') FROM pg_authid WHERE rolname = $1`, role).Scan(&verifier))
	assert.True(t, scramMatches(t, verifier, password), "the policy role's password is READER_DATABASE_URL's (verifier %q)", verifier)
	assert.Equal(t, "policy support: role "+role+" may read exactly what the policy allows in marts\n"+
		"policy support: role "+role+" may execute marts.tidy(text), which what it reads calls\n"+
		"PUBLIC may no longer execute marts.salary_total(), marts.tidy(text): only the roles whose views or row-level security policies call them may\n"+
		"functions "+login+" (a superuser) adds to marts later stay executable by PUBLIC until `analyticsbot access apply` runs again: "+
		"PostgreSQL's default privileges would cover all it creates in this database, extensions included\n"+
		"restart the bot to answer each policy as its role\n", got.stdout)
	for _, c := range []struct {
		function string
		want     bool
	}{{"marts.tidy(text)", true}, {"marts.salary_total()", false}} {
		var ok bool
		require.NoError(t, db.Pool().QueryRow(ctx, `SELECT has_function_privilege($1, $2, 'EXECUTE')`, role, c.function).Scan(&ok))
		assert.Equal(t, c.want, ok, "the role executes %s", c.function)
	}
	doctor := runCLI(t, "", "doctor")
	assert.Contains(t, doctor.stdout, "✓ "+role+": a session opened by hand is read-only by default with a statement timeout, "+
		"and even read-write could not write, create anything, use temporary tables or keep large objects\n")
	for _, c := range []struct {
		column string
		want   bool
	}{{"name", true}, {"email", false}} {
		var ok bool
		require.NoError(t, db.Pool().QueryRow(ctx, `SELECT has_column_privilege($1, 'marts.customers', $2, 'SELECT')`, role, c.column).Scan(&ok))
		assert.Equal(t, c.want, ok, "the role reads marts.customers.%s", c.column)
	}
	var salaries bool
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT has_table_privilege($1, 'marts.salaries', 'SELECT')`, role).Scan(&salaries))
	assert.False(t, salaries, "nothing the policy does not name")
	assert.ErrorIs(t, runCLI(t, "", "access", "revoke").err, errUsage, "a usage error")
}

// scramMatches reports whether a SCRAM-SHA-256 verifier as PostgreSQL
// stores it ("SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>")
// is password's.
func scramMatches(t *testing.T, verifier, password string) bool {
	t.Helper()
	m := regexp.MustCompile(`^SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):`).FindStringSubmatch(verifier)
	if m == nil {
		return false
	}
	iterations, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	salt, err := base64.StdEncoding.DecodeString(m[2])
	require.NoError(t, err)
	stored, err := base64.StdEncoding.DecodeString(m[3])
	require.NoError(t, err)
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	require.NoError(t, err)
	mac := hmac.New(sha256.New, salted)
	mac.Write([]byte("Client Key"))
	sum := sha256.Sum256(mac.Sum(nil))
	return hmac.Equal(sum[:], stored)
}
