package mcpserver

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/store"
)

var queryIDPattern = regexp.MustCompile(`^[0-9a-f]{8}$`)

// Every tool is listed with a description and a JSON schema of its
// arguments.
func TestToolsListed(t *testing.T) {
	t.Parallel()
	cs := connect(t, newTestBot(t, ""), Config{}, DefaultUser)
	res, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		assert.NotEmpty(t, tool.Description, tool.Name)
		assert.NotNil(t, tool.InputSchema, tool.Name)
		if tool.Name != "export_csv" { // a CSV resource, not structured
			assert.NotNil(t, tool.OutputSchema, tool.Name)
		}
	}
	assert.ElementsMatch(t, []string{"ask", "get_context", "run_query", "list_tables", "describe_table", "search_values",
		"list_verified_queries", "export_csv"}, names)
}

// ask runs the whole workflow: the answer, its rows, its query and
// assumptions, a query id, the verified badge, in a thread of the caller's
// own that the query log records.
func TestAsk(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	cs := connect(t, b, Config{}, DefaultUser)
	res, a := askAnswer(t, cs, "ask", map[string]any{"question": q2018})
	require.False(t, res.IsError, text(res))
	assert.Equal(t, "answer", a.Kind)
	assert.Regexp(t, `^8,?160 games were released on Steam in 2018\.$`, a.Text)
	assert.Equal(t, sql2018, a.Query)
	assert.Equal(t, "SQL", a.Language)
	assert.Equal(t, []string{"games"}, a.Columns)
	require.Len(t, a.Rows, 1)
	assert.Equal(t, games2018, fmt.Sprint(a.Rows[0][0]))
	assert.Equal(t, 1, a.RowCount)
	assert.False(t, a.Truncated)
	assert.NotEmpty(t, a.Assumptions)
	assert.Regexp(t, queryIDPattern, a.QueryID)
	assert.True(t, strings.HasPrefix(a.ThreadID, "mcp-"), a.ThreadID)
	assert.Empty(t, a.VerifiedBy, "no verified example has this query")

	logs, err := b.DB().QueryLogs(t.Context(), store.QueryLogFilter{ThreadID: a.ThreadID})
	require.NoError(t, err)
	require.Len(t, logs, 1)
	assert.Equal(t, DefaultUser, logs[0].UserID)
	assert.Equal(t, Channel, logs[0].ChannelID)
	assert.Equal(t, a.QueryID, logs[0].QueryID)
	assert.Empty(t, logs[0].ErrorKind)

	// Each call is a conversation of its own; this one's query is the
	// examples file's, verified.
	_, free := askAnswer(t, cs, "ask", map[string]any{"question": "How many games are free?"})
	assert.NotEqual(t, a.ThreadID, free.ThreadID)
	assert.Equal(t, sqlFree, free.Query)
	assert.Equal(t, "file", free.VerifiedBy, "the demo's examples file verified this query")
}

// A question the demo does not know is answered, not failed: the reply
// says what it can answer.
func TestAskOffScript(t *testing.T) {
	t.Parallel()
	cs := connect(t, newTestBot(t, ""), Config{}, DefaultUser)
	res, a := askAnswer(t, cs, "ask", map[string]any{"question": "tell me a joke"})
	assert.False(t, res.IsError, text(res))
	assert.Equal(t, "notice", a.Kind)
	assert.NotEmpty(t, a.Text)
	assert.Empty(t, a.Rows)
}

// A question the data reads several ways is asked back (docs/mcp.md):
// kind clarify, no query run, and choices that are questions to ask
// instead; asking one answers it.
func TestAskClarify(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	_, err := b.RefreshValueIndex(t.Context())
	require.NoError(t, err, "the value lookup finds the three spellings")
	cs := connect(t, b, Config{}, DefaultUser)
	res, a := askAnswer(t, cs, "ask", map[string]any{"question": demo.AskBackQuestion})
	require.False(t, res.IsError, text(res))
	assert.Equal(t, "clarify", a.Kind)
	assert.Equal(t, "Which Bethesda do you mean? The data spells the publisher three ways.", a.Text)
	assert.Equal(t, []string{
		demo.AskBackQuestion + " (Bethesda Softworks)",
		demo.AskBackQuestion + " (Bethesda-Softworks)",
		demo.AskBackQuestion + " (Bethesda-Soft)",
		demo.AskBackQuestion + " (All three)",
	}, a.Choices)
	assert.Empty(t, a.Query, "no query ran")
	assert.Empty(t, a.Rows)

	res, all := askAnswer(t, cs, "ask", map[string]any{"question": a.Choices[3]})
	require.False(t, res.IsError, text(res))
	assert.Equal(t, "answer", all.Kind, all.Text)
	assert.Contains(t, all.Query, "IN ('Bethesda Softworks', 'Bethesda-Softworks', 'Bethesda-Soft')")
	assert.Empty(t, all.Choices, "an answer has no choices")
}

