package mcpserver

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
)

// A query an AI client writes itself cannot reach a masked or denied
// column under another name: renamed by a column alias list, through a
// join alias's whole row or a field of it, or by a function called on a
// row in attribute notation. The matrix's analysts mask the addresses,
// everyone may not read them nor the prices and masks the titles.
func TestColumnsUnderOtherNamesThroughMCP(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "", func(c *bot.Config) {
		c.AccessFile, c.Postgres.Schemas = accessFile(t), bottest.AccessSchemas
	})
	const employees = "(hr.employees e JOIN hr.v_people p USING (employee_id)) AS j"
	tests := []struct {
		user, sql string
	}{
		{"UANA", "SELECT e FROM hr.employees AS c(i, n, e)"},
		{"UANA", "SELECT (j).email FROM " + employees},
		{"UANA", "SELECT to_json(j) AS r FROM " + employees},
		{"UANA", "SELECT c.record_out AS r FROM hr.employees c"},
		// Functions the guard does not know by name, told from columns
		// by the table's columns (pgwarehouse fills Policy.Columns).
		{"UANA", "SELECT c.hash_record AS r FROM hr.employees c"},
		{"UANA", "SELECT c.pg_column_size AS r FROM hr.employees c"},
		// A function on a row in field notation, (c).f, is c.f.
		{"UANA", "SELECT (c).to_json AS r FROM hr.employees c"},
		{"UANA", "SELECT ((c)).to_json AS r FROM hr.employees c"},
		{"UANA", "SELECT (c).hash_record AS r FROM hr.employees c"},
		{"UANA", "SELECT (employees).to_json AS r FROM hr.employees"},
		{"UANA", "SELECT (j).row_to_json AS r FROM " + employees},
		{"UZED", "SELECT e FROM hr.employees AS c(i, n, e)"},
		{"UZED", "SELECT (j).email FROM " + employees},
		{"UZED", "SELECT a.n FROM analytics.apps AS a(i, n) ORDER BY 1 LIMIT 3"},
		{"UZED", "SELECT (j).price FROM (analytics.apps a JOIN analytics.app_genres g USING (app_id)) AS j LIMIT 3"},
	}
	for _, tt := range tests {
		t.Run(tt.user+" "+tt.sql, func(t *testing.T) {
			t.Parallel()
			cs := connect(t, b, Config{}, tt.user)
			res, a := askAnswer(t, cs, "run_query", map[string]any{"query": tt.sql})
			assert.True(t, res.IsError, "refused: %s", a.Text)
			assert.NotEmpty(t, a.ErrorKind, a.Text)
			assert.Empty(t, a.Rows)
			assert.NotContains(t, fmt.Sprint(a.Text, a.Rows), "@corp.test", "no address comes back")
		})
	}
	// A function that is not on the allowlist is not called by field
	// notation either: (0.1).pg_sleep is pg_sleep(0.1).
	for _, sql := range []string{"SELECT (0.1).pg_sleep AS r", "SELECT (1).pg_advisory_lock AS r", "SELECT (a.app_id).pg_advisory_lock AS r FROM analytics.apps a"} {
		t.Run("UANA "+sql, func(t *testing.T) {
			t.Parallel()
			cs := connect(t, b, Config{}, "UANA")
			res, a := askAnswer(t, cs, "run_query", map[string]any{"query": sql})
			assert.True(t, res.IsError, "refused: %s", a.Text)
			assert.Equal(t, "unsafe_query", a.ErrorKind, a.Text)
			assert.Empty(t, a.Rows)
		})
	}
	t.Run("another joined table's column through a join alias", func(t *testing.T) {
		t.Parallel()
		cs := connect(t, b, Config{}, "UANA")
		_, a := askAnswer(t, cs, "run_query", map[string]any{"query": "SELECT DISTINCT j.genre_id FROM (analytics.apps a JOIN analytics.app_genres g USING (app_id)) AS j ORDER BY 1 LIMIT 2"})
		assert.Empty(t, a.ErrorKind, a.Text)
		assert.Len(t, a.Rows, 2)
	})
	t.Run("a field that may be read", func(t *testing.T) {
		t.Parallel()
		cs := connect(t, b, Config{}, "UANA")
		_, a := askAnswer(t, cs, "run_query", map[string]any{"query": "SELECT (c).name FROM hr.employees c ORDER BY 1"})
		assert.Empty(t, a.ErrorKind, a.Text)
		assert.Equal(t, [][]any{{"Ann Archer"}, {"Ben Brook"}, {"Cat Cole"}, {"Dan Dale"}}, a.Rows)
	})
}
