package mcpserver

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/store"
)

// accessFile is the matrix's access file with the MCP channel among those
// the bot answers in, everyone else under the everyone policy.
func accessFile(t testing.TB) string {
	t.Helper()
	f := bottest.AccessFile("everyone")
	f = strings.Replace(f, "channels: [CDATA, web]", "channels: [CDATA, web, mcp]", 1)
	require.Contains(t, f, "mcp]", "the matrix's access file lists its channels as expected")
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(f), 0o600))
	return path
}

// The access matrix through MCP: each identity of the matrix (one per
// policy) is answered or refused every case as in Slack and the web chat,
// whether it asks (ask) or writes the query itself (run_query); the
// catalog tools show each only what their policy lets them read; the
// query log records who asked, under which policy and as which role.
func TestAccessMatrixThroughMCP(t *testing.T) {
	t.Parallel()
	path := accessFile(t)
	b := newTestBot(t, bottest.DemoScript(bottest.AccessRules()), func(c *bot.Config) {
		c.AccessFile, c.Postgres.Schemas = path, bottest.AccessSchemas
	})
	_, err := b.RefreshValueIndex(t.Context())
	require.NoError(t, err, "index the stored values for search_values")
	for p, policy := range bottest.AccessPolicies {
		user := bottest.AccessUsers[p]
		t.Run(policy, func(t *testing.T) {
			t.Parallel()
			cs := connect(t, b, Config{}, user)
			for i, c := range bottest.AccessCases {
				want := string(c.Want[p])
				res, a := askAnswer(t, cs, "ask", map[string]any{"question": c.Question(i)})
				assert.Equal(t, want, a.ErrorKind, "ask %s as %s: %s", c.Name, policy, a.Text)
				assert.Equal(t, want != "", res.IsError, "ask %s as %s", c.Name, policy)

				res, a = askAnswer(t, cs, "run_query", map[string]any{"query": c.SQL})
				assert.Equal(t, want, a.ErrorKind, "run_query %s as %s: %s", c.Name, policy, a.Text)
				assert.Equal(t, want != "", res.IsError, "run_query %s as %s", c.Name, policy)
				if want == "" {
					assert.NotEmpty(t, a.Columns, c.Name)
				} else {
					assert.Empty(t, a.Rows, c.Name)
				}
			}

			var tables TableList
			decode(t, call(t, cs, "list_tables", map[string]any{}), &tables)
			var names []string
			for _, tb := range tables.Tables {
				names = append(names, tb.Name)
			}
			assert.Contains(t, names, "analytics.apps")
			assert.Equal(t, policy == "full", slices.Contains(names, "analytics.developers"), "developers listed to %s", policy)
			res := call(t, cs, "describe_table", map[string]any{"table": "analytics.developers"})
			assert.Equal(t, policy != "full", res.IsError, "developers described to %s", policy)
			if policy != "full" {
				missing := call(t, cs, "describe_table", map[string]any{"table": "analytics.no_such_table"})
				require.True(t, missing.IsError)
				assert.Equal(t, text(missing), text(res), "a table outside %s is answered like one that does not exist", policy)
			}
			var apps TableDescription
			decode(t, call(t, cs, "describe_table", map[string]any{"table": "analytics.apps"}), &apps)
			hasPrice := slices.ContainsFunc(apps.Columns, func(c ColumnInfo) bool { return c.Name == "price" })
			assert.Equal(t, policy == "full", hasPrice, "apps.price described to %s", policy)

			// search_values searches only the columns the policy lets the
			// identity read and does not mask (docs/mcp.md): "Valve" is a
			// developer (denied to analysts and everyone) and a publisher
			// (not everyone's); "Dota 2" is a game's name (masked for everyone).
			columnsOf := func(words string) []string {
				var values ValueList
				decode(t, call(t, cs, "search_values", map[string]any{"text": words}), &values)
				var cols []string
				for _, v := range values.Values {
					if !slices.Contains(cols, v.Column) {
						cols = append(cols, v.Column)
					}
				}
				return cols
			}
			valve, dota := columnsOf("Valve"), columnsOf("Dota 2")
			assert.Equal(t, policy == "full", slices.Contains(valve, "analytics.developers.name"), "developers' names searched for %s: %v", policy, valve)
			assert.Equal(t, policy != "everyone", slices.Contains(valve, "analytics.publishers.name"), "publishers' names searched for %s: %v", policy, valve)
			assert.Equal(t, policy != "everyone", slices.Contains(dota, "analytics.apps.name"), "games' names searched for %s: %v", policy, dota)

			// The query log names the role each query ran as.
			_, who := askAnswer(t, cs, "run_query", map[string]any{"query": "SELECT current_user AS who"})
			require.Len(t, who.Rows, 1)
			logs, err := b.DB().QueryLogs(t.Context(), store.QueryLogFilter{ThreadID: who.ThreadID})
			require.NoError(t, err)
			require.Len(t, logs, 1)
			assert.Equal(t, user, logs[0].UserID)
			assert.Equal(t, Channel, logs[0].ChannelID)
			assert.Equal(t, policy, logs[0].Policy)
			assert.Equal(t, fmt.Sprint(who.Rows[0][0]), logs[0].Role, "the query log names the role the query ran as")
			assert.Equal(t, "run_query", logs[0].Intent, "docs/mcp.md: run_query rows have intent run_query")
			assert.Equal(t, "[run_query] SELECT current_user AS who", logs[0].Question)
			assert.Equal(t, []string{"route_intent", "validate_query", "execute_query", "format_answer", "save_turn"}, logs[0].Path,
				"docs/mcp.md: the run_query path")

			// A refused query goes to handle_error instead of being run.
			_, refused := askAnswer(t, cs, "run_query", map[string]any{"query": "DELETE FROM analytics.apps"})
			require.Equal(t, "unsafe_query", refused.ErrorKind, refused.Text)
			logs, err = b.DB().QueryLogs(t.Context(), store.QueryLogFilter{ThreadID: refused.ThreadID})
			require.NoError(t, err)
			require.Len(t, logs, 1)
			assert.Equal(t, "run_query", logs[0].Intent)
			assert.Equal(t, []string{"route_intent", "validate_query", "handle_error", "save_turn"}, logs[0].Path, "a refused run_query's path")
		})
	}
}

