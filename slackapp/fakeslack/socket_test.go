package fakeslack

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recordingTB stands in for a test that the fake should fail: Fatalf
// records the message and ends the goroutine, as testing.T does.
type recordingTB struct {
	testing.TB
	mu     sync.Mutex
	failed string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.failed = fmt.Sprintf(format, args...)
	r.mu.Unlock()
	runtime.Goexit()
}

// failure runs f with a recordingTB and returns what it failed with, "" if
// it returned normally.
func failure(t *testing.T, f func(tb testing.TB)) string {
	t.Helper()
	rec := &recordingTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(rec)
	}()
	<-done
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.failed
}

func TestWaitsFailAfterTimeout(t *testing.T) {
	t.Parallel()
	s := New(t)
	s.waitTimeout = 20 * time.Millisecond
	tests := []struct {
		name string
		wait func(tb testing.TB)
		want string
	}{
		{name: "calls", wait: func(tb testing.TB) { s.WaitCalls(tb, "chat.postMessage", 1) }, want: `waiting for 1 calls of "chat.postMessage"`},
		{name: "message", wait: func(tb testing.TB) { s.WaitMessage(tb, "the answer", func(Message) bool { return true }) }, want: "waiting for message: the answer"},
		{name: "file", wait: func(tb testing.TB) { s.WaitFile(tb, func(File) bool { return true }) }, want: "waiting for a file"},
		{name: "ack", wait: func(tb testing.TB) { s.WaitAck(tb, "env-1") }, want: "waiting for the ack of envelope env-1"},
		{name: "connection", wait: func(tb testing.TB) { s.WaitConnected(tb) }, want: "waiting for a Socket Mode connection"},
		{name: "send without client", wait: func(tb testing.TB) { s.Send(tb, Envelope{Type: "events_api", Payload: json.RawMessage(`{}`)}) }, want: "no Socket Mode client is connected"},
		{name: "send without payload", wait: func(tb testing.TB) { s.Send(tb, Envelope{Type: "events_api"}) }, want: "has no payload"},
	}
	for _, tc := range tests {
		got := failure(t, tc.wait)
		assert.Contains(t, got, tc.want, "%s: got failure %q", tc.name, got)
	}
}

func TestTimestampsSortAndAreUnique(t *testing.T) {
	t.Parallel()
	s := New(t)
	s.mu.Lock()
	defer s.mu.Unlock()
	first := s.nextTS()
	assert.Equal(t, "1700000000.000100", first)
	prev := first
	for range 20000 { // crosses whole seconds
		ts := s.nextTS()
		require.Greater(t, ts, prev)
		require.Len(t, ts, len(first))
		prev = ts
	}
}