// run_query runs the client's query through the guard, and export_csv
// returns its whole result as a text/csv resource.
func TestRunQueryAndExport(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	cs := connect(t, b, Config{}, DefaultUser)
	res, a := askAnswer(t, cs, "run_query", map[string]any{"query": sql2018})
	require.False(t, res.IsError, text(res))
	assert.Equal(t, []string{"games"}, a.Columns)
	require.Len(t, a.Rows, 1)
	assert.Equal(t, games2018, fmt.Sprint(a.Rows[0][0]))
	assert.Equal(t, sql2018, a.Query)
	assert.Empty(t, a.VerifiedBy)
	require.Regexp(t, queryIDPattern, a.QueryID)
	logs, err := b.DB().QueryLogs(t.Context(), store.QueryLogFilter{ThreadID: a.ThreadID})
	require.NoError(t, err)
	require.Len(t, logs, 1)
	assert.Equal(t, []string{"route_intent", "validate_query", "execute_query", "format_answer", "save_turn"}, logs[0].Path) // no generate_query, no interpret: no model
	assert.Equal(t, a.QueryID, logs[0].QueryID)

	ex := call(t, cs, "export_csv", map[string]any{"thread_id": a.ThreadID, "query_id": a.QueryID})
	require.False(t, ex.IsError, text(ex))
	var csv *mcp.ResourceContents
	for _, c := range ex.Content {
		if r, ok := c.(*mcp.EmbeddedResource); ok {
			csv = r.Resource
		}
	}
	require.NotNil(t, csv, "an embedded resource")
	assert.Equal(t, "text/csv", csv.MIMEType)
	assert.Equal(t, "games\n8160\n", csv.Text)
	assert.Contains(t, csv.URI, a.ThreadID)
	// The export's query-log row is the Export button's (docs/mcp.md).
	logs, err = b.DB().QueryLogs(t.Context(), store.QueryLogFilter{ThreadID: a.ThreadID})
	require.NoError(t, err)
	assert.True(t, slices.ContainsFunc(logs, func(l store.QueryLog) bool {
		return l.Question == "[button] export_csv "+a.QueryID && l.Intent == "export_csv"
	}), "a row [button] export_csv %s among %+v", a.QueryID, logs)

	// Another identity may not export it: the thread is the asker's.
	other := connect(t, b, Config{}, "someone-else")
	ex = call(t, other, "export_csv", map[string]any{"thread_id": a.ThreadID, "query_id": a.QueryID})
	assert.True(t, ex.IsError)
	assert.Contains(t, text(ex), "no thread")
}

// A query that writes, changes the schema or does not run is refused as a
// tool error that says why, as the generator is told; nothing changes.
func TestRunQueryRefused(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	cs := connect(t, b, Config{}, DefaultUser)
	for _, c := range []struct {
		name, query, kind, reason string
	}{
		{"drop", "DROP TABLE analytics.apps", "unsafe_query", "SELECT"},
		{"delete", "DELETE FROM analytics.apps", "unsafe_query", "SELECT"},
		{"update in a CTE", "WITH x AS (UPDATE analytics.apps SET name = 'x' RETURNING 1) SELECT * FROM x", "unsafe_query", ""},
		{"two statements", "SELECT 1; DROP TABLE analytics.apps", "unsafe_query", ""},
		{"unknown column", "SELECT no_such_column FROM analytics.apps", "invalid_query", "no_such_column"},
		{"syntax", "SELEC count(*) FROM analytics.apps", "invalid_query", ""},
		{"the bot's own schema", "SELECT * FROM analyticsbot.query_logs", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, a := askAnswer(t, cs, "run_query", map[string]any{"query": c.query})
			require.True(t, res.IsError, "refused: %+v", a)
			t.Log(text(res))
			if c.kind != "" {
				assert.Equal(t, c.kind, a.ErrorKind)
			} else {
				assert.NotEmpty(t, a.ErrorKind)
			}
			assert.NotEmpty(t, a.Reason, "says why")
			assert.Contains(t, text(res), c.reason)
			assert.Empty(t, a.Rows)
		})
	}
	_, a := askAnswer(t, cs, "run_query", map[string]any{"query": "SELECT count(*) AS n FROM analytics.apps"})
	require.Len(t, a.Rows, 1, "the table is still there")
}

