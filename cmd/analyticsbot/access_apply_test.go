package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// docs/access.md: applying a file without a policy it had before takes
// that policy's role away (grants, login, the role) and says so; until
// then doctor fails on it. The audit's repro: analysts and everyone, then
// everyone alone.
func TestCLIAccessApplyRemovedPolicy(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)
	clearSlackEnv(t)
	require.NoError(t, runCLI(t, "", "demo", "load").err, "demo load")
	path := filepath.Join(t.TempDir(), "access.yaml")
	const everyone = `
  - name: everyone
    tables: ["analytics.apps"]
default: everyone
`
	require.NoError(t, os.WriteFile(path, []byte("policies:\n  - name: analysts\n    tables: [\"analytics.*\"]"+everyone), 0o600))
	t.Setenv("ACCESS_FILE", path)
	analysts, everyoneRole := readerOf(t, dbURL)+"_analysts", readerOf(t, dbURL)+"_everyone"
	t.Cleanup(func() {
		for _, r := range []string{analysts, everyoneRole} {
			id := pgx.Identifier{r}.Sanitize()
			_, _ = db.Pool().Exec(context.Background(), "DROP OWNED BY "+id+"; DROP ROLE "+id)
		}
	})
	apply := runCLI(t, "", "access", "apply")
	require.NoError(t, apply.err, "stderr: %s", apply.stderr)

	require.NoError(t, os.WriteFile(path, []byte("policies:"+everyone), 0o600))
	got := runCLI(t, "", "doctor")
	assert.ErrorIs(t, got.err, errProblems)
	assert.Contains(t, got.stdout, "✗ "+analysts+", the role of the policy analysts, which the access file no longer has, may still log in and read analytics.")
	assert.Contains(t, got.stdout, "run `analyticsbot access apply`\n")

	apply = runCLI(t, "", "access", "apply")
	require.NoError(t, apply.err, "stderr: %s", apply.stderr)
	assert.Contains(t, apply.stdout, analysts+", the role of the policy analysts, which the access file no longer has: its grants taken away and the role dropped\n")
	var exists bool
	require.NoError(t, db.Pool().QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, analysts).Scan(&exists))
	assert.False(t, exists, "the removed policy's role is gone")

	got = runCLI(t, "", "doctor")
	assert.NotContains(t, got.stdout, analysts)
	assert.NotContains(t, got.stdout, "no longer has")
}

// docs/access.md: a pattern that matches no table or column of the
// analytics schemas (a table misspelt in deny_columns, a table that does
// not exist in tables) is named by `access apply` and doctor, which
// otherwise said all was well while the column meant stayed readable.
func TestCLIAccessApplyUnmatchedPatterns(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)
	clearSlackEnv(t)
	require.NoError(t, runCLI(t, "", "demo", "load").err, "demo load")
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
policies:
  - name: everyone
    tables: ["analytics.apps", "analytics.games"]
    deny_tables: ["analytics.developer"]
    deny_columns: ["analytics.app.price", "analytics.apps.name"]
    mask_columns: ["analytics.*.emial"]
default: everyone
`), 0o600))
	t.Setenv("ACCESS_FILE", path)
	role := readerOf(t, dbURL) + "_everyone"
	t.Cleanup(func() {
		_, _ = db.Pool().Exec(context.Background(), `DROP OWNED BY "`+role+`"; DROP ROLE "`+role+`"`)
	})
	want := []string{
		`policy "everyone" tables "analytics.games" matches no table in analytics: if it is misspelt, the policy reads less than it was meant to; check it`,
		`policy "everyone" deny_tables "analytics.developer" matches no table in analytics: if it is misspelt, the table it was meant for stays readable; check it`,
		`policy "everyone" deny_columns "analytics.app.price" matches no column in analytics: if it is misspelt, the column it was meant for stays readable; check it`,
		`policy "everyone" mask_columns "analytics.*.emial" matches no column in analytics: if it is misspelt, the column it was meant for is shown in full; check it`,
	}
	apply := runCLI(t, "", "access", "apply")
	require.NoError(t, apply.err, "stderr: %s", apply.stderr)
	for _, w := range want {
		assert.Contains(t, apply.stdout, "warning: "+w+"\n")
	}
	assert.NotContains(t, apply.stdout, "analytics.apps.name", "a pattern that matches is not named")

	got := runCLI(t, "", "doctor")
	for _, w := range want {
		assert.Contains(t, got.stdout, "! "+w+"\n")
	}
	assert.NotContains(t, got.stdout, "every pattern of the access file matches")
	assert.Contains(t, got.stdout, "✓ every policy's role reads what its policy allows on the tables as they are now", "the roles match their policies as written")

	require.NoError(t, os.WriteFile(path, []byte(`
policies:
  - name: everyone
    tables: ["analytics.apps"]
    deny_columns: ["analytics.apps.price"]
default: everyone
`), 0o600))
	got = runCLI(t, "", "doctor")
	assert.Contains(t, got.stdout, "✓ every pattern of the access file matches a table or column of analytics\n")
}
