package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// syncBuffer is a bytes.Buffer safe for the goroutines of a running
// server, which a test can wait on.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	// changed is closed (and replaced) by every write.
	changed chan struct{}
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.b.Write(p)
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return n, err
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until the text written matches re and returns the match's
// groups; it fails the test when the program ends first.
func (s *syncBuffer) waitFor(t *testing.T, re *regexp.Regexp, done chan error) []string {
	t.Helper()
	deadline := time.After(cliTimeo)
	for {
		s.mu.Lock()
		text := s.b.String()
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		changed := s.changed
		s.mu.Unlock()
		if m := re.FindStringSubmatch(text); m != nil {
			return m
		}
		select {
		case <-changed:
		case err, open := <-done:
			if open {
				// Put back for whoever waits on the program's end next
				// (startServe's cleanup): taken, it would wait forever.
				select {
				case done <- err:
				default:
				}
			}
			t.Fatalf("the program ended (err %v) before printing %s; it printed %q", err, re, text)
		case <-deadline:
			t.Fatalf("nothing matching %s printed within %s; got %q", re, cliTimeo, text)
		}
	}
}

func clearSlackEnv(t *testing.T) {
	t.Helper()
	for _, k := range []string{"SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_API_URL", "HTTP_TOKEN"} {
		t.Setenv(k, "")
	}
}

// server is a running `analyticsbot serve`.
type server struct {
	url         string // the web chat, as printed
	out, errOut *syncBuffer
	stop        context.CancelFunc
	done        chan error
}

var (
	webChatLine = regexp.MustCompile(`Web chat: (http://\S+)\n`)
	// metricsLine is the log line of the address METRICS_ADDR bound.
	metricsLine = regexp.MustCompile(`msg="serving Prometheus metrics" url=(http://\S+/metrics)\n`)
)

// startServe runs `analyticsbot serve` with the environment set so far and
// waits for it to print the web chat's address.
func startServe(t *testing.T) *server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeo)
	s := &server{out: &syncBuffer{}, errOut: &syncBuffer{}, stop: cancel, done: make(chan error, 1)}
	go func() { s.done <- run(ctx, []string{"serve"}, strings.NewReader(""), s.out, s.errOut) }()
	t.Cleanup(func() {
		cancel()
		<-s.done
	})
	s.url = s.out.waitFor(t, webChatLine, s.done)[1]
	return s
}

// shutdown stops the server as a signal does and checks it stopped cleanly.
func (s *server) shutdown(t *testing.T) {
	t.Helper()
	s.stop()
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		require.NoError(t, err, "serve stops cleanly on a signal; stderr: %s", s.errOut.String())
	case <-time.After(time.Minute):
		t.Fatal("serve did not stop within a minute of its context ending")
	}
	assert.Contains(t, s.out.String(), "stopped")
}

// get sends a GET with an optional bearer token.
func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return send(t, req)
}

// ask posts a question to the web chat and returns the whole event stream.
func askWeb(t *testing.T, base, question, token string) (int, string) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"messages": []map[string]string{{"role": "user", "content": question}}})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, base+"/api/chat/stream", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return send(t, req)
}

func send(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeo)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	require.NoError(t, err, "%s %s", req.Method, req.URL)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err, "read %s %s", req.Method, req.URL)
	return resp.StatusCode, string(b)
}

// serveEnv points serve at a fresh database with the demo data, on a free
// loopback port, without Slack, metrics or a token, and returns the
// database's URL.
func serveEnv(t *testing.T) string {
	t.Helper()
	_, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)
	require.NoError(t, runCLI(t, "", "demo", "load").err, "demo load")
	clearSlackEnv(t)
	t.Setenv("HTTP_ADDR", "127.0.0.1:0")
	t.Setenv("METRICS_ADDR", "off")
	return dbURL
}