// Rows come back within MCP_MAX_ROWS and MCP_MAX_BYTES, counted.
func TestRowLimits(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	const q = "SELECT app_id, name FROM analytics.apps ORDER BY app_id LIMIT 50"
	_, a := askAnswer(t, connect(t, b, Config{MaxRows: 7}, DefaultUser), "run_query", map[string]any{"query": q})
	assert.Len(t, a.Rows, 7)
	assert.Equal(t, 50, a.RowCount)
	assert.True(t, a.Truncated)

	res, a := askAnswer(t, connect(t, b, Config{MaxBytes: 1600}, DefaultUser), "run_query", map[string]any{"query": q})
	assert.NotEmpty(t, a.Rows)
	assert.Less(t, len(a.Rows), 50)
	assert.True(t, a.Truncated)
	// The whole result, as the client gets it, stays within MCP_MAX_BYTES
	// (docs/mcp.md).
	assert.LessOrEqual(t, sent(t, res), 1600)

	res = call(t, connect(t, b, Config{MaxBytes: 1600}, DefaultUser), "run_query",
		map[string]any{"query": "SELECT app_id, name FROM analytics.apps ORDER BY app_id LIMIT 500"})
	decode(t, res, &a)
	ex := call(t, connect(t, b, Config{MaxBytes: 1600}, DefaultUser), "export_csv", map[string]any{"thread_id": a.ThreadID, "query_id": a.QueryID})
	require.False(t, ex.IsError, text(ex))
	// The file stopped at MCP_MAX_BYTES while it was written, not written
	// whole to be refused, and then at the last row that fits as sent.
	assert.LessOrEqual(t, sent(t, ex), 1600)
	assert.Contains(t, text(ex), "MCP_MAX_BYTES=1600", "an export cut to fit says so")
}

// At the boundary: MCP_MAX_BYTES is exactly the size of the result with
// the first 4 of 8 rows without "truncated": true. With the flag they no
// longer fit, so 2 rows come back, flagged, and the result the client gets
// stays within the bound (docs/mcp.md).
func TestRowsFitWithTheirTruncatedFlag(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	const q = "SELECT app_id, name FROM analytics.apps ORDER BY app_id LIMIT 8"
	_, whole := askAnswer(t, connect(t, b, Config{}, DefaultUser), "run_query", map[string]any{"query": q})
	require.Len(t, whole.Rows, 8)
	require.False(t, whole.Truncated)
	four := whole
	four.Rows = whole.Rows[:4]
	structured, err := json.Marshal(four)
	require.NoError(t, err)
	// As the client receives it: the JSON as structured content and as
	// text, for clients that read only the text, and the SDK's annotations.
	bound, err := sentSize[any](&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(structured)}}},
		json.RawMessage(structured), true)
	require.NoError(t, err)

	res, a := askAnswer(t, connect(t, b, Config{MaxBytes: bound}, DefaultUser), "run_query", map[string]any{"query": q})
	assert.LessOrEqual(t, sent(t, res), bound, "the result within MCP_MAX_BYTES")
	assert.Equal(t, whole.Rows[:2], a.Rows, "rows that fit with the flag")
	assert.True(t, a.Truncated)
	assert.Equal(t, 8, a.RowCount)
}

