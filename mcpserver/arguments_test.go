package mcpserver

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An argument the tool's schema does not allow (too long, empty, of the
// wrong type, unknown, out of range) is refused as a tool error in the
// server's own plain words, over the SDK's client and transport, before
// the tool runs: the error quotes at most 40 characters of what was sent,
// never the whole of a long value, and names no SDK internals.
func TestArgumentsRefusedPlainly(t *testing.T) {
	t.Parallel()
	cs := connect(t, newTestBot(t, ""), Config{}, DefaultUser)
	huge := strings.Repeat("a", 10<<10)
	clipped := `"` + strings.Repeat("a", 39) + `…"`
	tests := []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{name: "a long query id", tool: "export_csv", args: map[string]any{"thread_id": "mcp-00", "query_id": huge},
			want: "query_id " + clipped + " has 10240 characters; it may have at most 200"},
		{name: "a long thread id", tool: "export_csv", args: map[string]any{"thread_id": huge, "query_id": "0badc0de"},
			want: "thread_id " + clipped + " has 10240 characters; it may have at most 200"},
		{name: "a long question", tool: "ask", args: map[string]any{"question": huge},
			want: "question " + clipped + " has 10240 characters; it may have at most 4000"},
		{name: "a long table name cut between characters", tool: "describe_table", args: map[string]any{"table": strings.Repeat("é", 300)},
			want: `table "` + strings.Repeat("é", 39) + `…" has 300 characters; it may have at most 200`},
		{name: "an empty question", tool: "ask", args: map[string]any{"question": ""}, want: "question is empty"},
		{name: "no question", tool: "ask", args: map[string]any{}, want: "question is missing: the question about the data, in plain words, whole: each call starts a new conversation"},
		{name: "a list for a query id", tool: "export_csv", args: map[string]any{"thread_id": "mcp-00", "query_id": []string{huge}},
			want: "query_id must be a string, not an array"},
		{name: "a number for a question", tool: "ask", args: map[string]any{"question": 42}, want: "question must be a string, not a number"},
		{name: "a string for a limit", tool: "list_verified_queries", args: map[string]any{"limit": huge},
			want: "limit must be a whole number, not a string"},
		{name: "a limit too high", tool: "list_verified_queries", args: map[string]any{"limit": 1e9},
			want: "limit must be from 0 to 100, not 1e+09"},
		{name: "a fraction for a limit", tool: "list_verified_queries", args: map[string]any{"limit": 2.5},
			want: "limit must be a whole number, not 2.5"},
		{name: "an unknown argument", tool: "list_tables", args: map[string]any{huge: 1},
			want: "this tool takes no argument " + clipped},
		{name: "an unknown argument beside known ones", tool: "search_values", args: map[string]any{"text": "Linux", "limt": 5},
			want: `this tool takes no argument "limt": its arguments are text`},
	}
	t.Run("the schema still tells the limit", func(t *testing.T) {
		t.Parallel()
		tools, err := cs.ListTools(t.Context(), nil)
		require.NoError(t, err)
		i := slices.IndexFunc(tools.Tools, func(tool *mcp.Tool) bool { return tool.Name == "export_csv" })
		require.GreaterOrEqual(t, i, 0, "export_csv listed")
		b, err := json.Marshal(tools.Tools[i].InputSchema)
		require.NoError(t, err)
		var sc jsonschema.Schema
		require.NoError(t, json.Unmarshal(b, &sc))
		require.Contains(t, sc.Properties, "query_id")
		assert.Equal(t, jsonschema.Ptr(200), sc.Properties["query_id"].MaxLength, "query_id's maxLength")
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := call(t, cs, tt.tool, tt.args)
			require.True(t, res.IsError, "%s: %s", tt.name, text(res))
			assert.Equal(t, tt.want, text(res))
			assert.Less(t, len(text(res)), 300, "the error's length")
		})
	}
}
