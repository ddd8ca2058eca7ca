package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// docs/access.md: doctor compares each policy role's privileges with what
// `access apply` would grant on the tables as they are now. A role that
// may read beyond its policy fails (a partition its policy denies, added
// after apply, leaves its parent readable); one that cannot read what its
// policy allows (a new table, a grant revoked by hand) is a warning. It
// shows five of each and counts the rest, with the fix; after apply
// again, nothing.
func TestCLIDoctorAccessDrift(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, `CREATE SCHEMA marts;
		CREATE TABLE marts.customers (id int, name text, email text);
		CREATE TABLE marts.payments (id int, region text, card text) PARTITION BY LIST (region);
		CREATE TABLE marts.payments_eu PARTITION OF marts.payments FOR VALUES IN ('eu');`)
	require.NoError(t, err)
	setUp(t, dbURL)
	clearSlackEnv(t)
	t.Setenv("ANALYTICS_SCHEMA", "marts")
	require.NoError(t, runCLI(t, "", "grant").err)
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
policies:
  - name: support
    tables: ["marts.*"]
    deny_tables: ["marts.payments_ch"]
    deny_columns: ["marts.customers.email", "marts.payments.card"]
default: support
`), 0o600))
	t.Setenv("ACCESS_FILE", path)
	role := readerOf(t, dbURL) + "_support"
	t.Cleanup(func() {
		_, _ = db.Pool().Exec(context.Background(), `DROP OWNED BY "`+role+`"; DROP ROLE "`+role+`"`)
	})
	apply := runCLI(t, "", "access", "apply")
	require.NoError(t, apply.err, "stderr: %s", apply.stderr)
	const matches = "✓ every policy's role reads what its policy allows on the tables as they are now\n"
	got := runCLI(t, "", "doctor")
	require.NoError(t, got.err, "stdout: %s", got.stdout)
	assert.Contains(t, got.stdout, matches)

	_, err = db.Pool().Exec(ctx, `
		CREATE TABLE marts.payments_ch PARTITION OF marts.payments FOR VALUES IN ('ch');
		REVOKE SELECT (name) ON marts.customers FROM "`+role+`";
		CREATE TABLE marts.new_table (id int);`)
	require.NoError(t, err)
	for i := range 5 {
		_, err = db.Pool().Exec(ctx, fmt.Sprintf(`CREATE TABLE marts.t%d (id int)`, i))
		require.NoError(t, err)
	}
	got = runCLI(t, "", "doctor")
	assert.ErrorIs(t, got.err, errProblems)
	fix := ": run `analyticsbot access apply`\n"
	assert.Contains(t, got.stdout, "✗ "+role+" may read marts.payments, which its policy support denies"+fix+
		"! "+role+" cannot read marts.customers.name, which its policy support allows"+fix+
		"! "+role+" cannot read marts.new_table, which its policy support allows"+fix+
		"! "+role+" cannot read marts.t0, which its policy support allows"+fix+
		"! "+role+" cannot read marts.t1, which its policy support allows"+fix+
		"! "+role+" cannot read marts.t2, which its policy support allows"+fix+
		"! and 2 more the policies allow that their roles cannot read"+fix)
	assert.NotContains(t, got.stdout, matches)
	assert.NotContains(t, got.stdout, "payments_ch", "a partition its policy denies and its role cannot read is no difference")

	apply = runCLI(t, "", "access", "apply")
	require.NoError(t, apply.err, "stderr: %s", apply.stderr)
	require.NoError(t, runCLI(t, "", "grant").err, "the reader reads the new tables")
	got = runCLI(t, "", "doctor")
	require.NoError(t, got.err, "stdout: %s", got.stdout)
	assert.Contains(t, got.stdout, matches)
	assert.NotContains(t, got.stdout, "which its policy")

	// A policy added to the file since apply has no role yet: doctor says
	// so, and still checks the roles that exist.
	require.NoError(t, os.WriteFile(path, []byte(`
policies:
  - name: support
    tables: ["marts.*"]
    deny_tables: ["marts.payments_ch"]
    deny_columns: ["marts.customers.email", "marts.payments.card"]
  - name: auditors
    users: [UAUDIT]
    tables: ["marts.customers"]
default: support
`), 0o600))
	got = runCLI(t, "", "doctor")
	assert.Contains(t, got.stdout, "! policies without their database role ("+readerOf(t, dbURL)+"_auditors) are answered as the reader, the guard alone enforcing them: run `analyticsbot access apply`\n")
	assert.NotContains(t, got.stdout, "every policy has its database role")
	assert.Contains(t, got.stdout, matches, "the role that exists is checked still")
}

// docs/access.md: the running bot checks the same at start and whenever
// it reads the catalog again, and logs the differences once.
func TestCLIServeLogsAccessDrift(t *testing.T) {
	dbURL := serveEnv(t)
	db, err := store.Open(context.Background(), dbURL)
	require.NoError(t, err)
	t.Cleanup(db.Close)
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
policies:
  - name: everyone
    tables: ["analytics.*"]
default: everyone
`), 0o600))
	t.Setenv("ACCESS_FILE", path)
	role := readerOf(t, dbURL) + "_everyone"
	t.Cleanup(func() {
		_, _ = db.Pool().Exec(context.Background(), `DROP OWNED BY "`+role+`"; DROP ROLE "`+role+`"`)
	})
	apply := runCLI(t, "", "access", "apply")
	require.NoError(t, apply.err, "stderr: %s", apply.stderr)
	_, err = db.Pool().Exec(context.Background(), `CREATE TABLE analytics.drift_new (id int)`)
	require.NoError(t, err)

	s := startServe(t)
	s.errOut.waitFor(t, regexp.MustCompile(`level=WARN msg="the policy roles' grants differ from their policies on the tables as they are now: `+
		"run `analyticsbot access apply`\" beyond=\\[\\] beyond_count=0 short=\"\\["+role+` cannot read analytics.drift_new, which its policy everyone allows\]" short_count=1\n`), s.done)
	s.shutdown(t)
}
