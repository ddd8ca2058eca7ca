package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// TestCLIGrant: `analyticsbot grant` lets the reader role read every schema
// of ANALYTICS_SCHEMA, tables made later included, and nothing else.
func TestCLIGrant(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, `CREATE SCHEMA marts; CREATE TABLE marts.games (id int);
		CREATE SCHEMA finance; CREATE TABLE finance.revenue (usd int);
		CREATE SCHEMA private; CREATE TABLE private.salaries (usd int);`)
	require.NoError(t, err)
	setDemoEnv(t, dbURL)
	t.Setenv("ANALYTICS_SCHEMA", "marts, finance")

	got := runCLI(t, "", "grant")
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	assert.Equal(t, "analyticsbot_reader may now read every table of marts, finance, and the tables created there later\n", got.stdout)

	_, err = db.Pool().Exec(ctx, `CREATE TABLE finance.later (x int)`)
	require.NoError(t, err)
	for table, want := range map[string]bool{
		"marts.games": true, "finance.revenue": true, "finance.later": true, "private.salaries": false,
	} {
		var ok bool
		require.NoError(t, db.Pool().QueryRow(ctx,
			`SELECT has_table_privilege('analyticsbot_reader', $1, 'SELECT')
			    AND has_schema_privilege('analyticsbot_reader', split_part($1, '.', 1), 'USAGE')`, table).Scan(&ok))
		assert.Equal(t, want, ok, "the reader reads %s", table)
	}
}

// `access apply` gives each policy of ACCESS_FILE its own role with
// exactly its grants, columns included, and says so; without a file it
// says what is missing.
func TestCLIAccessApply(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, `CREATE SCHEMA marts; CREATE TABLE marts.customers (id int, name text, email text);
		CREATE TABLE marts.salaries (usd int);`)
	require.NoError(t, err)
	setDemoEnv(t, dbURL)
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
    tables: ["marts.customers"]
    deny_columns: ["marts.customers.email"]
default: support
`), 0o600))
	t.Setenv("ACCESS_FILE", path)
	t.Setenv("READER_ROLE", reader)
	role := reader + "_support"
	t.Cleanup(func() {
		_, _ = db.Pool().Exec(context.Background(), `DROP OWNED BY "`+role+`"; DROP ROLE "`+role+`"`)
	})
	got = runCLI(t, "", "access", "apply")
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	assert.Equal(t, "policy support: role "+role+" may read exactly what the policy allows in marts\n"+
		"restart the bot to answer each policy as its role\n", got.stdout)
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
