package web

import (
	"bufio"
	"cmp"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/demo"
)

func question(q string) map[string]any {
	return map[string]any{"messages": []map[string]string{{"role": "user", "content": q}}}
}

func TestRequestErrors(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{MaxBody: 1024})
	calls := len(b.Scripted.Calls())

	tests := []struct {
		name       string
		method     string
		path       string
		body       any
		wantStatus int
		wantError  string
	}{
		{name: "malformed JSON", method: http.MethodPost, path: "/api/chat/stream", body: []byte(`{"messages": [`),
			wantStatus: http.StatusBadRequest, wantError: "the request body is not valid JSON (at byte 14)"},
		{name: "an empty body", method: http.MethodPost, path: "/api/chat/stream", body: []byte(" \n"),
			wantStatus: http.StatusBadRequest, wantError: "the request body is empty: send a JSON object"},
		{name: "a field of the wrong type", method: http.MethodPost, path: "/api/chat/stream",
			body:       []byte(`{"messages":[{"role":"user","content":5}]}`),
			wantStatus: http.StatusBadRequest, wantError: "the request body is not valid JSON for this request: messages.content must be a string, not number"},
		{name: "an array for an object", method: http.MethodPost, path: "/api/chat/stream", body: []byte(`[1]`),
			wantStatus: http.StatusBadRequest, wantError: "the request body is not valid JSON for this request: it must be an object, not array"},
		{name: "no messages", method: http.MethodPost, path: "/api/chat/stream", body: map[string]any{"messages": []any{}},
			wantStatus: http.StatusBadRequest, wantError: "messages is empty"},
		{name: "messages missing", method: http.MethodPost, path: "/api/chat/stream", body: map[string]any{},
			wantStatus: http.StatusBadRequest, wantError: "messages is empty"},
		{name: "no user message", method: http.MethodPost, path: "/api/chat/stream",
			body:       map[string]any{"messages": []map[string]string{{"role": "assistant", "content": "Hi"}}},
			wantStatus: http.StatusBadRequest, wantError: `no message with "role": "user"`},
		{name: "blank question", method: http.MethodPost, path: "/api/chat/stream", body: question(" \n\t"),
			wantStatus: http.StatusBadRequest, wantError: "the question is empty"},
		{name: "a question of invisible characters", method: http.MethodPost, path: "/api/chat/stream", body: question("\x00\u200b\ufeff\x1b[2J"),
			wantStatus: http.StatusBadRequest, wantError: "the question is empty"},
		{name: "body too large", method: http.MethodPost, path: "/api/chat/stream", body: question(strings.Repeat("x", 2000)),
			wantStatus: http.StatusRequestEntityTooLarge, wantError: "larger than 1024 bytes"},
		{name: "not a web thread", method: http.MethodPost, path: "/api/chat/stream",
			body:       map[string]any{"thread_id": "C1:1700000000.000100", "messages": []map[string]string{{"role": "user", "content": q2018}}},
			wantStatus: http.StatusBadRequest, wantError: "not a web thread id"},
		{name: "stream by GET", method: http.MethodGet, path: "/api/chat/stream",
			wantStatus: http.StatusMethodNotAllowed, wantError: "use POST"},
		{name: "actions malformed JSON", method: http.MethodPost, path: "/api/actions", body: []byte(`nope`),
			wantStatus: http.StatusBadRequest, wantError: "not valid JSON"},
		{name: "actions too large", method: http.MethodPost, path: "/api/actions",
			body:       map[string]string{"thread_id": strings.Repeat("a", 2000)},
			wantStatus: http.StatusRequestEntityTooLarge, wantError: "larger than"},
		{name: "thread id not a web one", method: http.MethodGet, path: "/api/threads/C1:1700000000.000100",
			wantStatus: http.StatusNotFound, wantError: "no such thread"},
		{name: "unknown endpoint", method: http.MethodGet, path: "/api/nope",
			wantStatus: http.StatusNotFound, wantError: "no such API endpoint"},
		{name: "examples by POST", method: http.MethodPost, path: "/api/examples", body: map[string]any{},
			wantStatus: http.StatusMethodNotAllowed, wantError: "use GET"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, data := doJSON(t, srv, tt.method, tt.path, tt.body, nil)
			require.Equal(t, tt.wantStatus, resp.StatusCode, "status; body %s", data)
			assert.Equal(t, "application/json; charset=utf-8", resp.Header.Get("Content-Type"), "errors are JSON")
			assert.Contains(t, errorBody(t, data), tt.wantError, "error message")
			for _, internal := range []string{"json:", "Go struct", "chatRequest", "chatMessage", "unmarshal"} {
				assert.NotContains(t, errorBody(t, data), internal, "the server's own types and errors are not for the client")
			}
		})
	}
	assert.Equal(t, calls, len(b.Scripted.Calls()), "a refused request never reaches the model")
}

