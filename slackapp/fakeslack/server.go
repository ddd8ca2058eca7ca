package fakeslack

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// Identity of the fake workspace, bot and app.
const (
	// BotToken is the bot token the fake accepts for Web API calls.
	BotToken = "xoxb-fake-bot-token"
	// AppToken is the app-level token the fake accepts for apps.connections.open.
	AppToken = "xapp-fake-app-token"
	// BotUserID is the bot's user id, as auth.test reports it.
	BotUserID = "UBOT0001"
	// BotID is the bot's bot id, as auth.test reports it.
	BotID = "BBOT0001"
	// TeamID is the id of the fake workspace.
	TeamID = "TFAKE001"
	// AppID is the id of the fake app.
	AppID = "AFAKE001"
)

// WaitTimeout is how long the Wait methods wait before failing the test.
const WaitTimeout = 10 * time.Second

// Server is a running fake Slack. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL of the fake, http://127.0.0.1:port with no trailing slash.
	URL string

	srv         *httptest.Server
	upgrader    websocket.Upgrader
	waitTimeout time.Duration // WaitTimeout; shortened by this package's own tests
	closeOnce   sync.Once
	wg          sync.WaitGroup // WebSocket handlers and pingers

	mu sync.Mutex
	// changed is closed and replaced on every state change, waking waiters.
	changed      chan struct{}
	closed       bool
	base         string // URL, for handlers: they read it under mu
	seq          int    // last message timestamp handed out
	ids          int    // last id handed out for files, envelopes, tickets, response URLs
	calls        []Call
	messages     []Message
	history      []Message // a snapshot of a message after each post or update
	files        []File
	uploads      map[string]*upload
	statuses     []Status
	prompts      []Prompts
	titles       []Title
	experience   Experience             // SetExperience
	faults       map[string][]fault     // injected failures, used first to last
	uploadHold   chan struct{}          // HoldUploads: uploads wait until it is closed
	releaseHold  func()                 // closes uploadHold, once
	holds        map[string]*methodHold // HoldMethod, by method
	stickyErrors map[string]string
	refusedTypes map[string]bool // RefuseBlockType
	notInChannel map[string]bool
	gone         map[string]bool     // channels deleted by DeleteChannel
	emails       map[string]string   // users.info addresses set by SetUserEmail
	timeZones    map[string]string   // users.info time zones set by SetUserTimeZone
	deleted      map[string]bool     // users.info deactivated users, set by SetUserDeactivated
	members      map[string][]string // conversations.members set by SetMembers
	scopes       []string            // SetScopes; nil: Scopes
	userGroups   map[string][]string // SetUserGroup
	responses    map[string]responseTarget
	conns        []*wsConn // open Socket Mode connections, oldest first
	connects     int
	acks         []Ack
}

// New starts a fake Slack on a loopback port. t.Cleanup closes it, its
// WebSocket connections included.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{
		// slack-go dials with "Origin: https://api.slack.com", which
		// gorilla's default same-origin check would refuse.
		upgrader:     websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }},
		waitTimeout:  WaitTimeout,
		changed:      make(chan struct{}),
		uploads:      map[string]*upload{},
		faults:       map[string][]fault{},
		stickyErrors: map[string]string{},
		refusedTypes: map[string]bool{},
		notInChannel: map[string]bool{},
		gone:         map[string]bool{},
		emails:       map[string]string{},
		userGroups:   map[string][]string{},
		responses:    map[string]responseTarget{},
		holds:        map[string]*methodHold{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/", s.serveAPI)
	mux.HandleFunc("POST /upload/{id}", s.serveUpload)
	mux.HandleFunc("POST /response/{id}", s.serveResponseURL)
	mux.HandleFunc("GET /socket", s.serveSocket)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	s.mu.Lock()
	s.base = s.URL
	s.mu.Unlock()
	t.Cleanup(s.Close)
	return s
}

