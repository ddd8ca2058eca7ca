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
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// `access apply` with a channel's ceiling gives each policy within it a
// role of its own, with the grants both policies allow, and says so.
func TestCLIAccessApplyCeiling(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, `CREATE SCHEMA marts; CREATE TABLE marts.customers (id int, name text, email text);
		CREATE TABLE marts.salaries (usd int);`)
	require.NoError(t, err)
	setUp(t, dbURL)
	reader := strings.ToLower("abt_cli_reader_" + t.Name()[len("TestCLI"):])
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
policies:
  - name: finance
    users: [UFAY]
    tables: ["marts.*"]
  - name: guests
    tables: ["marts.customers"]
    deny_columns: ["marts.customers.email"]
default: guests
channel_ceilings:
  - channels: [C0GENERAL]
    policy: guests
`), 0o600))
	t.Setenv("ANALYTICS_SCHEMA", "marts")
	t.Setenv("ACCESS_FILE", path)
	t.Setenv("READER_ROLE", reader)
	roles := map[string]string{}
	for _, p := range []string{"finance", "guests", "finance∩guests"} {
		roles[p] = pgwarehouse.PolicyRole(reader, p)
	}
	t.Cleanup(func() {
		for _, r := range roles {
			_, _ = db.Pool().Exec(context.Background(), `DROP OWNED BY "`+r+`"; DROP ROLE "`+r+`"`)
		}
	})
	got := runCLI(t, "", "access", "apply")
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	assert.Contains(t, got.stdout, "policy finance∩guests: role "+roles["finance∩guests"]+" may read exactly what the policy allows in marts\n")
	for _, c := range []struct {
		role, table, column string
		want                bool
	}{
		{roles["finance"], "marts.salaries", "usd", true},
		{roles["finance"], "marts.customers", "email", true},
		{roles["finance∩guests"], "marts.customers", "name", true},
		{roles["finance∩guests"], "marts.customers", "email", false},
		{roles["finance∩guests"], "marts.salaries", "usd", false},
	} {
		var ok bool
		require.NoError(t, db.Pool().QueryRow(ctx, `SELECT has_column_privilege($1, $2::regclass, $3, 'SELECT')`, c.role, c.table, c.column).Scan(&ok))
		assert.Equal(t, c.want, ok, "%s reads %s.%s", c.role, c.table, c.column)
	}
}
