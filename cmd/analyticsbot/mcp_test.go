package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// mcpSession starts `analyticsbot mcp args…` as a process of its own (the
// test binary as the program, see TestMain) with the test's environment,
// and connects the SDK's client to it over its stdin and stdout.
func mcpSession(t *testing.T, args ...string) (*mcp.ClientSession, *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeo)
	defer cancel()
	cmd := exec.Command(os.Args[0], append([]string{"mcp"}, args...)...)
	cmd.Env = append(os.Environ(), asProgram+"=1")
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err, "connect to analyticsbot mcp; stderr: %s", stderr.String())
	t.Cleanup(func() { _ = cs.Close() })
	return cs, stderr
}

// mcpCall calls a tool and decodes its structured result into out.
func mcpCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeo)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err, "call %s", tool)
	if out != nil && res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, out), "%s", b)
	}
	return res
}

// `analyticsbot mcp` over stdio, as a desktop assistant runs it: the demo
// answers through ask and run_query, export_csv returns the CSV, the query
// log names the identity; a query that writes is refused and the process
// stays up; with an access file it needs --as, whose policy applies.
func TestCLIMCP(t *testing.T) {
	_, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)
	load := runCLI(t, "", "demo", "load")
	require.NoError(t, load.err, "stderr: %s", load.stderr)

	cs, stderr := mcpSession(t)
	var a struct {
		Kind      string  `json:"kind"`
		Text      string  `json:"text"`
		ThreadID  string  `json:"thread_id"`
		QueryID   string  `json:"query_id"`
		Query     string  `json:"query"`
		Rows      [][]any `json:"rows"`
		ErrorKind string  `json:"error_kind"`
		Reason    string  `json:"reason"`
	}
	res := mcpCall(t, cs, "ask", map[string]any{"question": q2018}, &a)
	require.False(t, res.IsError, "stderr: %s", stderr.String())
	assert.Equal(t, "answer", a.Kind)
	assert.Equal(t, sql2018, a.Query)
	require.Len(t, a.Rows, 1)
	assert.Equal(t, "8160", fmt.Sprint(a.Rows[0][0]))

	res = mcpCall(t, cs, "export_csv", map[string]any{"thread_id": a.ThreadID, "query_id": a.QueryID}, nil)
	require.False(t, res.IsError)
	var csv string
	for _, c := range res.Content {
		if r, ok := c.(*mcp.EmbeddedResource); ok {
			csv = r.Resource.Text
		}
	}
	assert.Equal(t, csv2018, csv)

	res = mcpCall(t, cs, "run_query", map[string]any{"query": "DROP TABLE analytics.apps"}, &a)
	assert.True(t, res.IsError)
	assert.Equal(t, "unsafe_query", a.ErrorKind)
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "no_such_tool"})
	require.Error(t, err, "an unknown tool is a protocol error")
	res = mcpCall(t, cs, "run_query", map[string]any{"query": 12}, nil)
	assert.True(t, res.IsError, "a number for a query")
	res = mcpCall(t, cs, "ask", map[string]any{"question": strings.Repeat("how many games? ", 200_000)}, nil)
	assert.True(t, res.IsError, "a 3 MB question")
	res = mcpCall(t, cs, "run_query", map[string]any{"query": "SELECT count(*) AS n FROM analytics.apps"}, &a)
	require.False(t, res.IsError, "still answering, the table still there")
	got := runCLI(t, "", "logs", "--json", "--since", "1h")
	require.NoError(t, got.err, got.stderr)
	assert.Contains(t, got.stdout, `"thread_id": "mcp-`, "the query log holds the MCP server's turns, each in a thread of its own")
	assert.Contains(t, got.stdout, `"[run_query] DROP TABLE analytics.apps"`, "and the refused query")

	// With an access file, --as is required and its policy applies.
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
	t.Setenv("ACCESS_FILE", path)
	got = runCLI(t, "", "mcp")
	require.ErrorIs(t, got.err, errUsage)
	assert.Contains(t, got.err.Error(), "--as is required")

	cs, stderr = mcpSession(t, "--as", "UAPPS")
	assert.NotContains(t, stderr.String(), "does not admit", "an identity the file admits")
	var tables struct {
		Tables []struct {
			Name string `json:"name"`
		} `json:"tables"`
	}
	mcpCall(t, cs, "list_tables", map[string]any{}, &tables)
	require.Len(t, tables.Tables, 1)
	assert.Equal(t, "analytics.apps", tables.Tables[0].Name)
	res = mcpCall(t, cs, "run_query", map[string]any{"query": "SELECT count(*) AS n FROM analytics.developers"}, &a)
	assert.True(t, res.IsError)
	assert.Equal(t, "access_denied", a.ErrorKind)

	cs, stderr = mcpSession(t, "--as", "USTRANGER")
	stderr.waitFor(t, regexp.MustCompile(`the access file does not admit the MCP server's identity: every call will be refused`), nil)
	res = mcpCall(t, cs, "list_tables", map[string]any{}, nil)
	assert.True(t, res.IsError)
	assert.True(t, strings.Contains(textOf(res), "You don't have access"), textOf(res))

	// A policy that hangs on a Slack user group. Without SLACK_BOT_TOKEN
	// nobody can tell who is in the group: a Slack user is refused, not
	// read under the default's wider tables. With it, the group's members
	// are read from Slack, as serve reads them, and decide the policy.
	require.NoError(t, os.WriteFile(path, []byte(`
access:
  channels: [mcp]
groups:
  apps_team: [S0APPS]
policies:
  - name: apps
    groups: [apps_team]
    tables: ["analytics.apps"]
  - name: everything
    tables: ["analytics.*"]
default: everything
`), 0o600))
	listTables := func(cs *mcp.ClientSession) []string {
		t.Helper()
		var got struct {
			Tables []struct {
				Name string `json:"name"`
			} `json:"tables"`
		}
		res := mcpCall(t, cs, "list_tables", map[string]any{}, &got)
		require.False(t, res.IsError, textOf(res))
		var names []string
		for _, tb := range got.Tables {
			names = append(names, tb.Name)
		}
		return names
	}
	cs, stderr = mcpSession(t, "--as", "UAPPSMEMBER")
	stderr.waitFor(t, regexp.MustCompile(`depends on a Slack user group, and SLACK_BOT_TOKEN is not set to read it: every call will be refused`), nil)
	res = mcpCall(t, cs, "list_tables", map[string]any{}, nil)
	assert.True(t, res.IsError, "not the default's tables")
	assert.Contains(t, textOf(res), "I can't check your access here: it depends on a Slack user group, and this server has no Slack connection to read who is in it.")

	got = runCLI(t, "", "context", "--user", "UAPPSMEMBER", "which app has the most reviews")
	require.Error(t, got.err, "context --user: the same refusal")
	assert.Contains(t, got.err.Error()+got.stderr, "this server has no Slack connection to read who is in it")
	got = runCLI(t, "", "press", "--user", "UAPPSMEMBER", "--thread", "local-00", "--action", "show_sql", "--value", "0badc0de")
	require.NoError(t, got.err, "press --user: answered with the refusal; stderr: %s", got.stderr)
	assert.Contains(t, got.stdout, "I can't check your access here: it depends on a Slack user group, and this server has no Slack connection to read who is in it.",
		"press --user: the same refusal (docs/access.md)")

	slack := fakeslack.New(t)
	slack.SetUserGroup("S0APPS", "UAPPSMEMBER")
	t.Setenv("SLACK_API_URL", slack.APIURL())
	t.Setenv("SLACK_BOT_TOKEN", "xoxb-not-this-workspace")
	got = runCLI(t, "", "mcp", "--as", "UAPPSMEMBER")
	require.Error(t, got.err, "a token Slack refuses would read as one without the scope: no members")
	assert.Contains(t, got.err.Error(), "slack auth.test with SLACK_BOT_TOKEN, to read the access file's Slack user groups: invalid_auth")
	calls := len(slack.Calls("auth.test"))
	got = runCLI(t, "", "context", "which developer has the most apps")
	require.NoError(t, got.err, "as cli, in no Slack user group: Slack is not asked, so its refusal of the token does not matter; stderr: %s", got.stderr)
	assert.Len(t, slack.Calls("auth.test"), calls, "Slack is asked nothing for cli")
	t.Setenv("SLACK_BOT_TOKEN", fakeslack.BotToken)
	got = runCLI(t, "", "context", "--json", "--user", "UOTHER", "which developer has the most apps")
	require.NoError(t, got.err, got.stderr)
	assert.Contains(t, got.stdout, `"analytics.developers"`, "in no group: the default's tables")
	got = runCLI(t, "", "context", "--json", "--user", "UAPPSMEMBER", "which developer has the most apps")
	require.NoError(t, got.err, got.stderr)
	assert.Contains(t, got.stdout, `"analytics.apps"`)
	assert.NotContains(t, got.stdout, `"analytics.developers"`, "the group's policy: apps alone")
	// press --user reads the groups too: past the access check, to the
	// thread, which has no answer to press.
	calls = len(slack.Calls("auth.test"))
	got = runCLI(t, "", "press", "--user", "UAPPSMEMBER", "--thread", "local-00", "--action", "show_sql", "--value", "0badc0de")
	require.NoError(t, got.err, got.stderr)
	assert.NotContains(t, got.stdout, "I can't check your access here")
	assert.Contains(t, got.stdout, "I couldn't find an earlier result in this thread for that.")
	assert.Len(t, slack.Calls("auth.test"), calls+1, "press --user checks SLACK_BOT_TOKEN with auth.test")
	cs, stderr = mcpSession(t, "--as", "UAPPSMEMBER")
	assert.Equal(t, []string{"analytics.apps"}, listTables(cs), "the group's policy, its members read from Slack; stderr: %s", stderr)
	cs, _ = mcpSession(t, "--as", "UOTHER")
	assert.Greater(t, len(listTables(cs)), 1, "in no group: the default")
	assert.NotEmpty(t, slack.Calls("usergroups.users.list"))
}