// The same matrix with the bot's static guard taken out
// (bottest.StartWithoutGuard): a query an AI client writes itself runs as
// it is, as its policy's role, so the database alone must refuse what the
// policy forbids; each case gets its Alone outcome, and nothing a policy
// forbids comes back as rows.
func TestAccessMatrixThroughMCPDatabaseAlone(t *testing.T) {
	t.Parallel()
	testDB.Need(t)
	cfg := bottest.Config(t, testDB.URL, bottest.DemoScript(bottest.AccessRules()))
	cfg.AccessFile, cfg.Postgres.Schemas = accessFile(t), bottest.AccessSchemas
	b := bottest.StartWithoutGuard(t, cfg, bottest.Discard())
	for p, policy := range bottest.AccessPolicies {
		user := bottest.AccessUsers[p]
		t.Run(policy, func(t *testing.T) {
			t.Parallel()
			cs := connect(t, b, Config{}, user)
			for _, c := range bottest.AccessCases {
				want := string(c.Alone[p])
				res, a := askAnswer(t, cs, "run_query", map[string]any{"query": c.SQL})
				assert.Equal(t, want, a.ErrorKind, "run_query %s as %s: %s", c.Name, policy, a.Text)
				assert.Equal(t, want != "", res.IsError, "run_query %s as %s", c.Name, policy)
				if want != "" {
					assert.Empty(t, a.Rows, c.Name)
				}
			}
			// docs/security.md: row-level security reads who asks from the
			// signed identity: the caller's identity and the mcp channel.
			_, who := askAnswer(t, cs, "run_query", map[string]any{
				"query": "SELECT analyticsbot_identity.user_id() AS u, analyticsbot_identity.channel_id() AS c"})
			require.Empty(t, who.ErrorKind, who.Text)
			assert.Equal(t, [][]any{{user, Channel}}, who.Rows)
		})
	}
}

// An identity the access file admits to no policy is refused every tool,
// with the file's reason, and the query log records the refusal.
func TestNotAdmitted(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
access:
  channels: [mcp]
policies:
  - name: apps
    users: [UAPPS]
    tables: ["analytics.apps"]
default: none
`), 0o600))
	b := newTestBot(t, "", func(c *bot.Config) { c.AccessFile = path })
	cs := connect(t, b, Config{}, "UNOBODY")
	res, a := askAnswer(t, cs, "ask", map[string]any{"question": q2018})
	assert.True(t, res.IsError)
	assert.Equal(t, "not_admitted", a.ErrorKind)
	assert.Contains(t, a.Text, "You don't have access to any data here")
	for _, tool := range []struct {
		name string
		args map[string]any
	}{
		{"run_query", map[string]any{"query": sql2018}},
		{"list_tables", map[string]any{}},
		{"describe_table", map[string]any{"table": "analytics.apps"}},
		{"search_values", map[string]any{"text": "Linux"}},
		{"list_verified_queries", map[string]any{}},
		{"get_context", map[string]any{"question": q2018}},
	} {
		res := call(t, cs, tool.name, tool.args)
		assert.True(t, res.IsError, tool.name)
		assert.Contains(t, text(res), "You don't have access to any data here", tool.name)
	}
	logs, err := b.DB().QueryLogs(t.Context(), store.QueryLogFilter{UserID: "UNOBODY"})
	require.NoError(t, err)
	assert.Len(t, logs, 7, "one row per call")
	for _, l := range logs {
		assert.Equal(t, "not_admitted", l.ErrorKind, l.Intent)
	}

	// The policy's own user reads its one table only.
	cs = connect(t, b, Config{}, "UAPPS")
	var tables TableList
	decode(t, call(t, cs, "list_tables", map[string]any{}), &tables)
	require.Len(t, tables.Tables, 1)
	assert.Equal(t, "analytics.apps", tables.Tables[0].Name)
	_, a = askAnswer(t, cs, "run_query", map[string]any{"query": sql2018})
	assert.Empty(t, a.ErrorKind, a.Text)
}
