package mcpserver

import (
	"fmt"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/cube/cubetest"
)

// cubeYear is the Cube query of "How many games were released in 2018?".
const cubeYear = `{"measures": ["Apps.count"], "filters": [{"member": "Apps.release_year", "operator": "equals", "values": ["2018"]}]}`

// The tools over a Cube semantic layer (a real Cube server on the
// package's database): ask and run_query answer in Cube queries, the
// catalog is the cubes, and an unknown member is refused with Cube's
// reason.
func TestCube(t *testing.T) {
	t.Parallel()
	testDB.Need(t)
	srv := cubetest.Start(t, testDB.URL)
	script := `
rules:
  - step: classify
    reply: '{"intent": "analytics_query", "confidence": 0.9}'
  - step: generate_cube
    match: '(?im)^Question: how many games were released in 2018'
    reply: '{"query": ` + cubeYear + `, "assumptions": ["The demo data ends in May 2019."], "reasoning": "Asks Cube."}'
  - step: interpret
    reply: 'Here is the count.'
`
	b := newTestBot(t, script, func(c *bot.Config) {
		c.Backend, c.Cube.APIURL, c.Cube.APISecret = "cube", srv.URL, srv.Secret
	})
	cs := connect(t, b, Config{}, DefaultUser)

	res, a := askAnswer(t, cs, "ask", map[string]any{"question": q2018})
	require.False(t, res.IsError, text(res))
	assert.Equal(t, "Cube query", a.Language)
	assert.Contains(t, a.Query, `"Apps.release_year"`, "the Cube query it ran")
	require.Len(t, a.Rows, 1)
	assert.Equal(t, games2018, fmt.Sprint(a.Rows[0][0]))

	res, a = askAnswer(t, cs, "run_query", map[string]any{"query": cubeYear})
	require.False(t, res.IsError, text(res))
	require.Len(t, a.Rows, 1)
	assert.Equal(t, games2018, fmt.Sprint(a.Rows[0][0]))
	ex := call(t, cs, "export_csv", map[string]any{"thread_id": a.ThreadID, "query_id": a.QueryID})
	require.False(t, ex.IsError, text(ex))
	var csv string
	for _, c := range ex.Content {
		if r, ok := c.(*mcp.EmbeddedResource); ok {
			csv = r.Resource.Text
		}
	}
	assert.Equal(t, "count\n"+games2018+"\n", csv)

	res, a = askAnswer(t, cs, "run_query", map[string]any{"query": `{"measures": ["Apps.no_such_measure"]}`})
	assert.True(t, res.IsError)
	assert.Equal(t, "invalid_query", a.ErrorKind)
	assert.Contains(t, a.Reason, "no_such_measure")

	var tables TableList
	decode(t, call(t, cs, "list_tables", map[string]any{}), &tables)
	assert.True(t, slices.ContainsFunc(tables.Tables, func(tb TableInfo) bool { return tb.Name == "Apps" }), "%+v", tables.Tables)
	var apps TableDescription
	decode(t, call(t, cs, "describe_table", map[string]any{"table": "Apps"}), &apps)
	assert.True(t, slices.ContainsFunc(apps.Columns, func(c ColumnInfo) bool { return c.Name == "Apps.count" && c.Role == "measure" }),
		"%+v", apps.Columns)
}