// MCP_MAX_BYTES bounds every tool's whole result as the client receives
// it, content and structured content together, and the result says what it
// left out: rows by row_count and truncated, the catalog tools' lists by
// truncated and left_out (docs/mcp.md). A client that reads only the text
// gets the same JSON.
func TestResultsWithinMaxBytes(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	_, err := b.RefreshValueIndex(t.Context())
	require.NoError(t, err)
	whole := connect(t, b, Config{}, DefaultUser)
	for _, tt := range []struct {
		tool string
		args map[string]any
	}{
		{"run_query", map[string]any{"query": "SELECT app_id, name FROM analytics.apps ORDER BY app_id LIMIT 100"}},
		{"list_tables", map[string]any{}},
		{"describe_table", map[string]any{"table": "analytics.apps"}},
		{"search_values", map[string]any{"text": "Linux Windows Mac indie action strategy"}},
		{"list_verified_queries", map[string]any{"limit": 50}},
		{"get_context", map[string]any{"question": q2018}},
	} {
		t.Run(tt.tool, func(t *testing.T) {
			full := call(t, whole, tt.tool, tt.args)
			require.False(t, full.IsError, text(full))
			bound := sent(t, full) * 3 / 5
			res := call(t, connect(t, b, Config{MaxBytes: bound}, DefaultUser), tt.tool, tt.args)
			require.False(t, res.IsError, text(res))
			assert.LessOrEqual(t, sent(t, res), bound, "the result as the client receives it")
			var cut struct {
				Truncated bool           `json:"truncated"`
				LeftOut   map[string]int `json:"left_out"`
				RowCount  int            `json:"row_count"`
				Rows      [][]any        `json:"rows"`
			}
			decode(t, res, &cut)
			assert.True(t, cut.Truncated, "the result says it is cut")
			if tt.tool == "run_query" {
				assert.Equal(t, 100, cut.RowCount)
				assert.NotEmpty(t, cut.Rows)
			} else {
				assert.NotEmpty(t, cut.LeftOut, "the result says what it left out")
			}
			structured, err := json.Marshal(res.StructuredContent)
			require.NoError(t, err)
			assert.JSONEq(t, string(structured), text(res), "the text is the structured result, once")
		})
	}

	// Too small a bound for a result with nothing left to cut is a tool
	// error that names it.
	res := call(t, connect(t, b, Config{MaxBytes: 60}, DefaultUser), "list_tables", map[string]any{})
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), "MCP_MAX_BYTES=60")

	// An export's CSV travels escaped in JSON: one that fits the bound as a
	// file but not as sent is cut again at its last whole row that fits,
	// and says so; one whose header alone cannot fit is refused.
	_, a := askAnswer(t, whole, "run_query", map[string]any{"query": `SELECT app_id, name || E' "of"\n' || app_id AS name FROM analytics.apps ORDER BY app_id LIMIT 40`})
	args := map[string]any{"thread_id": a.ThreadID, "query_id": a.QueryID}
	ex := call(t, whole, "export_csv", args)
	require.False(t, ex.IsError, text(ex))
	csvOf := func(res *mcp.CallToolResult) [][]string {
		t.Helper()
		for _, c := range res.Content {
			if r, ok := c.(*mcp.EmbeddedResource); ok {
				records, err := csv.NewReader(strings.NewReader(r.Resource.Text)).ReadAll()
				require.NoError(t, err, "the CSV ends with a whole row")
				return records
			}
		}
		t.Fatal("no CSV in the result")
		return nil
	}
	whole40 := csvOf(ex)
	require.Len(t, whole40, 41, "the header and 40 rows")
	var file string
	for _, c := range ex.Content {
		if r, ok := c.(*mcp.EmbeddedResource); ok {
			file = r.Resource.Text
		}
	}
	res = call(t, connect(t, b, Config{MaxBytes: len(file)}, DefaultUser), "export_csv", args)
	require.False(t, res.IsError, text(res))
	assert.LessOrEqual(t, sent(t, res), len(file), "the result as sent")
	cut := csvOf(res)
	assert.Less(t, len(cut), len(whole40), "rows were left out")
	assert.Greater(t, len(cut), 1, "rows were kept")
	assert.Equal(t, whole40[:len(cut)], cut, "the first rows, whole")
	assert.Contains(t, text(res), fmt.Sprintf("this file holds only its first %d of those rows", len(cut)-1))
	res = call(t, connect(t, b, Config{MaxBytes: 400}, DefaultUser), "export_csv", args)
	assert.True(t, res.IsError, "not even the header fits as sent")
	assert.Contains(t, text(res), "MCP_MAX_BYTES=400")
	bound := sent(t, ex)
	res = call(t, connect(t, b, Config{MaxBytes: bound}, DefaultUser), "export_csv", args)
	require.False(t, res.IsError, text(res))
	assert.LessOrEqual(t, sent(t, res), bound)
}