// textOf is a tool result's text.
func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// serve answers MCP on /mcp: HTTP_TOKEN's bearer asks as the web chat
// does; a request without it gets 401 and no tool.
func TestCLIServeMCP(t *testing.T) {
	serveEnv(t)
	const token = "serve-mcp-token-0123456789"
	t.Setenv("HTTP_TOKEN", token)
	s := startServe(t)
	s.out.waitFor(t, regexp.MustCompile(`MCP \(streamable HTTP, bearer token\): http://\S+/mcp\n`), s.done)

	status, body := get(t, s.url+"/mcp", "")
	assert.Equal(t, http.StatusUnauthorized, status, "no token: %s", body)
	status, _ = get(t, s.url+"/mcp", "not-the-token-0123456789")
	assert.Equal(t, http.StatusUnauthorized, status, "a wrong token")

	ctx, cancel := context.WithTimeout(context.Background(), cliTimeo)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: s.url + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{token}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, tr, nil)
	require.NoError(t, err)
	defer cs.Close()
	var a struct {
		Rows [][]any `json:"rows"`
	}
	res := mcpCall(t, cs, "ask", map[string]any{"question": q2018}, &a)
	require.False(t, res.IsError, textOf(res))
	require.Len(t, a.Rows, 1)
	assert.Equal(t, "8160", fmt.Sprint(a.Rows[0][0]))
	s.shutdown(t)
}

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// README, EXAMPLES_REFINGERPRINT: `analyticsbot mcp`, a process an AI
// client keeps for its whole session, brings an example of an earlier
// fingerprint form (one an older replica added meanwhile) to today's form
// without a restart, as serve does.
func TestCLIMCPRefingerprints(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)
	load := runCLI(t, "", "demo", "load")
	require.NoError(t, load.err, "stderr: %s", load.stderr)
	t.Setenv("EXAMPLES_REFINGERPRINT", "100ms")

	cs, stderr := mcpSession(t)
	mcpCall(t, cs, "list_tables", map[string]any{}, nil) // the start has stored the examples
	var form string
	require.NoError(t, db.Pool().QueryRow(t.Context(), `SELECT fingerprint_form FROM analyticsbot.examples ORDER BY id LIMIT 1`).Scan(&form))
	// An older replica's row: its form unknown.
	tag, err := db.Pool().Exec(t.Context(), `UPDATE analyticsbot.examples SET fingerprint_form = NULL WHERE id = (SELECT min(id) FROM analyticsbot.examples)`)
	require.NoError(t, err)
	require.EqualValues(t, 1, tag.RowsAffected())
	require.Eventually(t, func() bool {
		var got *string
		err := db.Pool().QueryRow(t.Context(), `SELECT fingerprint_form FROM analyticsbot.examples ORDER BY id LIMIT 1`).Scan(&got)
		return err == nil && got != nil && *got == form
	}, cliTimeo, 50*time.Millisecond, "the example is brought to %s while mcp runs; stderr: %s", form, stderr)
}
