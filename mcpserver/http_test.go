package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
)

// bearerTransport adds a bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// httpClient connects the SDK's client to the streamable endpoint at url
// with token.
func httpClient(t testing.TB, url, token string) (*mcp.ClientSession, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{token}}, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, tr, nil)
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

// initialize is a client's first message.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"0"}}}`

// post sends one JSON-RPC message (initialize when body is "") to url
// with the given Authorization header ("" for none) and returns the
// status and the response's body.
func post(t testing.TB, url, authorization string, body ...string) (int, string) {
	t.Helper()
	msg := initialize
	if len(body) > 0 {
		msg = body[0]
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(msg))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// postReply sends one JSON-RPC message to url with the given
// Authorization header, as curl does, and returns the status, the
// response's Content-Type and its body.
func postReply(t testing.TB, url, authorization, msg string) (code int, contentType, body string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(msg))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", authorization)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// Over HTTP each request asks as its bearer token's identity, under its
// policy, and the query log says who; no token, a wrong one, or a server
// with none configured gets 401 and no tool.
func TestHTTP(t *testing.T) { // not parallel: t.Setenv
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
access:
  channels: [web, mcp]
tokens:
  - name: dashboards
    env: ABT_MCP_TEST_TOKEN_DASHBOARDS
policies:
  - name: dashboards
    users: ["token:dashboards"]
    tables: ["analytics.apps"]
    deny_columns: ["analytics.apps.price"]
  - name: web
    users: [web]
    tables: ["analytics.*"]
default: none
`), 0o600))
	const secret, webSecret = "dashboards-secret-0123456789", "web-secret-0123456789abcdef"
	t.Setenv("ABT_MCP_TEST_TOKEN_DASHBOARDS", secret) // read once, when the bot starts
	b := newTestBot(t, "", func(c *bot.Config) { c.AccessFile = path })
	tokens, err := b.APITokens()
	require.NoError(t, err)
	tokens[webSecret] = "web"
	srv := httptest.NewServer(Handler(b, Config{}, tokens, bottest.Logger(t)))
	t.Cleanup(srv.Close)

	code, body := post(t, srv.URL, "")
	assert.Equal(t, http.StatusUnauthorized, code, "no token: %s", body)
	code, body = post(t, srv.URL, "Bearer wrong-secret-0123456789")
	assert.Equal(t, http.StatusUnauthorized, code, "a wrong token: %s", body)
	code, _ = post(t, srv.URL, "Basic "+secret)
	assert.Equal(t, http.StatusUnauthorized, code, "not a bearer token")
	_, err = httpClient(t, srv.URL, "wrong-secret-0123456789")
	require.Error(t, err, "the SDK's client with a wrong token cannot connect")
	code, body = post(t, srv.URL, "Bearer "+secret)
	assert.Equal(t, http.StatusOK, code, body)
	huge := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{"question":"` +
		strings.Repeat("x", 2<<20) + `"}}}`
	code, _ = post(t, srv.URL, "Bearer "+secret, huge)
	assert.Equal(t, http.StatusRequestEntityTooLarge, code, "a body beyond 1 MiB")
	// The server is stateless: one request calls a tool, as curl does
	// (docs/mcp.md).
	code, ctype, body := postReply(t, srv.URL, "Bearer "+secret, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_tables","arguments":{}}}`)
	assert.Equal(t, http.StatusOK, code, body)
	assert.Contains(t, body, `analytics.apps`)
	// It answers with one JSON object, not an event stream, though the
	// client accepts both (docs/mcp.md).
	mediaType, _, err := mime.ParseMediaType(ctype)
	require.NoError(t, err, "Content-Type %q", ctype)
	assert.Equal(t, "application/json", mediaType)
	var reply struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &reply), "one JSON object: %s", body)
	assert.Equal(t, 2, reply.ID)
	assert.NotContains(t, body, `analytics.developers`, "the dashboards policy's tables only")

	// Through a reverse proxy on the same machine, which passes the Host on.
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL, strings.NewReader(initialize))
	require.NoError(t, err)
	req.Host = "bot.example.com"
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "a proxied request with its token")

	// A page of another site (DNS rebinding, or a site the user visits)
	// is refused, token or not, whatever the method; the server's own
	// origin is not, nor a client that is no browser (no Origin, no
	// Sec-Fetch-Site). The server is stateless, so it answers a GET or a
	// DELETE that passes with 405: no method but POST does anything.
	for _, tt := range []struct {
		name, method, host, origin, site string
		want                             int
	}{
		{"another site", http.MethodPost, "", "https://evil.example", "", http.StatusForbidden},
		{"DNS rebinding", http.MethodPost, "evil.example:8080", "http://evil.example:8080", "", http.StatusOK}, // same origin as its Host: the token decides
		{"another site, through the proxy", http.MethodPost, "bot.example.com", "https://evil.example", "", http.StatusForbidden},
		{"the server's own origin", http.MethodPost, "bot.example.com", "https://bot.example.com", "", http.StatusOK},
		{"another site's page says so", http.MethodPost, "", "", "cross-site", http.StatusForbidden},
		{"a sandboxed page", http.MethodPost, "", "null", "", http.StatusForbidden},
		{"GET from another site", http.MethodGet, "", "https://evil.example", "", http.StatusForbidden},
		{"GET from another site's page, by Sec-Fetch-Site", http.MethodGet, "", "", "cross-site", http.StatusForbidden},
		{"GET from the same site, another origin", http.MethodGet, "", "", "same-site", http.StatusForbidden},
		{"GET from the server's own origin", http.MethodGet, "bot.example.com", "https://bot.example.com", "same-origin", http.StatusMethodNotAllowed},
		{"GET from a client that is no browser", http.MethodGet, "", "", "", http.StatusMethodNotAllowed},
		{"DELETE from another site", http.MethodDelete, "", "https://evil.example", "", http.StatusForbidden},
		{"DELETE from another site's page, by Sec-Fetch-Site", http.MethodDelete, "bot.example.com", "https://bot.example.com", "cross-site", http.StatusForbidden},
		{"DELETE from a client that is no browser", http.MethodDelete, "", "", "", http.StatusMethodNotAllowed},
	} {
		var reqBody io.Reader
		if tt.method == http.MethodPost {
			reqBody = strings.NewReader(initialize)
		}
		req, err := http.NewRequestWithContext(t.Context(), tt.method, srv.URL, reqBody)
		require.NoError(t, err)
		if tt.host != "" {
			req.Host = tt.host
		}
		if tt.origin != "" {
			req.Header.Set("Origin", tt.origin)
		}
		if tt.site != "" {
			req.Header.Set("Sec-Fetch-Site", tt.site)
		}
		req.Header.Set("Authorization", "Bearer "+secret)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, tt.want, resp.StatusCode, "%s: %s", tt.name, body)
		if tt.want == http.StatusForbidden {
			assert.Contains(t, string(body), "requests from another site's page are refused", tt.name)
		}
	}

	cs, err := httpClient(t, srv.URL, secret)
	require.NoError(t, err)
	var tables TableList
	decode(t, call(t, cs, "list_tables", map[string]any{}), &tables)
	require.Len(t, tables.Tables, 1, "the dashboards policy reads one table")
	assert.Equal(t, "analytics.apps", tables.Tables[0].Name)
	res, a := askAnswer(t, cs, "ask", map[string]any{"question": q2018})
	require.False(t, res.IsError, text(res))
	require.Len(t, a.Rows, 1)
	logs, err := b.DB().QueryLogs(t.Context(), store.QueryLogFilter{ThreadID: a.ThreadID})
	require.NoError(t, err)
	require.Len(t, logs, 1)
	assert.Equal(t, "token:dashboards", logs[0].UserID, "the query log says who asked")
	assert.Equal(t, "dashboards", logs[0].Policy)
	res, a = askAnswer(t, cs, "run_query", map[string]any{"query": "SELECT avg(price) AS p FROM analytics.apps"})
	assert.True(t, res.IsError)
	assert.Equal(t, "access_denied", a.ErrorKind, "price is denied to the dashboards token")

	// Another token, another identity: the first one's thread is not its.
	web, err := httpClient(t, srv.URL, webSecret)
	require.NoError(t, err)
	decode(t, call(t, web, "list_tables", map[string]any{}), &tables)
	assert.Greater(t, len(tables.Tables), 1, "web reads every analytics table")
	ex := call(t, web, "export_csv", map[string]any{"thread_id": a.ThreadID, "query_id": "0badc0de"})
	assert.True(t, ex.IsError)
	assert.Contains(t, text(ex), "no thread")

	none := httptest.NewServer(Handler(b, Config{}, nil, bottest.Logger(t)))
	t.Cleanup(none.Close)
	code, body = post(t, none.URL, "Bearer "+secret)
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Contains(t, body, "none is configured")
}

