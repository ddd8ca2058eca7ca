package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store/storetest"
)

type verdict struct {
	OK     bool   `json:"ok"`
	Class  string `json:"class"`
	Reason string `json:"reason"`
}

func TestCLIValidateSQL(t *testing.T) {
	_, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)
	require.NoError(t, runCLI(t, "", "demo", "load").err, "demo load")

	tests := []struct {
		name      string
		args      []string
		sql       string
		wantOK    bool
		wantClass string
	}{
		{name: "analytics query", sql: sql2018, wantOK: true},
		{name: "unqualified table of the schema", sql: "SELECT name FROM apps ORDER BY price DESC LIMIT 5", wantOK: true},
		{name: "stacked", sql: "SELECT 1; DROP TABLE analytics.apps", wantClass: "stacked_statements"},
		{name: "write", sql: "DELETE FROM analytics.apps", wantClass: "write"},
		{name: "sleep", sql: "SELECT pg_sleep(10)", wantClass: "sleep"},
		{name: "settings", sql: "SELECT set_config('role', 'postgres', false)", wantClass: "setting_change"},
		{name: "unknown table", sql: "SELECT * FROM orders", wantClass: "relation_not_allowed"},
		{name: "catalog", sql: "SELECT rolname FROM pg_roles", wantClass: "system_catalog"},
		{name: "empty input", sql: "", wantClass: "empty"},
		{name: "other schema by flag", args: []string{"--schema", "sales"}, sql: "SELECT * FROM analytics.apps", wantClass: "relation_not_allowed"},
		{name: "two schemas by flag", args: []string{"--schema", "sales", "--schema", "analytics"}, sql: "SELECT * FROM analytics.apps", wantOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(t, tt.sql, append([]string{"validate-sql"}, tt.args...)...)
			var v verdict
			decodeOne(t, got.stdout, &v)
			assert.Equal(t, tt.wantOK, v.OK, "ok; reason %q", v.Reason)
			assert.Equal(t, tt.wantClass, v.Class, "class")
			var raw map[string]json.RawMessage
			require.NoError(t, json.Unmarshal([]byte(got.stdout), &raw))
			assert.Len(t, raw, 3, "exactly ok, class and reason")
			if tt.wantOK {
				assert.NoError(t, got.err, "exit 0 when accepted")
				assert.Empty(t, v.Reason)
			} else {
				assert.True(t, errors.Is(got.err, errRejected), "exit 1 when rejected, got %v", got.err)
				assert.NotEmpty(t, v.Reason, "a reason a person can read")
			}
		})
	}
}

func TestCLIValidateSQLUsage(t *testing.T) {
	for _, args := range [][]string{{"validate-sql", "SELECT 1"}, {"validate-sql", "--schema"}, {"validate-sql", "--schema", ""}, {"validate-sql", "--bogus"}} {
		got := runCLI(t, "SELECT 1", args...)
		assert.True(t, errors.Is(got.err, errUsage), "%q: exit 2, got %v", strings.Join(args, " "), got.err)
		assert.Empty(t, got.stdout, "%q: no verdict on a usage error", strings.Join(args, " "))
	}
}

func TestCLIValidateSQLWithoutDatabase(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
	got := runCLI(t, "SELECT count(*) FROM apps", "validate-sql")
	require.NoError(t, got.err, "accepted without the table list")
	assert.Contains(t, got.stderr, "checking without the list of tables", "warns")
	var v verdict
	decodeOne(t, got.stdout, &v)
	assert.True(t, v.OK)
}

// docs/security.md: validate-sql exits 2 when it could not check the SQL,
// never 1, which says the SQL was rejected: a setting to fix is named on
// stderr and no verdict is printed.
func TestCLIValidateSQLSettingToFix(t *testing.T) {
	tests := []struct{ name, key, value, want string }{
		{name: "MAX_TURNS", key: "MAX_TURNS", value: "0", want: "MAX_TURNS must be a number of turns above 0"},
		{name: "LLM_TIMEOUT", key: "LLM_TIMEOUT", value: "0", want: "LLM_TIMEOUT must be a duration above 0"},
		{name: "does not parse", key: "MAX_ROWS", value: "abc", want: "MAX_ROWS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(tt.key, tt.value)
			got := runCLI(t, "SELECT 1", "validate-sql")
			assert.ErrorIs(t, got.err, errNotChecked, "exit 2")
			assert.NotErrorIs(t, got.err, errRejected, "not exit 1")
			assert.ErrorContains(t, got.err, "validate-sql could not check the SQL: ")
			assert.ErrorContains(t, got.err, tt.want)
			assert.Empty(t, got.stdout, "no verdict")
		})
	}
}
