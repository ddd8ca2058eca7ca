package web

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// The package's tests (the browser test too) share one database, migrated
// and with the demo data loaded once; they keep apart by thread id.

// Facts of the demo data, checked against the Steam dataset.
const (
	q2018     = "How many games were released in 2018?"
	sql2018   = "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018"
	games2018 = "8160"
	games2017 = "6357"
	// The counts as the answer's text says them: as its table writes them.
	said2018 = "8,160"
	said2017 = "6,357"
	csv2018  = "games\n8160\n"
)

// testTimeout bounds one request or one wait of a test.
const testTimeout = time.Minute

// testDB is the package's database, migrated and with the demo data
// loaded once.
var testDB storetest.Shared

func TestMain(m *testing.M) {
	os.Exit(storetest.Main(m, "web", &testDB, bottest.LoadDemo))
}

// needDB skips (or, with CI=true, fails) a test without the database.
func needDB(t testing.TB) {
	t.Helper()
	testDB.Need(t)
}

// demoScript returns the offline demo's rules with extra rules first.
func demoScript(extra string) string { return bottest.DemoScript(extra) }

// newTestBot builds a bot on the package database. An empty script runs the
// built-in demo (with its suggested questions); otherwise the scripted
// model plays script. adjust changes the configuration first.
func newTestBot(t testing.TB, script string, adjust ...func(*bot.Config)) *bot.Bot {
	t.Helper()
	needDB(t)
	return bottest.New(t, testDB.URL, script, adjust...)
}

// newTestServer serves New(b, cfg) until the test ends.
func newTestServer(t testing.TB, b *bot.Bot, cfg Config) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(New(b, cfg, testLogger(t)))
	t.Cleanup(srv.Close)
	return srv
}

// testLogger shows warnings in the test's output.
func testLogger(t testing.TB) *slog.Logger { return bottest.Logger(t) }

// unissuedThreadID returns a well-formed web thread id the server never
// issued: a client choosing its own.
func unissuedThreadID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "web-" + hex.EncodeToString(b[:])
}

// doJSON sends a request with a JSON body (nil for none) and returns the
// response with its body read.
func doJSON(t testing.TB, srv *httptest.Server, method, path string, body any, header http.Header) (*http.Response, []byte) {
	t.Helper()
	var r io.Reader
	if body != nil {
		data, ok := body.([]byte)
		if !ok {
			var err error
			data, err = json.Marshal(body)
			require.NoError(t, err, "encode request")
		}
		r = bytes.NewReader(data)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, srv.URL+path, r)
	require.NoError(t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	setHeader(req, header)
	resp, err := srv.Client().Do(req)
	require.NoError(t, err, "%s %s", method, path)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err, "read the response of %s %s", method, path)
	return resp, data
}

// setHeader adds header to req; "Host" sets the Host the server sees.
func setHeader(req *http.Request, header http.Header) {
	for k, v := range header {
		if k == "Host" {
			req.Host = v[0]
			continue
		}
		req.Header[k] = v
	}
}

// errorBody decodes {"error": …}, failing the test on any other shape.
func errorBody(t testing.TB, data []byte) string {
	t.Helper()
	var e struct {
		Error string `json:"error"`
	}
	require.NoError(t, json.Unmarshal(data, &e), "error body %s", data)
	require.NotEmpty(t, e.Error, "error body %s", data)
	return e.Error
}

// sseEvent is one event of the chat stream: its type and its JSON.
type sseEvent struct {
	Type string
	Raw  json.RawMessage
}

// decode reads the event's JSON into v.
func (e sseEvent) decode(t testing.TB, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(e.Raw, v), "event %s", e.Raw)
}

// sseStream reads a chat stream event by event from a goroutine, so a
// test can wait on the next event with a deadline.
type sseStream struct {
	resp   *http.Response
	cancel context.CancelFunc
	events chan sseEvent
	done   chan error // the reader's end: nil at EOF
}

// chat asks question (in thread, "" for a new one) and returns the open
// stream; it fails the test unless the server answered 200 with
// text/event-stream.
func chat(t testing.TB, srv *httptest.Server, thread, question string, header http.Header) *sseStream {
	t.Helper()
	body := map[string]any{"messages": []map[string]string{{"role": "user", "content": question}}}
	if thread != "" {
		body["thread_id"] = thread
	}
	data, err := json.Marshal(body)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/api/chat/stream", bytes.NewReader(data))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	setHeader(req, header)
	resp, err := srv.Client().Do(req)
	if err != nil {
		cancel()
		t.Fatalf("POST /api/chat/stream: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		t.Fatalf("POST /api/chat/stream: got status %d (%s), want 200", resp.StatusCode, b)
	}
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"), "stream content type")
	s := &sseStream{resp: resp, cancel: cancel, events: make(chan sseEvent, 1024), done: make(chan error, 1)}
	go s.read()
	t.Cleanup(s.close)
	return s
}

// read parses `data:` lines into events until the body ends.
func (s *sseStream) read() {
	defer close(s.events)
	br := bufio.NewReader(s.resp.Body)
	var data []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if errors.Is(err, io.EOF) && line == "" {
				err = nil
			}
			s.done <- err
			return
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" && len(data) > 0:
			raw := json.RawMessage(strings.Join(data, "\n"))
			var head struct {
				Type string `json:"type"`
			}
			if err := json.Unmarshal(raw, &head); err != nil {
				s.done <- fmt.Errorf("event is not JSON: %s", raw)
				return
			}
			s.events <- sseEvent{Type: head.Type, Raw: raw}
			data = nil
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
}

// next returns the next event, or ok false when the stream ended.
func (s *sseStream) next(t testing.TB) (ev sseEvent, ok bool) {
	t.Helper()
	select {
	case ev, ok = <-s.events:
		return ev, ok
	case <-time.After(testTimeout):
		t.Fatal("no event within", testTimeout)
		return sseEvent{}, false
	}
}

// until reads events up to and including the first of type typ (and node,
// when given), failing if the stream ends first.
func (s *sseStream) until(t testing.TB, typ, node string) []sseEvent {
	t.Helper()
	var seen []sseEvent
	for {
		ev, ok := s.next(t)
		if !ok {
			t.Fatalf("the stream ended before a %s event (node %q); saw %s", typ, node, types(seen))
		}
		seen = append(seen, ev)
		if ev.Type != typ {
			continue
		}
		if node == "" {
			return seen
		}
		var n struct {
			Node string `json:"node"`
		}
		ev.decode(t, &n)
		if n.Node == node {
			return seen
		}
	}
}

// all reads the stream to its end and checks it ended cleanly.
func (s *sseStream) all(t testing.TB) []sseEvent {
	t.Helper()
	var evs []sseEvent
	for {
		ev, ok := s.next(t)
		if !ok {
			require.NoError(t, <-s.done, "the stream must end cleanly")
			return evs
		}
		evs = append(evs, ev)
	}
}

// close drops the connection, as a browser tab that closes does.
func (s *sseStream) close() {
	s.cancel()
	s.resp.Body.Close()
}

// types lists the events' types, for failure messages.
func types(evs []sseEvent) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}
