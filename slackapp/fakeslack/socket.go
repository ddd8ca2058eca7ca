package fakeslack

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// Socket Mode timing.
const (
	// pingInterval is how often the fake pings clients; slack-go drops a
	// connection that has not been pinged for 30 s.
	pingInterval = 2 * time.Second
	writeTimeout = 5 * time.Second
)

// Envelope is a Socket Mode message to deliver to the client.
type Envelope struct {
	// Type is "events_api", "interactive" or "slash_commands".
	Type string
	// Payload is the JSON Slack would send over HTTP for the same thing, e.g.
	// EventCallback(...), BlockAction(...) or a SlashCommand(...) object.
	Payload json.RawMessage
	// EnvelopeID identifies the envelope in the client's ack; generated when "".
	EnvelopeID string
	// RetryAttempt and RetryReason describe a redelivery (events_api only).
	RetryAttempt int
	RetryReason  string
	// AcceptsResponsePayload says the ack may carry a response payload.
	AcceptsResponsePayload bool
}

// Ack is an acknowledgement a Socket Mode client sent.
type Ack struct {
	// EnvelopeID is the envelope acknowledged.
	EnvelopeID string
	// Payload is the response payload, nil when the ack had none.
	Payload json.RawMessage
	// At is when the fake read it.
	At time.Time
	// Conn is the number of the connection it came on (see SendTo).
	Conn int
}

// wsConn is one Socket Mode connection. Data frames are written under
// writeMu because gorilla/websocket allows one writer at a time; control
// frames may be written concurrently.
type wsConn struct {
	// n numbers the connection: 1 for the first the fake accepted, as
	// Connects counts them.
	n         int
	ws        *websocket.Conn
	writeMu   sync.Mutex
	done      chan struct{}
	closeOnce sync.Once
}

func (c *wsConn) writeJSON(v any) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if err := c.ws.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil {
		return fmt.Errorf("set write deadline: %w", err)
	}
	return c.ws.WriteJSON(v)
}

// close sends a close frame and closes the connection, which ends its
// reader and pinger.
func (c *wsConn) close(code int, text string) {
	c.closeOnce.Do(func() {
		_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(writeTimeout))
		_ = c.ws.Close()
		close(c.done)
	})
}

// serveSocket answers GET /socket: it upgrades, says hello, then pings the
// client and records its acks until the connection ends.
func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		http.Error(w, "fakeslack is closed", http.StatusServiceUnavailable)
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()

	ws, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has answered the client
	}
	c := &wsConn{ws: ws, done: make(chan struct{})}
	defer s.dropConn(c)
	hello := map[string]any{
		"type":            "hello",
		"num_connections": 1,
		"debug_info":      map[string]any{"host": "fake", "build_number": 1, "approximate_connection_time": 18060},
		"connection_info": map[string]any{"app_id": AppID},
	}
	if err := c.writeJSON(hello); err != nil {
		c.close(websocket.CloseInternalServerErr, "")
		return
	}

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		c.close(websocket.CloseGoingAway, "server closing")
		return
	}
	s.connects++
	c.n = s.connects
	s.conns = append(s.conns, c)
	s.wg.Add(1)
	s.notify()
	s.mu.Unlock()

	go func() {
		defer s.wg.Done()
		c.ping()
	}()
	s.readAcks(c)
}

// ping pings the client every pingInterval until the connection closes.
func (c *wsConn) ping() {
	ticker := time.NewTicker(pingInterval)
	defer ticker.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-ticker.C:
			if err := c.ws.WriteControl(websocket.PingMessage, []byte("fakeslack"), time.Now().Add(writeTimeout)); err != nil {
				return
			}
		}
	}
}

// readAcks records the client's acks until the connection fails. gorilla's
// default ping handler answers the client's pings while it reads.
func (s *Server) readAcks(c *wsConn) {
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			return
		}
		var msg struct {
			EnvelopeID string          `json:"envelope_id"`
			Payload    json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(data, &msg) != nil || msg.EnvelopeID == "" {
			continue // Slack ignores what is not an ack
		}
		s.mu.Lock()
		s.acks = append(s.acks, Ack{EnvelopeID: msg.EnvelopeID, Payload: msg.Payload, At: time.Now(), Conn: c.n})
		s.notify()
		s.mu.Unlock()
	}
}

// dropConn closes c and forgets it.
func (s *Server) dropConn(c *wsConn) {
	c.close(websocket.CloseNormalClosure, "")
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, o := range s.conns {
		if o == c {
			s.conns = append(s.conns[:i:i], s.conns[i+1:]...)
			s.notify()
			return
		}
	}
}

// current is the most recent open connection, nil when none. Callers hold s.mu.
func (s *Server) current() *wsConn {
	if len(s.conns) == 0 {
		return nil
	}
	return s.conns[len(s.conns)-1]
}