// sent is the size of res as the client receives it.
func sent(t testing.TB, res *mcp.CallToolResult) int {
	t.Helper()
	b, err := json.Marshal(res)
	require.NoError(t, err)
	return len(b)
}

// The catalog tools: the tables, a table's columns, stored values, the
// verified queries and what the generator would be given.
func TestCatalogTools(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	_, err := b.RefreshValueIndex(t.Context())
	require.NoError(t, err)
	cs := connect(t, b, Config{}, DefaultUser)

	var tables TableList
	decode(t, call(t, cs, "list_tables", map[string]any{}), &tables)
	var names []string
	for _, tb := range tables.Tables {
		names = append(names, tb.Name)
	}
	assert.Contains(t, names, "analytics.apps")
	assert.Contains(t, names, "analytics.developers")

	var apps TableDescription
	decode(t, call(t, cs, "describe_table", map[string]any{"table": "analytics.apps"}), &apps)
	assert.Equal(t, "analytics.apps", apps.Name)
	assert.True(t, slices.ContainsFunc(apps.Columns, func(c ColumnInfo) bool { return c.Name == "release_year" && c.Kind == "number" }), "%+v", apps.Columns)
	// Its foreign keys too (docs/mcp.md).
	var links TableDescription
	decode(t, call(t, cs, "describe_table", map[string]any{"table": "analytics.app_publishers"}), &links)
	assert.Contains(t, links.ForeignKeys, ForeignKey{Columns: []string{"publisher_id"}, References: "analytics.publishers", RefColumns: []string{"publisher_id"}})
	assert.Contains(t, links.ForeignKeys, ForeignKey{Columns: []string{"app_id"}, References: "analytics.apps", RefColumns: []string{"app_id"}})
	res := call(t, cs, "describe_table", map[string]any{"table": "analytics.nope"})
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), "no such table")

	var values ValueList
	decode(t, call(t, cs, "search_values", map[string]any{"text": "Linux"}), &values)
	assert.Contains(t, values.Values, Value{Column: "analytics.platforms.name", Value: "linux", Phrase: "Linux", Similarity: 1, Why: "exact"})

	var verified VerifiedList
	decode(t, call(t, cs, "list_verified_queries", map[string]any{"limit": 50}), &verified)
	require.NotEmpty(t, verified.Queries)
	assert.True(t, slices.ContainsFunc(verified.Queries, func(q VerifiedQuery) bool { return q.Query == sqlFree && q.VerifiedBy == "file" }),
		"%+v", verified.Queries)

	res = call(t, cs, "get_context", map[string]any{"question": q2018})
	require.False(t, res.IsError, text(res))
	var c struct {
		Question string `json:"question"`
		Tables   []struct {
			Name string `json:"name"`
		} `json:"tables"`
	}
	decode(t, res, &c)
	assert.Equal(t, q2018, c.Question)
	assert.True(t, slices.ContainsFunc(c.Tables, func(x struct {
		Name string `json:"name"`
	}) bool {
		return x.Name == "analytics.apps"
	}), "%+v", c.Tables)

	logs, err := b.DB().QueryLogs(context.WithoutCancel(t.Context()), store.QueryLogFilter{UserID: DefaultUser})
	require.NoError(t, err)
	intents := map[string]bool{}
	for _, l := range logs {
		intents[l.Intent] = true
	}
	for _, want := range []string{"list_tables", "describe_table", "search_values", "list_verified_queries", "get_context"} {
		assert.True(t, intents[want], "the query log records %s", want)
	}
}

