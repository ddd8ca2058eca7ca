package pgwarehouse_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// handSession logs in to the database of url as role, as someone holding
// its credentials would, and turns read-only off: the setting is every
// session's to change.
func handSession(t *testing.T, url, role string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, strings.Replace(url, "postgres@", role+"@", 1))
	require.NoError(t, err, "log in as %s", role)
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	_, err = conn.Exec(ctx, "SET default_transaction_read_only = off")
	require.NoError(t, err, "PostgreSQL cannot lock it")
	return conn
}

// lastingWrites are what a session that turned read-only off tries, to
// keep something in the database.
var lastingWrites = []struct{ name, sql string }{
	{"a temporary table", "CREATE TEMP TABLE kept (x int)"},
	{"a large object", `SELECT lo_from_bytea(0, '\xdeadbeef')`},
	{"a large object, numbered", "SELECT lo_create(0)"},
	{"a large object, the old way", "SELECT lo_creat(-1)"},
	{"a table in an analytics schema", "CREATE TABLE analytics.kept (x int)"},
	{"a table in public", "CREATE TABLE public.kept (x int)"},
	{"a schema", "CREATE SCHEMA kept"},
	{"a row", "INSERT INTO analytics.orders VALUES (3, 'initech', 1)"},
}

// TestHandOpenedSessions: a session opened by hand as the reader or a
// policy's role starts with a statement timeout and read-only, may turn
// read-only off (nothing can stop that), and then can keep nothing: no
// temporary table, large object, table, schema or row. Before the
// database is hardened it could; revoking TEMPORARY from the role alone
// changes nothing while PUBLIC holds it.
func TestHandOpenedSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := newAnalyticsDB(t)
	reader := testRoles(t, db, "abt_hand_")
	require.NoError(t, pgwarehouse.EnsureReaderRole(ctx, db.Pool(), reader))
	// CREATE on public is PUBLIC's in a database made before PostgreSQL 15.
	_, err := db.Pool().Exec(ctx, "GRANT USAGE ON SCHEMA analytics TO "+reader+"; GRANT SELECT ON analytics.orders TO "+reader+
		"; REVOKE TEMPORARY ON DATABASE "+pgx.Identifier{dbName(t, db.Pool())}.Sanitize()+" FROM "+reader+
		"; GRANT CREATE ON SCHEMA public TO PUBLIC")
	require.NoError(t, err)

	before := handSession(t, url, reader)
	_, err = before.Exec(ctx, "CREATE TEMP TABLE kept (x int)")
	assert.NoError(t, err, "REVOKE TEMPORARY from the role alone: PUBLIC still has it")
	_, err = before.Exec(ctx, `SELECT lo_from_bytea(0, 'x')`)
	assert.NoError(t, err, "large objects need no privilege but PUBLIC's EXECUTE")
	_, err = before.Exec(ctx, "CREATE TABLE public.kept (x int)")
	assert.NoError(t, err, "an old database's public")
	// Its own table it could write to ever after (doctor would say so).
	_, err = db.Pool().Exec(ctx, "DROP TABLE public.kept")
	require.NoError(t, err)
	problems, err := pgwarehouse.SessionProblems(ctx, db.Pool(), reader, "`analyticsbot migrate`")
	require.NoError(t, err)
	assert.Equal(t, []string{
		"a session of its own has no statement_timeout here: run `analyticsbot migrate`",
		"it may create objects in schema public: REVOKE CREATE ON SCHEMA \"public\" FROM \"" + reader + "\" (and from PUBLIC)",
		"it may create temporary tables: run `analyticsbot migrate` as the database's owner, or REVOKE TEMPORARY ON DATABASE \"" +
			dbName(t, db.Pool()) + "\" FROM PUBLIC, \"" + reader + "\"",
		"it may create large objects, which outlive its session: run `analyticsbot migrate` as a superuser, or REVOKE EXECUTE ON FUNCTION " +
			"pg_catalog.lo_creat(integer), pg_catalog.lo_create(oid), pg_catalog.lo_from_bytea(oid, bytea) FROM PUBLIC",
	}, problems)

	changes, err := pgwarehouse.HardenDatabase(ctx, db.Pool())
	require.NoError(t, err)
	assert.Equal(t, []string{
		"PUBLIC may no longer create temporary tables in database " + dbName(t, db.Pool()) + ", nor may the reader and the policy roles: " +
			"GRANT TEMPORARY ON DATABASE \"" + dbName(t, db.Pool()) + "\" TO the other roles that need them",
		"PUBLIC may no longer create objects in schema public (as PostgreSQL 15 does for public in new databases): " +
			"GRANT CREATE ON SCHEMA to the roles that need it",
		"PUBLIC may no longer create large objects in database " + dbName(t, db.Pool()) + ", nor may the reader and the policy roles: " +
			"GRANT EXECUTE ON FUNCTION pg_catalog.lo_creat(integer), pg_catalog.lo_create(oid), pg_catalog.lo_from_bytea(oid, bytea) TO the other roles that need them",
	}, changes)
	require.NoError(t, pgwarehouse.SetStatementTimeout(ctx, db.Pool(), reader, 0))
	again, err := pgwarehouse.HardenDatabase(ctx, db.Pool())
	require.NoError(t, err)
	assert.Empty(t, again, "nothing left to change")

	rules, err := access.Parse([]byte("policies:\n  - name: orders\n    tables: [\"analytics.orders\"]\ndefault: orders\n"))
	require.NoError(t, err)
	applied, err := pgwarehouse.ApplyAccess(ctx, db.Pool(), pgwarehouse.ApplyConfig{Reader: reader, Schemas: []string{"analytics"},
		StatementTimeout: 45 * time.Second}, rules.List())
	require.NoError(t, err)
	assert.Empty(t, applied.Changes, "the database was hardened already")

	for role, timeout := range map[string]string{reader: "30s", applied.Roles["orders"]: "45s"} {
		t.Run(role, func(t *testing.T) {
			problems, err := pgwarehouse.SessionProblems(ctx, db.Pool(), role, "`analyticsbot migrate`")
			require.NoError(t, err)
			assert.Empty(t, problems)
			conn := handSession(t, url, role)
			var got string
			require.NoError(t, conn.QueryRow(ctx, "SHOW statement_timeout").Scan(&got))
			assert.Equal(t, timeout, got, "the role's default")
			var n int
			require.NoError(t, conn.QueryRow(ctx, "SELECT count(*) FROM analytics.orders").Scan(&n), "it still reads")
			for _, w := range lastingWrites {
				_, err := conn.Exec(ctx, w.sql)
				requireRefused(t, err, "permission denied", "%s as %s", w.name, role)
			}

			// What PostgreSQL lets every role do: change its own defaults,
			// which doctor then reports.
			_, err = conn.Exec(ctx, "ALTER ROLE "+pgx.Identifier{role}.Sanitize()+" IN DATABASE "+
				pgx.Identifier{dbName(t, db.Pool())}.Sanitize()+" SET statement_timeout = 0")
			require.NoError(t, err)
			problems, err = pgwarehouse.SessionProblems(ctx, db.Pool(), role, "`analyticsbot migrate`")
			require.NoError(t, err)
			assert.Equal(t, []string{"a session of its own has no statement_timeout here: run `analyticsbot migrate`"}, problems)
			_, err = conn.Exec(ctx, "ALTER ROLE "+pgx.Identifier{role}.Sanitize()+" IN DATABASE "+
				pgx.Identifier{dbName(t, db.Pool())}.Sanitize()+" SET default_transaction_read_only = off")
			require.NoError(t, err)
			problems, err = pgwarehouse.SessionProblems(ctx, db.Pool(), role, "`analyticsbot migrate`")
			require.NoError(t, err)
			assert.Equal(t, []string{"a session of its own has no statement_timeout here: run `analyticsbot migrate`",
				"a session of its own is not read-only by default (default_transaction_read_only): run `analyticsbot migrate`"}, problems,
				"docs/security.md: doctor reports the read-only default gone too")
		})
	}
}