func TestAuth(t *testing.T) {
	t.Parallel()
	const token = "s3cret-token-0123456789"
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{Token: token})

	tests := []struct {
		name       string
		method     string
		path       string
		body       any
		header     http.Header
		wantStatus int
	}{
		{name: "no token", method: http.MethodGet, path: "/api/examples", wantStatus: http.StatusUnauthorized},
		{name: "wrong token", method: http.MethodGet, path: "/api/examples",
			header: http.Header{"Authorization": {"Bearer nope"}}, wantStatus: http.StatusUnauthorized},
		{name: "token as basic auth", method: http.MethodGet, path: "/api/examples",
			header: http.Header{"Authorization": {"Basic " + token}}, wantStatus: http.StatusUnauthorized},
		{name: "token prefix", method: http.MethodGet, path: "/api/examples",
			header: http.Header{"Authorization": {"Bearer " + token[:5]}}, wantStatus: http.StatusUnauthorized},
		{name: "right token", method: http.MethodGet, path: "/api/examples",
			header: http.Header{"Authorization": {"Bearer " + token}}, wantStatus: http.StatusOK},
		{name: "scheme in lower case", method: http.MethodGet, path: "/api/examples",
			header: http.Header{"Authorization": {"bearer " + token}}, wantStatus: http.StatusOK},
		{name: "stream without token", method: http.MethodPost, path: "/api/chat/stream", body: question(q2018),
			wantStatus: http.StatusUnauthorized},
		{name: "actions without token", method: http.MethodPost, path: "/api/actions", body: map[string]string{},
			wantStatus: http.StatusUnauthorized},
		{name: "thread without token", method: http.MethodGet, path: "/api/threads/" + unissuedThreadID(),
			wantStatus: http.StatusUnauthorized},
		{name: "the page needs no token", method: http.MethodGet, path: "/", wantStatus: http.StatusOK},
		{name: "nor its files", method: http.MethodGet, path: "/static/app.js", wantStatus: http.StatusOK},
		{name: "any host with the token", method: http.MethodGet, path: "/api/examples",
			header: http.Header{"Authorization": {"Bearer " + token}, "Host": {"bot.example.com"}}, wantStatus: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, data := doJSON(t, srv, tt.method, tt.path, tt.body, tt.header)
			require.Equal(t, tt.wantStatus, resp.StatusCode, "status; body %s", data)
			if tt.wantStatus == http.StatusUnauthorized {
				assert.Contains(t, errorBody(t, data), "access token", "error message")
				assert.Equal(t, `Bearer realm="analyticsbot"`, resp.Header.Get("WWW-Authenticate"), "WWW-Authenticate")
			}
		})
	}

	// With the token, the whole answer works.
	end := lastMessageEnd(t, chat(t, srv, "", q2018, http.Header{"Authorization": {"Bearer " + token}}).all(t))
	assert.Contains(t, end.Text, said2018, "answer with the token")
}

func TestWithoutTokenOnlyThisMachinesPages(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{})

	tests := []struct {
		name       string
		header     http.Header
		wantStatus int
	}{
		{name: "no origin (curl)", wantStatus: http.StatusOK},
		{name: "the page's own origin", header: http.Header{"Origin": {srv.URL}}, wantStatus: http.StatusOK},
		{name: "localhost by name", header: http.Header{"Host": {"localhost:8080"}, "Origin": {"http://localhost:8080"}}, wantStatus: http.StatusOK},
		{name: "another site's page", header: http.Header{"Origin": {"https://evil.example"}}, wantStatus: http.StatusForbidden},
		{name: "opaque origin", header: http.Header{"Origin": {"null"}}, wantStatus: http.StatusForbidden},
		{name: "DNS rebinding", header: http.Header{"Host": {"evil.example:8080"}, "Origin": {"http://evil.example:8080"}}, wantStatus: http.StatusForbidden},
		{name: "a LAN name", header: http.Header{"Host": {"192.168.1.20:8080"}}, wantStatus: http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, data := doJSON(t, srv, http.MethodGet, "/api/examples", nil, tt.header)
			require.Equal(t, tt.wantStatus, resp.StatusCode, "status; body %s", data)
			if tt.wantStatus == http.StatusForbidden {
				assert.NotEmpty(t, errorBody(t, data), "error message")
			}
		})
	}
}

