package storetest

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/pgpool"
	"github.com/analyticsbot/analyticsbot/store"
)

// SetupRoles runs sql, statements that create or grant to roles, on db as
// the migrations' role changes run (pgpool.SetupTx): roles belong to the
// whole server, and test packages running at once that change them
// directly fail now and then with "tuple concurrently updated".
func SetupRoles(t testing.TB, db *store.DB, sql string) {
	t.Helper()
	ctx := context.Background()
	err := pgpool.SetupTx(ctx, db.Pool(), func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, sql)
		return err
	})
	if err != nil {
		t.Fatalf("set up roles: %v", err)
	}
}

// RoleSetting is a per-database default of a role, as pg_db_role_setting
// holds it (Stored) and as SHOW prints it in a session of the role (Shown).
type RoleSetting struct{ Name, Stored, Shown string }

// documentedSettings are the per-database defaults docs/security.md gives
// every reader and policy role ("Layer 2: the database" and the Hardening
// table). statement_timeout is apart: it follows STATEMENT_TIMEOUT.
var documentedSettings = []RoleSetting{
	{"default_transaction_read_only", "on", "on"},
	{"lock_timeout", "2s", "2s"},
	{"idle_in_transaction_session_timeout", "60s", "1min"},
	{"work_mem", "64MB", "64MB"},
	{"temp_buffers", "8MB", "8MB"},
}

// AssertDocumentedRole checks that role is what docs/security.md says
// every reader and policy role is: able to log in and nothing more (no
// superuser, createdb, createrole, replication, RLS bypass, inherited
// membership or membership at all), 32 connections, the documented
// per-database defaults in db's database with statementTimeout and own
// (the settings only this role has, such as the shared reader's
// search_path) and no other, and a session opened by hand as the role
// (url's user replaced) starting with them.
func AssertDocumentedRole(t testing.TB, db *store.DB, url, role, statementTimeout string, own ...RoleSetting) {
	t.Helper()
	ctx := context.Background()
	var login, super, createDB, createRole, replication, bypassRLS, inherit, member bool
	var connLimit int
	var settings []string
	require.NoError(t, db.Pool().QueryRow(ctx, `
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
	all := append([]RoleSetting{{"statement_timeout", statementTimeout, statementTimeout}}, documentedSettings...)
	all = append(all, own...)
	want := make([]string, 0, len(all))
	for _, s := range all {
		want = append(want, s.Name+"="+s.Stored)
	}
	assert.ElementsMatch(t, want, settings, "%s: per-database defaults", role)

	conn, err := pgx.Connect(ctx, strings.Replace(url, "postgres@", role+"@", 1))
	require.NoError(t, err, "log in as %s", role)
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	for _, s := range all {
		var got string
		require.NoError(t, conn.QueryRow(ctx, "SHOW "+s.Name).Scan(&got))
		assert.Equal(t, s.Shown, got, "%s: a session of its own starts with %s", role, s.Name)
	}
}