// dbName is the name of the database of pool.
func dbName(t *testing.T, pool interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) string {
	t.Helper()
	var name string
	require.NoError(t, pool.QueryRow(context.Background(), "SELECT current_database()").Scan(&name))
	return name
}

// A grant that would let a session that turned read-only off write or
// create is named, with the REVOKE that takes it away.
func TestSessionProblemsNameWhatToRevoke(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := newAnalyticsDB(t)
	role := testRoles(t, db, "abt_grants_")
	require.NoError(t, pgwarehouse.EnsureReaderRole(ctx, db.Pool(), role))
	require.NoError(t, pgwarehouse.SetStatementTimeout(ctx, db.Pool(), role, time.Minute))
	_, err := pgwarehouse.HardenDatabase(ctx, db.Pool())
	require.NoError(t, err)
	name := pgx.Identifier{dbName(t, db.Pool())}.Sanitize()
	r := `"` + role + `"`
	_, err = db.Pool().Exec(ctx, "CREATE SEQUENCE analytics.ids; GRANT USAGE ON SCHEMA analytics TO "+r+
		"; GRANT INSERT ON analytics.orders TO "+r+"; GRANT USAGE ON SEQUENCE analytics.ids TO "+r+
		"; GRANT CREATE ON SCHEMA analytics TO "+r+"; GRANT CREATE, TEMPORARY ON DATABASE "+name+" TO "+r)
	require.NoError(t, err)
	problems, err := pgwarehouse.SessionProblems(ctx, db.Pool(), role, "`analyticsbot access apply`")
	require.NoError(t, err)
	assert.Equal(t, []string{
		"it may write to analytics.orders: REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON analytics.orders FROM " + r + " (and from PUBLIC)",
		"it may advance the sequences analytics.ids: REVOKE USAGE, UPDATE ON SEQUENCE analytics.ids FROM " + r + " (and from PUBLIC)",
		"it may create schemas: REVOKE CREATE ON DATABASE " + name + " FROM " + r + " (and from PUBLIC)",
		"it may create objects in schema analytics: REVOKE CREATE ON SCHEMA \"analytics\" FROM " + r + " (and from PUBLIC)",
		"it may create temporary tables: run `analyticsbot access apply` as the database's owner, or REVOKE TEMPORARY ON DATABASE " + name + " FROM PUBLIC, " + r,
	}, problems)
}