func TestCLIServeWebChatWithoutSlack(t *testing.T) {
	serveEnv(t)
	s := startServe(t)
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, s.url, "the printed address")
	// Printed right after the address: wait for it rather than race it.
	s.out.waitFor(t, regexp.MustCompile(`Slack is not configured`), s.done)
	assert.Contains(t, s.out.String(), "(model script:demo, the offline demo: a scripted model that answers only its suggested questions; "+
		"set LLM_PROVIDER and a key to ask anything)", "the start line says the demo is scripted, as the README says")

	status, page := get(t, s.url+"/", "")
	assert.Equal(t, http.StatusOK, status, "GET /")
	assert.Contains(t, page, "<html", "the page")

	status, examples := get(t, s.url+"/api/examples", "")
	assert.Equal(t, http.StatusOK, status, "GET /api/examples: %s", examples)
	assert.Contains(t, examples, demo.Questions()[0], "the demo's questions")

	status, stream := askWeb(t, s.url, q2018, "")
	require.Equal(t, http.StatusOK, status, "POST /api/chat/stream: %s", stream)
	assert.Contains(t, stream, `"type":"message_end"`, "the stream ends with the answer")
	assert.Contains(t, stream, "8160", "the answer")

	s.shutdown(t)
}

func TestCLIServeRefusesAnOpenAddressWithoutToken(t *testing.T) {
	tests := []struct {
		name string
		addr string
	}{
		{name: "every interface", addr: ":0"},
		{name: "every IPv4 interface", addr: "0.0.0.0:0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearSlackEnv(t)
			t.Setenv("ACCESS_FILE", "")
			t.Setenv("HTTP_ADDR", tt.addr)
			got := runCLI(t, "", "serve")
			require.Error(t, got.err, "serve on %s without HTTP_TOKEN", tt.addr)
			assert.Contains(t, got.err.Error(), "is not a loopback address and neither HTTP_TOKEN nor a named token in ACCESS_FILE is set")
		})
	}
}