// APIURL is the Web API base URL for slack.OptionAPIURL.
func (s *Server) APIURL() string { return s.URL + "/api/" }

// Close closes the WebSocket connections, waits for their goroutines and
// stops the HTTP server. It is safe to call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		conns := s.conns
		s.conns = nil
		s.notify()
		release := s.releaseHold
		s.mu.Unlock()
		if release != nil {
			release()
		}
		s.releaseHolds()
		for _, c := range conns {
			c.close(websocket.CloseGoingAway, "server closing")
		}
		s.wg.Wait()
		s.srv.Close()
	})
}

// Call is one request the fake answered.
type Call struct {
	// Method is the Web API method, e.g. "chat.postMessage"; "upload" for a
	// file sent to an upload URL (Args holds its file_id) and
	// "response_url" for a post to a response URL. Failures can be
	// injected into these two like into any method.
	Method string
	// Args are the form fields; for JSON bodies, the top-level fields (strings
	// as they are, other values as their JSON text). The token is in Token,
	// not here.
	Args url.Values
	// Token is the token used, from the Authorization header or the token field.
	Token string
	// Status is the HTTP status the fake answered.
	Status int
	// Error is the Slack error code answered, "" when the call succeeded
	// or the answer was FailNext's HTML page (Status tells those apart).
	Error string
	// Detail explains Error when the fake found the fault itself, e.g. which
	// block broke which limit.
	Detail string
	// At is when the call arrived.
	At time.Time
}

// Calls returns the calls of method in arrival order; method "" returns all.
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.callsLocked(method)
}

func (s *Server) callsLocked(method string) []Call {
	var out []Call
	for _, c := range s.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// WaitCalls waits until at least n calls of method ("" for any) have been
// answered and returns them all. It fails t after WaitTimeout.
func (s *Server) WaitCalls(t testing.TB, method string, n int) []Call {
	t.Helper()
	var got []Call
	s.waitFor(t, fmt.Sprintf("%d calls of %q", n, method), func() bool {
		got = s.Calls(method)
		return len(got) >= n
	}, func() string {
		return fmt.Sprintf("got %d: %s", len(got), s.callSummary())
	})
	return got
}

func (s *Server) callSummary() string {
	calls := s.Calls("")
	parts := make([]string, len(calls))
	for i, c := range calls {
		parts[i] = c.Method
		if c.Error != "" {
			parts[i] += "(" + c.Error + ")"
		}
	}
	return "calls so far: [" + strings.Join(parts, " ") + "]"
}

// notify wakes every waiter. Callers hold s.mu.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) changedChan() chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// waitFor calls check, without holding s.mu, until it reports true, and
// after every state change. It fails t after s.waitTimeout naming what, with
// explain's text when given.
func (s *Server) waitFor(t testing.TB, what string, check func() bool, explain func() string) {
	t.Helper()
	deadline := time.NewTimer(s.waitTimeout)
	defer deadline.Stop()
	for {
		// Taking the channel before checking means a change made after the
		// check has already closed it.
		ch := s.changedChan()
		if check() {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			msg := ""
			if explain != nil {
				msg = "; " + explain()
			}
			t.Fatalf("fakeslack: timed out after %s waiting for %s%s", s.waitTimeout, what, msg)
			return
		}
	}
}

// nextID hands out a process-unique number. Callers hold s.mu.
func (s *Server) nextID() int {
	s.ids++
	return s.ids
}

// nextTS hands out a message timestamp in Slack's "seconds.micros" form;
// each is later than the one before and sorts after it as a string.
// Callers hold s.mu.
func (s *Server) nextTS() string {
	s.seq++
	micros := int64(s.seq) * 100
	return fmt.Sprintf("%d.%06d", 1700000000+micros/1_000_000, micros%1_000_000)
}

// writeJSON answers with a JSON body.
func writeJSON(w http.ResponseWriter, status int, body any) {
	b, err := json.Marshal(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