// TestExamples: the demo offers its questions; on other data the bot
// offers its examples (TestExamplesOnOtherData).
func TestExamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		want   []string
	}{
		{name: "the demo suggests its questions", script: "", want: demo.Questions()[:4]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newTestBot(t, tt.script)
			srv := newTestServer(t, b, Config{})
			resp, data := doJSON(t, srv, http.MethodGet, "/api/examples", nil, nil)
			require.Equal(t, http.StatusOK, resp.StatusCode, "status; body %s", data)
			var got struct {
				Domain   string   `json:"domain"`
				Examples []string `json:"examples"`
				Demo     bool     `json:"demo"`
			}
			require.NoError(t, json.Unmarshal(data, &got), "body %s", data)
			assert.True(t, got.Demo, "README: it says the offline demo's scripted model answers")
			assert.Equal(t, b.Config().Domain, got.Domain, "domain")
			assert.NotEmpty(t, got.Domain, "domain")
			assert.Equal(t, tt.want, got.Examples, "examples")
			assert.NotContains(t, string(data), "null", "no nulls for the page to trip on")
		})
	}
}

// TestButtons: the page learns the buttons' action ids from the server,
// and each one it lists is one POST /api/actions presses.
func TestButtons(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{})
	resp, data := doJSON(t, srv, http.MethodGet, "/api/buttons", nil, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "status; body %s", data)
	assert.JSONEq(t, `{"buttons": [{"action": "export_csv", "label": "Export CSV", "download": true},
		{"action": "show_sql", "label": "Show SQL", "download": false},
		{"action": "refresh", "label": "Refresh", "download": false},
		{"action": "explain", "label": "Explain", "download": false},
		{"action": "schedule", "label": "Schedule", "download": false}]}`, string(data))

	resp, data = doJSON(t, srv, http.MethodPost, "/api/buttons", map[string]any{}, nil)
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode, "body %s", data)
}

func TestPageAndHealth(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{})

	tests := []struct {
		name       string
		path       string
		wantStatus int
		wantType   string
		wantBody   string
		cache      string // Cache-Control; "no-cache" when empty
	}{
		{name: "the page", path: "/", wantStatus: http.StatusOK, wantType: "text/html; charset=utf-8", wantBody: "/static/app.js"},
		{name: "its script", path: "/static/app.js", wantStatus: http.StatusOK, wantType: "text/javascript; charset=utf-8"},
		{name: "a missing file", path: "/static/nope.js", wantStatus: http.StatusNotFound},
		{name: "no directory listing", path: "/static/", wantStatus: http.StatusNotFound},
		{name: "no other pages", path: "/admin", wantStatus: http.StatusNotFound},
		{name: "health", path: "/healthz", wantStatus: http.StatusOK, wantType: "text/plain; charset=utf-8", wantBody: "ok"},
		{name: "the examples, data", path: "/api/examples", wantStatus: http.StatusOK, wantType: "application/json; charset=utf-8", cache: "no-store"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, data := doJSON(t, srv, http.MethodGet, tt.path, nil, nil)
			require.Equal(t, tt.wantStatus, resp.StatusCode, "status; body %.200s", data)
			if tt.wantType != "" {
				assert.Equal(t, tt.wantType, resp.Header.Get("Content-Type"), "content type")
			}
			assert.Contains(t, string(data), tt.wantBody, "body")
			assert.Equal(t, pageCSP, resp.Header.Get("Content-Security-Policy"), "CSP")
			assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"), "nosniff")
			if tt.wantStatus == http.StatusOK {
				assert.Equal(t, cmp.Or(tt.cache, "no-cache"), resp.Header.Get("Cache-Control"), "cache")
			}
		})
	}
}

// README's limits of the web API: a request body of up to 64 KiB is read,
// a larger one refused (413); the stream tells nginx not to buffer it.
func TestDocumentedRequestLimits(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{})
	overhead, err := json.Marshal(question(""))
	require.NoError(t, err)
	fits := strings.Repeat("x", 64<<10-len(overhead))

	s := chat(t, srv, "", fits, nil) // fails the test unless 200
	assert.Equal(t, "no", s.resp.Header.Get("X-Accel-Buffering"), "behind nginx, nothing special is needed")
	assert.Equal(t, "no-store", s.resp.Header.Get("Cache-Control"), "the stream holds data: no browser keeps it (docs/security.md)")
	end := lastMessageEnd(t, s.all(t))
	assert.Contains(t, end.Text, "I read questions of up to 4000 characters", "a body of exactly 64 KiB is read")

	resp, data := doJSON(t, srv, http.MethodPost, "/api/chat/stream", question(fits+"x"), nil)
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, "one byte more: %s", data)
	assert.Contains(t, errorBody(t, data), "larger than 65536 bytes")
}

// A body its own framing breaks (a chunk size that is not hex) is one
// that could not be read, not one that took too long: the client is told
// so at once, in the request's terms, without the network's error text.
func TestRequestBodyUnreadable(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, newTestBot(t, ""), Config{})
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "POST /api/chat/stream HTTP/1.1\r\nHost: "+srv.Listener.Addr().String()+"\r\nContent-Type: application/json\r\n"+
		"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s", data)
	assert.Equal(t, "the request body could not be read", errorBody(t, data))
}
