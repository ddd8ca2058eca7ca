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
	t.Run("a field that may be read", func(t *testing.T) {
		t.Parallel()
		cs := connect(t, b, Config{}, "UANA")
		_, a := askAnswer(t, cs, "run_query", map[string]any{"query": "SELECT (c).name FROM hr.employees c ORDER BY 1"})
		assert.Empty(t, a.ErrorKind, a.Text)
		assert.Equal(t, [][]any{{"Ann Archer"}, {"Ben Brook"}, {"Cat Cole"}, {"Dan Dale"}}, a.Rows)
	})
}