// WaitConnected waits until a Socket Mode client has an open connection that
// has been sent hello. It fails t after WaitTimeout.
func (s *Server) WaitConnected(t testing.TB) {
	t.Helper()
	s.waitFor(t, "a Socket Mode connection", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.current() != nil
	}, func() string { return fmt.Sprintf("%d connections so far; %s", s.Connects(), s.callSummary()) })
}

// Connects returns how many Socket Mode connections the fake has accepted,
// reconnections included.
func (s *Server) Connects() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connects
}

// WaitConnects waits until the fake has accepted n Socket Mode connections
// in all, reconnections included. It fails t after WaitTimeout.
func (s *Server) WaitConnects(t testing.TB, n int) {
	t.Helper()
	s.waitFor(t, fmt.Sprintf("%d Socket Mode connections", n), func() bool { return s.Connects() >= n },
		func() string { return fmt.Sprintf("%d so far", s.Connects()) })
}

// Send delivers an envelope to one connection, the most recently
// connected, and returns its envelope id. It fails t when no client is
// connected.
//
// Slack sends each envelope to exactly one of an app's open connections,
// whichever it picks: several processes connected with the same app token
// share the events between them, and none sees all of them. A redelivery
// (RetryAttempt) may reach another connection than the first attempt did.
// The fake picks the newest connection, where Slack sends while a client
// replaces a connection it was told to refresh; tests of several processes
// pick with SendTo.
func (s *Server) Send(t testing.TB, e Envelope) string {
	t.Helper()
	return s.send(t, 0, e)
}

// SendTo delivers an envelope to connection number conn (1 for the first
// the fake accepted, as Connects counts them), as Slack may pick any open
// connection of the app, and returns its envelope id. It fails t when that
// connection is not open.
func (s *Server) SendTo(t testing.TB, conn int, e Envelope) string {
	t.Helper()
	if conn <= 0 {
		t.Fatalf("fakeslack: SendTo(%d, %s): connections are numbered from 1", conn, e.Type)
		return ""
	}
	return s.send(t, conn, e)
}

// send delivers e to connection number conn, or to the newest when conn is 0.
func (s *Server) send(t testing.TB, conn int, e Envelope) string {
	t.Helper()
	if len(e.Payload) == 0 {
		t.Fatalf("fakeslack: Send(%s): the envelope has no payload", e.Type)
		return ""
	}
	s.mu.Lock()
	c := s.current()
	if conn != 0 {
		c = nil
		for _, o := range s.conns {
			if o.n == conn {
				c = o
			}
		}
	}
	if e.EnvelopeID == "" {
		e.EnvelopeID = newUUID()
	}
	s.mu.Unlock()
	switch {
	case c == nil && conn != 0:
		t.Fatalf("fakeslack: SendTo(%d, %s): Socket Mode connection %d is not open", conn, e.Type, conn)
		return ""
	case c == nil:
		t.Fatalf("fakeslack: Send(%s): no Socket Mode client is connected", e.Type)
		return ""
	}
	msg := map[string]any{
		"envelope_id":              e.EnvelopeID,
		"type":                     e.Type,
		"payload":                  e.Payload,
		"accepts_response_payload": e.AcceptsResponsePayload,
	}
	if e.Type == "events_api" {
		msg["retry_attempt"] = e.RetryAttempt
		msg["retry_reason"] = e.RetryReason
	}
	if err := c.writeJSON(msg); err != nil {
		t.Fatalf("fakeslack: Send(%s): %v", e.Type, err)
	}
	return e.EnvelopeID
}

// Acks returns the acks received, in order.
func (s *Server) Acks() []Ack {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Ack(nil), s.acks...)
}

// WaitAck waits for the client's ack of envelopeID and returns it. It fails
// t after WaitTimeout.
func (s *Server) WaitAck(t testing.TB, envelopeID string) Ack {
	t.Helper()
	var found Ack
	s.waitFor(t, "the ack of envelope "+envelopeID, func() bool {
		for _, a := range s.Acks() {
			if a.EnvelopeID == envelopeID {
				found = a
				return true
			}
		}
		return false
	}, func() string { return fmt.Sprintf("%d other acks so far", len(s.Acks())) })
	return found
}

// Disconnect asks the most recent client to reconnect, as Slack does before
// it retires a connection: it sends {"type":"disconnect","reason":reason}
// and closes the socket. The connection no longer counts for
// WaitConnected, so a WaitConnected after it waits for the reconnection.
func (s *Server) Disconnect(reason string) {
	s.mu.Lock()
	c := s.current()
	if c != nil {
		s.conns = s.conns[:len(s.conns)-1]
		s.notify()
	}
	s.mu.Unlock()
	if c == nil {
		return
	}
	_ = c.writeJSON(map[string]any{
		"type":       "disconnect",
		"reason":     reason,
		"debug_info": map[string]any{"host": "fake"},
	})
	c.close(websocket.CloseNormalClosure, "")
}
