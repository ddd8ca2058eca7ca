package pgwarehouse_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// documentedSettings are the per-database defaults docs/security.md gives
// every reader and policy role ("Layer 2: the database" and the Hardening
// table), as pg_db_role_setting holds them and as SHOW prints them in a
// session of the role. statement_timeout is apart: it follows
// STATEMENT_TIMEOUT.
var documentedSettings = []struct{ name, stored, shown string }{
	{"default_transaction_read_only", "on", "on"},
	{"lock_timeout", "2s", "2s"},
	{"idle_in_transaction_session_timeout", "60s", "1min"},
	{"work_mem", "64MB", "64MB"},
	{"temp_buffers", "8MB", "8MB"},
}

// assertDocumentedRole checks that role is what docs/security.md says
// every reader and policy role is: able to log in and nothing more (no
// superuser, createdb, createrole, replication, RLS bypass, inherited
// membership or membership at all), 32 connections, the documented
// per-database defaults in the database of pool with statementTimeout, and
// a session opened by hand as the role (url's user replaced) starting
// with them.
func assertDocumentedRole(t *testing.T, pool *pgxpool.Pool, url, role, statementTimeout string) {
	t.Helper()
	ctx := context.Background()
	var login, super, createDB, createRole, replication, bypassRLS, inherit, member bool
	var connLimit int
	var settings []string
	require.NoError(t, pool.QueryRow(ctx, `
		SELECT rolcanlogin, rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls, rolinherit,
		       EXISTS (SELECT 1 FROM pg_auth_members m WHERE m.member = r.oid), rolconnlimit,
		       coalesce((SELECT s.setconfig FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
		                 WHERE s.setrole = r.oid AND d.datname = current_database()), '{}')
		FROM pg_roles r WHERE rolname = $1`, role).
		Scan(&login, &super, &createDB, &createRole, &replication, &bypassRLS, &inherit, &member, &connLimit, &settings),
		"the role %s", role)
	assert.True(t, login, "%s logs in", role)
	assert.False(t, super, "%s: superuser", role)
	assert.False(t, createDB, "%s: createdb", role)
	assert.False(t, createRole, "%s: createrole", role)
	assert.False(t, replication, "%s: replication", role)
	assert.False(t, bypassRLS, "%s: RLS bypass", role)
	assert.False(t, inherit, "%s: inherited membership", role)
	assert.False(t, member, "%s is a member of no role", role)
	assert.Equal(t, 32, connLimit, "%s: connection limit", role)
	want := []string{"statement_timeout=" + statementTimeout}
	for _, s := range documentedSettings {
		want = append(want, s.name+"="+s.stored)
	}
	assert.ElementsMatch(t, want, settings, "%s: per-database defaults", role)

	conn, err := pgx.Connect(ctx, strings.Replace(url, "postgres@", role+"@", 1))
	require.NoError(t, err, "log in as %s", role)
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	shown := map[string]string{"statement_timeout": statementTimeout}
	for _, s := range documentedSettings {
		shown[s.name] = s.shown
	}
	for name, want := range shown {
		var got string
		require.NoError(t, conn.QueryRow(ctx, "SHOW "+name).Scan(&got))
		assert.Equal(t, want, got, "%s: a session of its own starts with %s", role, name)
	}
}

// TestReaderAndPolicyRolesAsDocumented: the database's own reader, set up
// as `migrate` sets it up (STATEMENT_TIMEOUT unset), and a policy's role,
// made as `access apply` makes it (STATEMENT_TIMEOUT=45s), each have
// exactly the attributes and per-database defaults docs/security.md
// gives them.
func TestReaderAndPolicyRolesAsDocumented(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := newAnalyticsDB(t)
	// Named for the database, the test database's drop takes it and its
	// policy roles along (storetest).
	reader, err := pgwarehouse.ReaderRoleFor(url)
	require.NoError(t, err)
	require.NoError(t, pgwarehouse.EnsureReaderRole(ctx, db.Pool(), reader))
	require.NoError(t, pgwarehouse.SetStatementTimeout(ctx, db.Pool(), reader, 0))

	rules, err := access.Parse([]byte("policies:\n  - name: orders\n    tables: [\"analytics.orders\"]\ndefault: orders\n"))
	require.NoError(t, err)
	applied, err := pgwarehouse.ApplyAccess(ctx, db.Pool(), pgwarehouse.ApplyConfig{Reader: reader, Schemas: []string{"analytics"},
		StatementTimeout: 45 * time.Second}, rules.AllPolicies())
	require.NoError(t, err)

	t.Run("reader", func(t *testing.T) { assertDocumentedRole(t, db.Pool(), url, reader, "30s") })
	t.Run("policy role", func(t *testing.T) { assertDocumentedRole(t, db.Pool(), url, applied.Roles["orders"], "45s") })
}