// An access file lets serve listen beyond loopback only when it names a
// token: one without tokens leaves the API as open as no file at all.
func TestCLIServeRefusesAnOpenAddressWithAnAccessFileWithoutTokens(t *testing.T) {
	serveEnv(t)
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
policies:
  - name: readers
    tables: ["analytics.*"]
default: readers
`), 0o600))
	t.Setenv("ACCESS_FILE", path)
	t.Setenv("HTTP_ADDR", "0.0.0.0:0")
	got := runCLI(t, "", "serve")
	require.Error(t, got.err, "serve on 0.0.0.0 with an access file that names no token")
	assert.Contains(t, got.err.Error(), "HTTP_ADDR 0.0.0.0:0 is not a loopback address and neither HTTP_TOKEN nor a named token in ACCESS_FILE is set")
}

func TestCLIServeWithTokenOnEveryInterface(t *testing.T) {
	serveEnv(t)
	const token = "serve-test-token"
	t.Setenv("HTTP_TOKEN", token)
	t.Setenv("HTTP_ADDR", "0.0.0.0:0")
	s := startServe(t)
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, s.url, "every interface is shown as loopback")

	status, body := get(t, s.url+"/api/examples", "")
	assert.Equal(t, http.StatusUnauthorized, status, "without the token: %s", body)
	status, body = get(t, s.url+"/api/examples", token)
	assert.Equal(t, http.StatusOK, status, "with the token: %s", body)
	status, _ = get(t, s.url+"/", "")
	assert.Equal(t, http.StatusOK, status, "the page asks for the token itself")

	s.shutdown(t)
}

func TestCLIServeAnswersInSlack(t *testing.T) {
	serveEnv(t)
	slack := fakeslack.New(t)
	t.Setenv("SLACK_BOT_TOKEN", fakeslack.BotToken)
	t.Setenv("SLACK_APP_TOKEN", fakeslack.AppToken)
	t.Setenv("SLACK_API_URL", slack.APIURL())
	t.Setenv("METRICS_ADDR", "127.0.0.1:0")

	s := startServe(t)
	metricsURL := s.errOut.waitFor(t, metricsLine, s.done)[1]
	slack.WaitConnected(t)
	const ch, ts = "CSERVE001", "1700000100.000100"
	id := slack.Send(t, fakeslack.Envelope{Type: "events_api", Payload: fakeslack.EventCallback("EvServe1",
		fakeslack.AppMention(ch, "UALICE01", "<@"+fakeslack.BotUserID+"> "+q2018, ts, ""))})
	slack.WaitAck(t, id)
	slack.WaitMessage(t, "the whole answer in the thread", func(m fakeslack.Message) bool {
		// The text streams in first; the answer is whole with its buttons.
		return m.Channel == ch && m.ThreadTS == ts && strings.Contains(m.Text, "8,160") && !m.Streaming &&
			strings.Contains(string(m.Blocks), "export_csv")
	})

	status, body := get(t, metricsURL, "")
	assert.Equal(t, http.StatusOK, status, "GET /metrics")
	assert.Regexp(t, `analyticsbot_turns_total\{[^}]*intent="analytics_query"[^}]*\} 1`, body, "the answered turn is counted")
	assert.Contains(t, body, "analyticsbot_node_duration_seconds_bucket", "node latency histogram")
	assert.Regexp(t, `(?m)^analyticsbot_turns_running\{[^}]*\} [01]$`, body, "turns under way (the answer's job may still be saving it)")
	assert.Regexp(t, `(?m)^analyticsbot_turns_waiting\{[^}]*\} 0$`, body, "none waiting")
	assert.Regexp(t, `(?m)^analyticsbot_cache_results\{[^}]*\} [1-9]`, body, "the answer's result is in memory")

	// The web chat runs alongside.
	status, stream := askWeb(t, s.url, q2018, "")
	require.Equal(t, http.StatusOK, status, "web chat next to Slack: %s", stream)
	assert.Contains(t, stream, "8160", "the web answer")

	s.shutdown(t)
	assert.Regexp(t, slackStartLine(t), s.out.String(), "the start line docs/slack.md quotes")
	assert.Contains(t, s.out.String(), "in Slack over Socket Mode as <@"+fakeslack.BotUserID+"> (model script:demo, the offline demo:")
	assert.Contains(t, s.errOut.String(), "slack app running", "serve logs at info level")
}

// slackStartLine is the line docs/slack.md's install steps say serve
// prints once it answers in Slack over Socket Mode, as a regexp matching
// one whole line: the bot's user id (U…) and the model (…) may be any.
func slackStartLine(t *testing.T) *regexp.Regexp {
	t.Helper()
	doc, err := os.ReadFile("../../docs/slack.md")
	require.NoError(t, err)
	quote := regexp.MustCompile("`(analyticsbot is answering [^`]*)`").FindSubmatch(doc)
	require.NotNil(t, quote, "docs/slack.md quotes the start line")
	re := regexp.QuoteMeta(string(quote[1]))
	re = strings.Replace(re, "<@U…>", "<@U[A-Z0-9]+>", 1)
	re = strings.Replace(re, `\(model …\)`, `\(model .+\)`, 1)
	return regexp.MustCompile("(?m)^" + re + "$")
}

func TestCLIServeSlackHTTPModeSharesTheWebServer(t *testing.T) {
	serveEnv(t)
	const secret = "serve-test-signing-secret"
	slack := fakeslack.New(t)
	t.Setenv("SLACK_BOT_TOKEN", fakeslack.BotToken)
	t.Setenv("SLACK_SIGNING_SECRET", secret)
	t.Setenv("SLACK_API_URL", slack.APIURL())

	s := startServe(t)
	// Printed once the Slack app is up, which may be after the web chat's line.
	s.out.waitFor(t, regexp.MustCompile(regexp.QuoteMeta("in Slack on "+s.url+"/slack/{events,interactions,commands}")), s.done)

	const ch, ts = "CSERVE002", "1700000200.000100"
	body := fakeslack.EventCallback("EvServeHTTP1", fakeslack.AppMention(ch, "UALICE01", "<@"+fakeslack.BotUserID+"> "+q2018, ts, ""))
	status, reply := send(t, fakeslack.SignedRequest(t, secret, s.url+"/slack/events", "application/json", body, time.Now()))
	require.Equal(t, http.StatusOK, status, "POST /slack/events on the web chat's port: %s", reply)
	slack.WaitMessage(t, "the whole answer in the thread", func(m fakeslack.Message) bool {
		return m.Channel == ch && m.ThreadTS == ts && strings.Contains(m.Text, "8,160") && !m.Streaming &&
			strings.Contains(string(m.Blocks), "export_csv")
	})

	status, reply = send(t, fakeslack.SignedRequest(t, "wrong-secret", s.url+"/slack/events", "application/json", body, time.Now()))
	assert.Equal(t, http.StatusUnauthorized, status, "Slack's signature is still checked: %s", reply)

	status, examples := get(t, s.url+"/api/examples", "")
	assert.Equal(t, http.StatusOK, status, "the web chat on the same port: %s", examples)

	s.shutdown(t)
}

// docs/access.md: a named token's secret has at least 16 characters and no
// two tokens share one, or the bot refuses to start; with named tokens the
// API needs a token, so serve listens beyond loopback without HTTP_TOKEN.
func TestCLIServeNamedTokens(t *testing.T) {
	serveEnv(t)
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
tokens:
  - name: dashboards
    env: ABT_SERVE_TOKEN_DASHBOARDS
  - name: reports
    env: ABT_SERVE_TOKEN_REPORTS
policies:
  - name: readers
    users: ["token:dashboards", "token:reports"]
    tables: ["analytics.*"]
default: none
`), 0o600))
	t.Setenv("ACCESS_FILE", path)
	t.Setenv("HTTP_ADDR", "0.0.0.0:0")

	t.Setenv("ABT_SERVE_TOKEN_DASHBOARDS", "fifteen-chars-x")
	t.Setenv("ABT_SERVE_TOKEN_REPORTS", "reports-secret-0123456789")
	got := runCLI(t, "", "serve")
	require.Error(t, got.err, "a 15-character secret")
	assert.Contains(t, got.err.Error(), `the token "dashboards" needs a secret of at least 16 characters in ABT_SERVE_TOKEN_DASHBOARDS`)

	t.Setenv("ABT_SERVE_TOKEN_DASHBOARDS", "reports-secret-0123456789")
	got = runCLI(t, "", "serve")
	require.Error(t, got.err, "two tokens with one secret")
	assert.Contains(t, got.err.Error(), "has the same secret as another")

	const secret = "sixteen-chars-ok"
	t.Setenv("ABT_SERVE_TOKEN_DASHBOARDS", secret)
	s := startServe(t)
	status, body := get(t, s.url+"/api/examples", "")
	assert.Equal(t, http.StatusUnauthorized, status, "without a token: %s", body)
	status, body = get(t, s.url+"/api/examples", secret)
	assert.Equal(t, http.StatusOK, status, "with the named token's 16-character secret: %s", body)
	s.shutdown(t)
}

// README: HTTP_TOKEN needs as long a secret as a named token (16
// characters), or serve refuses to start on any address, before it opens
// anything, without printing the secret.
func TestCLIServeHTTPTokenTooShort(t *testing.T) {
	serveEnv(t)
	t.Setenv("HTTP_ADDR", "0.0.0.0:0")
	for _, secret := range []string{"x", "0123456789abcde"} {
		t.Setenv("HTTP_TOKEN", secret)
		got := runCLI(t, "", "serve")
		require.Error(t, got.err, "serve with HTTP_TOKEN %d characters long", len(secret))
		assert.Equal(t, "HTTP_TOKEN needs a secret of at least 16 characters (a named token's need as many): set a longer one", got.err.Error())
		assert.NotContains(t, got.stdout+got.stderr, "Web chat:", "nothing listens")
	}
	t.Setenv("HTTP_TOKEN", "0123456789abcdef")
	s := startServe(t)
	status, body := get(t, s.url+"/api/examples", "0123456789abcdef")
	assert.Equal(t, http.StatusOK, status, "16 characters: %s", body)
	s.shutdown(t)
}

// docs/access.md: HTTP_TOKEN shares no secret with a named token, or the
// bot refuses to start. Otherwise one secret would ask as token:<name> on
// the web API and as web on /mcp, under two policies.
func TestCLIServeHTTPTokenIsNoNamedToken(t *testing.T) {
	serveEnv(t)
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
tokens:
  - name: dashboards
    env: ABT_SERVE_TOKEN_DASHBOARDS
policies:
  - name: dashboards
    users: ["token:dashboards"]
    tables: ["analytics.apps"]
  - name: web
    users: [web]
    tables: ["analytics.*"]
default: none
`), 0o600))
	t.Setenv("ACCESS_FILE", path)
	const secret = "dashboards-secret-0123456789"
	t.Setenv("ABT_SERVE_TOKEN_DASHBOARDS", secret)
	t.Setenv("HTTP_TOKEN", secret)
	got := runCLI(t, "", "serve")
	require.Error(t, got.err, "HTTP_TOKEN with a named token's secret")
	assert.Contains(t, got.err.Error(), `HTTP_TOKEN has the same secret as the access file's token "dashboards"`)
	assert.NotContains(t, got.err.Error()+got.stdout+got.stderr, secret, "the secret is never printed")

	t.Setenv("HTTP_TOKEN", "web-secret-0123456789")
	s := startServe(t)
	status, body := get(t, s.url+"/api/examples", secret)
	assert.Equal(t, http.StatusOK, status, "each with a secret of its own: %s", body)
	s.shutdown(t)
}