// dial opens a raw WebSocket to the fake and reads its hello.
func dial(t *testing.T, s *Server) *websocket.Conn {
	t.Helper()
	conn, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(s.URL, "http")+"/socket", nil)
	require.NoError(t, err)
	resp.Body.Close()
	t.Cleanup(func() { conn.Close() })
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(WaitTimeout)))
	_, hello, err := conn.ReadMessage()
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"hello","num_connections":1,"debug_info":{"host":"fake","build_number":1,"approximate_connection_time":18060},"connection_info":{"app_id":"AFAKE001"}}`, string(hello))
	return conn
}

func readJSON(t *testing.T, conn *websocket.Conn) string {
	t.Helper()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(WaitTimeout)))
	_, msg, err := conn.ReadMessage()
	require.NoError(t, err)
	return string(msg)
}

func TestSocketWireFormat(t *testing.T) {
	t.Parallel()
	s := New(t)
	first := dial(t, s)
	s.WaitConnected(t)
	second := dial(t, s)
	s.WaitConnects(t, 2)

	id := s.Send(t, Envelope{Type: "events_api", Payload: json.RawMessage(`{"type":"event_callback"}`), EnvelopeID: "env-1", RetryAttempt: 2, RetryReason: "timeout"})
	assert.Equal(t, "env-1", id)
	assert.JSONEq(t, `{"envelope_id":"env-1","type":"events_api","payload":{"type":"event_callback"},"accepts_response_payload":false,"retry_attempt":2,"retry_reason":"timeout"}`,
		readJSON(t, second), "the most recent connection gets the envelope")

	require.NoError(t, second.WriteMessage(websocket.TextMessage, []byte(`{"envelope_id":"env-1","payload":{"text":"ok"}}`)))
	ack := s.WaitAck(t, "env-1")
	assert.JSONEq(t, `{"text":"ok"}`, string(ack.Payload))

	s.Disconnect("warning")
	assert.JSONEq(t, `{"type":"disconnect","reason":"warning","debug_info":{"host":"fake"}}`, readJSON(t, second))
	_, _, err := second.ReadMessage()
	var closeErr *websocket.CloseError
	require.ErrorAs(t, err, &closeErr, "the fake closes the socket after disconnect")
	assert.Equal(t, websocket.CloseNormalClosure, closeErr.Code)

	id = s.Send(t, Envelope{Type: "interactive", Payload: json.RawMessage(`{"type":"block_actions"}`), AcceptsResponsePayload: true})
	assert.JSONEq(t, fmt.Sprintf(`{"envelope_id":%q,"type":"interactive","payload":{"type":"block_actions"},"accepts_response_payload":true}`, id),
		readJSON(t, first), "the older connection gets envelopes once the newer is gone, and got none before")
}

// TestSocketSendToOneOfSeveralConnections connects two clients, as two
// processes of one app do: each envelope reaches the connection it is sent
// to and no other, and the ack says which connection it came on.
func TestSocketSendToOneOfSeveralConnections(t *testing.T) {
	t.Parallel()
	s := New(t)
	first := dial(t, s)
	s.WaitConnects(t, 1)
	second := dial(t, s)
	s.WaitConnects(t, 2)

	for _, tc := range []struct {
		name string
		conn int
		ws   *websocket.Conn
	}{
		{name: "to the first", conn: 1, ws: first},
		{name: "to the second", conn: 2, ws: second},
		{name: "to the first again", conn: 1, ws: first},
	} {
		id := s.SendTo(t, tc.conn, Envelope{Type: "events_api", Payload: json.RawMessage(`{"type":"event_callback"}`)})
		got := readJSON(t, tc.ws)
		assert.Contains(t, got, `"envelope_id":"`+id+`"`, "%s: the envelope reaches connection %d", tc.name, tc.conn)
		require.NoError(t, tc.ws.WriteMessage(websocket.TextMessage, []byte(`{"envelope_id":"`+id+`"}`)))
		assert.Equal(t, tc.conn, s.WaitAck(t, id).Conn, "%s: the ack came on connection %d", tc.name, tc.conn)
	}

	// Neither connection got an envelope meant for the other: the next
	// frame each reads is the one sent to it now.
	for conn, ws := range map[int]*websocket.Conn{1: first, 2: second} {
		id := s.SendTo(t, conn, Envelope{Type: "interactive", Payload: json.RawMessage(`{"type":"block_actions"}`)})
		assert.Contains(t, readJSON(t, ws), `"envelope_id":"`+id+`"`, "connection %d reads only its own envelopes", conn)
	}

	require.NoError(t, first.Close())
	s.waitFor(t, "the first connection to close", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.conns) == 1
	}, func() string { return "still open" })
	got := failure(t, func(tb testing.TB) {
		s.SendTo(tb, 1, Envelope{Type: "events_api", Payload: json.RawMessage(`{}`)})
	})
	assert.Contains(t, got, "Socket Mode connection 1 is not open", "a closed connection gets nothing")
	got = failure(t, func(tb testing.TB) {
		s.SendTo(tb, 0, Envelope{Type: "events_api", Payload: json.RawMessage(`{}`)})
	})
	assert.Contains(t, got, "numbered from 1")
}

func TestSocketPingsAndClose(t *testing.T) {
	t.Parallel()
	s := New(t)
	conn := dial(t, s)
	pinged := make(chan string, 1)
	conn.SetPingHandler(func(data string) error {
		select {
		case pinged <- data:
		default:
		}
		return nil
	})
	readErr := make(chan error, 1)
	go func() {
		_ = conn.SetReadDeadline(time.Now().Add(WaitTimeout))
		_, _, err := conn.ReadMessage() // runs the ping handler; returns when the fake closes
		readErr <- err
	}()
	select {
	case data := <-pinged:
		assert.Equal(t, "fakeslack", data)
	case <-time.After(3 * pingInterval):
		t.Fatal("the fake sent no WebSocket ping")
	}

	s.Close() // waits for the fake's connection goroutines
	var closeErr *websocket.CloseError
	require.ErrorAs(t, <-readErr, &closeErr)
	assert.Equal(t, websocket.CloseGoingAway, closeErr.Code)
	s.Close() // a second Close, as t.Cleanup will do, is harmless
}