// Bad input gets a protocol error or a tool error, never a crash: the
// server answers the next call.
func TestBadInput(t *testing.T) {
	t.Parallel()
	cs := connect(t, newTestBot(t, ""), Config{}, DefaultUser)
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "drop_everything", Arguments: map[string]any{}})
	require.Error(t, err, "an unknown tool is a protocol error")
	assert.Contains(t, err.Error(), "drop_everything")

	for _, c := range []struct {
		name, tool string
		args       any
	}{
		{"a number for a question", "ask", map[string]any{"question": 42}},
		{"no question", "ask", map[string]any{}},
		{"an empty question", "ask", map[string]any{"question": ""}},
		{"a huge question", "ask", map[string]any{"question": strings.Repeat("how many games ", 1000)}},
		{"a huge query", "run_query", map[string]any{"query": "SELECT 1 " + strings.Repeat("-- x\n", 20000)}},
		{"a list for a table", "describe_table", map[string]any{"table": []string{"analytics.apps"}}},
		{"a negative limit", "list_verified_queries", map[string]any{"limit": -1}},
		{"a limit too high", "list_verified_queries", map[string]any{"limit": 1e9}},
		{"a string for a limit", "list_verified_queries", map[string]any{"limit": "ten"}},
		{"a query id that is not one", "export_csv", map[string]any{"thread_id": "mcp-00", "query_id": "'; DROP TABLE x"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := call(t, cs, c.tool, c.args)
			assert.True(t, res.IsError, "%s: %s", c.name, text(res))
			assert.NotEmpty(t, text(res))
		})
	}
	_, a := askAnswer(t, cs, "ask", map[string]any{"question": q2018})
	assert.Equal(t, "answer", a.Kind, "still answering")
	// One past docs/mcp.md's bounds, the argument is refused before any
	// tool runs, in plain words (arguments.go).
	for _, c := range []struct {
		name, tool string
		args       any
		want       string
	}{
		{"a question of 4,001 characters", "ask", map[string]any{"question": atLength(q2018, 4000+1)}, "has 4001 characters; it may have at most 4000"},
		{"a query of 64 KiB and a byte", "run_query", map[string]any{"query": atLength(sql2018, 64<<10+1)}, "has 65537 characters; it may have at most 65536"},
		{"a search of 501 characters", "search_values", map[string]any{"text": atLength("Linux", 500+1)}, "has 501 characters; it may have at most 500"},
	} {
		res := call(t, cs, c.tool, c.args)
		assert.True(t, res.IsError, c.name)
		assert.Contains(t, text(res), c.want, c.name)
	}
	// At the bounds the arguments reach the tools: the demo's model does
	// not know the padded question, and the guard refuses a SQL query past
	// its 20,000 bytes, each with a sentence of its own.
	for _, c := range []struct {
		name, tool string
		args       any
		want       string
	}{
		{"a question of 4,000 characters", "ask", map[string]any{"question": atLength(q2018, 4000)}, "This is the offline demo"},
		{"a query of 64 KiB", "run_query", map[string]any{"query": atLength(sql2018, 64<<10)}, "too_long: the statement is 65536 bytes long; the limit is 20000"},
		{"a search of 500 characters", "search_values", map[string]any{"text": atLength("Linux", 500)}, ""},
	} {
		res := call(t, cs, c.tool, c.args)
		assert.NotContains(t, text(res), "maxLength", c.name)
		assert.Contains(t, text(res), c.want, c.name)
		assert.Equal(t, c.want != "", res.IsError, "%s: %s", c.name, text(res))
	}

	// The longest query_id the tool's schema lets through (a longer one
	// is refused before any tool runs: TestArgumentsRefusedPlainly).
	res := call(t, cs, "export_csv", map[string]any{"thread_id": a.ThreadID, "query_id": strings.Repeat("a", 200)})
	assert.True(t, res.IsError, "a 200-character query id: %s", text(res))
	assert.Equal(t, `"`+strings.Repeat("a", 39)+`…" is not a query id (8 hex characters): give the query_id of an answer you were given`, text(res),
		"the error quotes the start of the value, not all of it")
}

// atLength is s padded with spaces to n characters.
func atLength(s string, n int) string { return s + strings.Repeat(" ", n-len(s)) }

// A server without an identity has no tools to run.
func TestNoIdentity(t *testing.T) {
	t.Parallel()
	cs := connect(t, newTestBot(t, ""), Config{}, "")
	res := call(t, cs, "list_tables", map[string]any{})
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), "no identity")
}

// Without a value index, search_values says so.
func TestSearchValuesOff(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "", func(c *bot.Config) { c.ValueIndexMaxDistinct = 0 })
	res := call(t, connect(t, b, Config{}, DefaultUser), "search_values", map[string]any{"text": "Linux"})
	assert.True(t, res.IsError)
	assert.Equal(t, "the value lookup is off (VALUE_INDEX_MAX_DISTINCT=0)", text(res))
}