// docs/slack.md's troubleshooting: serve stops at start with the Slack
// setting to fix, in the words the doc quotes.
func TestCLIServeNamesTheSlackSettingToFix(t *testing.T) {
	serveEnv(t)
	slack := fakeslack.New(t)
	t.Setenv("SLACK_API_URL", slack.APIURL())
	tests := []struct {
		name, botToken, appToken, want string
	}{
		{"a revoked bot token", "xoxb-revoked", fakeslack.AppToken, "slack auth.test with SLACK_BOT_TOKEN: invalid_auth"},
		{"an app token Slack refuses", fakeslack.BotToken, "xapp-revoked", "socket mode: Slack refused SLACK_APP_TOKEN (invalid_auth)"},
		{"the bot token as the app token", fakeslack.BotToken, fakeslack.BotToken, "SLACK_APP_TOKEN must be an app-level token (xapp-…) with connections:write"},
		{"an app token without a bot token", "", fakeslack.AppToken, "SLACK_BOT_TOKEN (xoxb-…) is required to answer in Slack"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("SLACK_BOT_TOKEN", tt.botToken)
			t.Setenv("SLACK_APP_TOKEN", tt.appToken)
			got := runCLI(t, "", "serve")
			require.Error(t, got.err)
			assert.Contains(t, got.err.Error(), tt.want)
		})
	}
}