// A call refused for its arguments, before any tool runs, writes its
// query log row like a call the guard refuses: who called (over /mcp, the
// token's identity), under which policy, the tool, the arguments as sent
// (cut as a question is) and error kind invalid_arguments with the
// refusal's words.
func TestRefusedArgumentsLogged(t *testing.T) {
	t.Parallel()
	const user, secret = "UAUDIT01", "audit-secret-0123456789abcdef"
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
access:
  channels: [mcp]
policies:
  - name: auditors
    users: [`+user+`]
    tables: ["analytics.*"]
default: none
`), 0o600))
	b := newTestBot(t, "", func(c *bot.Config) { c.AccessFile = path })
	srv := httptest.NewServer(Handler(b, Config{}, map[string]string{secret: user}, bottest.Logger(t)))
	t.Cleanup(srv.Close)
	cs, err := httpClient(t, srv.URL, secret)
	require.NoError(t, err)

	longQuery := atLength(sql2018, 70_012)
	tests := []struct {
		name, tool   string
		args         map[string]any
		wantIntent   string
		wantQuestion string // the row's question, or its start when cut
		wantDetail   string
	}{
		{"a limit too high", "list_verified_queries", map[string]any{"limit": 1000}, "list_verified_queries",
			`[list_verified_queries] {"limit":1000}`, "limit must be from 0 to 100, not 1000"},
		{"a search of 501 characters", "search_values", map[string]any{"text": atLength("Linux", 501)}, "search_values",
			`[search_values] {"text":"Linux`, `text "Linux` + strings.Repeat(" ", 34) + `…" has 501 characters; it may have at most 500`},
		{"a query of 70,012 characters", "run_query", map[string]any{"query": longQuery}, "run_query",
			`[run_query] {"query":"` + sql2018, "has 70012 characters; it may have at most 65536"},
		{"a question of 4,001 characters", "ask", map[string]any{"question": atLength(q2018, 4001)}, "",
			`[ask] {"question":"` + q2018, "has 4001 characters; it may have at most 4000"},
		{"a number for a table", "describe_table", map[string]any{"table": 42}, "describe_table",
			`[describe_table] {"table":42}`, "table must be a string, not a number"},
	}
	for _, tt := range tests {
		res := call(t, cs, tt.tool, tt.args)
		require.True(t, res.IsError, "%s: %s", tt.name, text(res))
		assert.Contains(t, text(res), tt.wantDetail, tt.name)
	}
	// One SQL query the guard refuses, as the rows to compare with.
	res, refused := askAnswer(t, cs, "run_query", map[string]any{"query": "DELETE FROM analytics.apps"})
	require.True(t, res.IsError, text(res))

	logs, err := b.DB().QueryLogs(t.Context(), store.QueryLogFilter{UserID: user})
	require.NoError(t, err)
	require.Len(t, logs, len(tests)+1, "a row for every call, refused arguments included")
	slices.Reverse(logs) // oldest first
	for i, tt := range tests {
		l := logs[i]
		assert.Equal(t, user, l.UserID, "%s: who called", tt.name)
		assert.Equal(t, Channel, l.ChannelID, tt.name)
		assert.Equal(t, "auditors", l.Policy, "%s: under which policy", tt.name)
		assert.Equal(t, tt.wantIntent, l.Intent, "%s: the tool's intent", tt.name)
		assert.Equal(t, string(nodes.ErrInvalidArguments), l.ErrorKind, tt.name)
		assert.Contains(t, l.ErrorDetail, tt.wantDetail, "%s: the refusal's words", tt.name)
		assert.True(t, strings.HasPrefix(l.Question, tt.wantQuestion), "%s: got question %.80q, want it to start %.80q", tt.name, l.Question, tt.wantQuestion)
		assert.LessOrEqual(t, utf8.RuneCountInString(l.Question), 4000, "%s: the arguments cut as a question is", tt.name)
		assert.LessOrEqual(t, utf8.RuneCountInString(l.ErrorDetail), 200, "%s: the detail quotes the start of the value only", tt.name)
	}
	assert.Equal(t, "run_query", logs[len(tests)].Intent, "the guard's refusal")
	assert.Equal(t, refused.ErrorKind, logs[len(tests)].ErrorKind)
}
