package cube

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"
)

const testSecret = "test-secret"

// reply is one scripted answer of the fake.
type reply struct {
	status int
	body   string
	hang   bool // never answer: block until the client gives up
}

func ok(body string) reply            { return reply{status: http.StatusOK, body: body} }
func status(code int, b string) reply { return reply{status: code, body: b} }

var waitReply = ok(`{"error":"Continue wait"}`)

// request is what the fake recorded of one request.
type request struct {
	method, path, auth string
	body               map[string]any
}

// fakeCube is an httptest fake of Cube's REST API. Each request to a path
// takes the next scripted reply, the last one repeating. Like Cube, it
// answers 403 to a token not signed with its secret.
type fakeCube struct {
	t       *testing.T
	srv     *httptest.Server
	secret  string
	release chan struct{} // closed at cleanup, to end hanging handlers

	mu       sync.Mutex
	replies  map[string][]reply
	requests []request
	arrived  chan string // the path of each request, as it arrives
}

func newFake(t *testing.T) *fakeCube {
	t.Helper()
	f := &fakeCube{
		t: t, secret: testSecret, release: make(chan struct{}),
		replies: map[string][]reply{}, arrived: make(chan string, 100),
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		close(f.release)
		f.srv.Close()
	})
	return f
}

// script sets the replies to requests on an endpoint ("load", "meta", "sql").
func (f *fakeCube) script(endpoint string, replies ...reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.replies["/cubejs-api/v1/"+endpoint] = replies
}

func (f *fakeCube) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	rec := request{method: r.Method, path: r.URL.Path, auth: r.Header.Get("Authorization")}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &rec.body); err != nil {
			http.Error(w, `{"error":"bad json"}`, http.StatusBadRequest)
			return
		}
	}
	f.mu.Lock()
	f.requests = append(f.requests, rec)
	queue := f.replies[r.URL.Path]
	var rep reply
	switch len(queue) {
	case 0:
		rep = status(http.StatusNotFound, `{"error":"no reply scripted for `+r.URL.Path+`"}`)
	case 1:
		rep = queue[0]
	default:
		rep, f.replies[r.URL.Path] = queue[0], queue[1:]
	}
	f.mu.Unlock()
	select {
	case f.arrived <- r.URL.Path:
	default: // nobody is counting arrivals beyond the buffer
	}

	if _, err := jwt.Parse(rec.auth, func(*jwt.Token) (any, error) { return []byte(f.secret), nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired()); err != nil {
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"error":"Invalid token"}`)
		return
	}
	if rep.hang {
		select {
		case <-r.Context().Done():
		case <-f.release:
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.status)
	fmt.Fprint(w, rep.body)
}

// calls returns the requests received so far.
func (f *fakeCube) calls() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.requests...)
}

// fastConfig is a config against the fake whose waits take a millisecond,
// so retry and polling tests run quickly without sleeping.
func (f *fakeCube) fastConfig() Config {
	return Config{
		APIURL:         f.srv.URL,
		Secret:         testSecret,
		Timeout:        10 * time.Second,
		Retries:        3,
		BackoffInitial: time.Millisecond,
		BackoffMax:     2 * time.Millisecond,
		PollInterval:   time.Millisecond,
	}
}

func (f *fakeCube) client(mods ...func(*Config)) *Client {
	f.t.Helper()
	cfg := f.fastConfig()
	for _, mod := range mods {
		mod(&cfg)
	}
	c, err := New(cfg)
	require.NoError(f.t, err)
	return c
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// testMeta is the data model of testdata/meta-0.33.json, the /meta answer
// of a real Cube 0.33.65 (cubes Apps and Publishers; a private join cube and
// a private measure that Cube itself leaves out).
func testMeta(t *testing.T) *Meta {
	t.Helper()
	m, err := ParseMeta([]byte(readFile(t, "testdata/meta-0.33.json")))
	require.NoError(t, err)
	return m
}