// README: a setting that cannot work stops the program at start. Serve
// reads MCP_* and, with a Slack token, SLACK_* before it opens the bot or
// listens: it stops with the setting to fix, not with the error of the
// database it would have opened or of the addresses it would have bound,
// which the test holds.
func TestCLIServeRefusesSettingsBeforeOpening(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{
			name: "MCP_MAX_ROWS",
			env:  map[string]string{"MCP_MAX_ROWS": "0"},
			want: "MCP_MAX_ROWS must be a number of rows above 0, such as 100, got 0",
		},
		{
			name: "SLACK_QUEUE_LIMIT",
			env:  map[string]string{"SLACK_BOT_TOKEN": fakeslack.BotToken, "SLACK_APP_TOKEN": fakeslack.AppToken, "SLACK_QUEUE_LIMIT": "0"},
			want: "SLACK_QUEUE_LIMIT must be at least 1, got 0",
		},
		{
			name: "SLACK_WORKERS, SLACK_SLASH_COMMAND and SLACK_API_RETRIES in HTTP mode",
			env: map[string]string{"SLACK_BOT_TOKEN": fakeslack.BotToken, "SLACK_SIGNING_SECRET": "serve-test-signing-secret",
				"SLACK_WORKERS": "-1", "SLACK_SLASH_COMMAND": "ask", "SLACK_API_RETRIES": "-1"},
			want: "SLACK_WORKERS must be 0 (share MAX_TURNS) or more, got -1\n" +
				`SLACK_SLASH_COMMAND must start with /, got "ask"` + "\n" +
				"SLACK_API_RETRIES must not be negative, got -1",
		},
		{
			name: "SLACK_APP_TOKEN",
			env:  map[string]string{"SLACK_BOT_TOKEN": fakeslack.BotToken, "SLACK_APP_TOKEN": fakeslack.BotToken},
			want: `SLACK_APP_TOKEN must be an app-level token (xapp-…) with connections:write (see README.md, "Add it to Slack")`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setDemoEnv(t, "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
			clearSlackEnv(t)
			t.Setenv("HTTP_ADDR", heldAddr(t))
			t.Setenv("METRICS_ADDR", heldAddr(t))
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			got := runCLI(t, "", "serve")
			require.Error(t, got.err)
			assert.Equal(t, tt.want, got.err.Error())
			assert.Empty(t, got.stdout, "no web chat address: nothing was served")
		})
	}
}

// heldAddr returns a loopback address the test listens on until it ends.
func heldAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}
