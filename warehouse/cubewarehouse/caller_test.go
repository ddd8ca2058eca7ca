package cubewarehouse

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/analyticsbot/analyticsbot/cube"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// cubeServer is Cube's REST API as far as these tests need it: the model,
// a one-row answer and the SQL of a query, or refuse, for every /load and
// /sql, with Cube 0.33's HTTP 500 of a queryRewrite that throws (or
// status, when set: 400 for its database's errors). It records, by path,
// who each request's token said it was for.
type cubeServer struct {
	refuse string
	status int
	mu     sync.Mutex
	asker  map[string]any
}

const testSecret = "a-secret-for-tests-only-0123456789"

func (s *cubeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(r.Header.Get("Authorization"), claims, func(*jwt.Token) (any, error) { return []byte(testSecret), nil })
	if err != nil {
		http.Error(w, `{"error":"Invalid token"}`, http.StatusForbidden)
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/cubejs-api/v1")
	s.mu.Lock()
	s.asker[path] = claims[identityClaim]
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if s.refuse != "" && path != "/meta" {
		w.WriteHeader(cmp.Or(s.status, http.StatusInternalServerError))
		_ = json.NewEncoder(w).Encode(map[string]string{"error": s.refuse})
		return
	}
	switch path {
	case "/meta":
		_, _ = io.WriteString(w, oneCube)
	case "/load":
		_, _ = io.WriteString(w, `{"data":[{"Apps.count":"7"}],"annotation":{"measures":{"Apps.count":{"title":"Count","type":"number"}},"dimensions":{},"timeDimensions":{}}}`)
	case "/sql":
		_, _ = io.WriteString(w, `{"sql":{"sql":["SELECT count(*) FROM apps WHERE owner = $1",["ann@x.test"]]}}`)
	default:
		http.NotFound(w, r)
	}
}

// backendAt is a Backend answering through a real Cube client from srv,
// its spans going to tp (the global provider when nil).
func backendAt(t *testing.T, srv *cubeServer, tp ...trace.TracerProvider) *Backend {
	t.Helper()
	srv.asker = map[string]any{}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	cfg := cube.Config{APIURL: hs.URL, Secret: testSecret}
	if len(tp) > 0 {
		cfg.TracerProvider = tp[0]
	}
	c, err := cube.New(cfg)
	require.NoError(t, err)
	return New(c, Config{})
}

// Every request of a question says who asks, the SQL Show SQL shows too:
// a deployment's queryRewrite scopes rows by it (docs/security.md), so the
// SQL shown is the one the answer ran, and a rewrite that refuses a
// request for no one does not leave Show SQL without its SQL.
func TestRequestsSayWhoAsks(t *testing.T) {
	t.Parallel()
	srv := &cubeServer{}
	b := backendAt(t, srv)
	ctx := warehouse.WithCaller(context.Background(), warehouse.Caller{UserID: "U1", Email: "Ann@X.test", ChannelID: "C1"})
	const text = `{"measures": ["Apps.count"]}`

	r, err := b.Check(ctx, text, 100)
	require.NoError(t, err)
	res, err := b.Run(ctx, r)
	require.NoError(t, err)
	assert.Equal(t, [][]any{{int64(7)}}, res.Rows)
	shown := b.Show(ctx, warehouse.Query{Backend: Name, Text: text})
	assert.Contains(t, shown.SQL, "SELECT count(*) FROM apps", "Show SQL shows Cube's SQL")

	want := map[string]any{"user_id": "U1", "user_email": "ann@x.test", "channel_id": "C1"}
	for _, path := range []string{"/load", "/sql"} {
		assert.Equal(t, want, srv.asker[path], "who %s was asked for", path)
	}
}

// A deployment's queryRewrite that throws (docs/security.md's, for a
// request that says no user) makes Cube 0.33 answer HTTP 500 with its
// error: Cube is up and refused, so the question ends as warehouse_denied
// with Cube's own words for the user, not "can't reach Cube" and not a
// query for the generator to rewrite.
func TestQueryRewriteRefusal(t *testing.T) {
	t.Parallel()
	b := backendAt(t, &cubeServer{refuse: "Error: no user: refusing to answer from orders"})
	r, err := b.Check(context.Background(), `{"measures": ["Apps.count"]}`, 100)
	require.NoError(t, err)
	_, err = b.Run(context.Background(), r)
	require.Error(t, err)
	assert.Equal(t, warehouse.Denied, warehouse.KindOf(err), "got %v", err)
	assert.Contains(t, err.Error(), "no user: refusing to answer from orders", "the log keeps the deployment's words")
	assert.Contains(t, b.Dialect().DeniedHint, "queryRewrite", "the user is told it was the semantic layer's own rules")
}

// Cube passes its database's errors on as they are; what they quote from
// the data (a value a cast failed on, of a row the asker may never see)
// is taken out, as PostgreSQL's are, before the generator's retry, the
// log or an MCP client read it. What the query wrote stays, so the retry
// stays useful.
func TestCubeErrorsLoseTheDataTheyQuote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tt := range []struct{ refusal, want string }{
		{`Error: invalid input syntax for type integer: "ann@corp.test"`, `Error: invalid input syntax for type integer: "…"`},
		{`Error: invalid input syntax for type integer: "Portal"`, `Error: invalid input syntax for type integer: "Portal"`},
		{`Error: column "Apps.name" must appear in the GROUP BY clause`, `Error: column "Apps.name" must appear in the GROUP BY clause`},
		{`Error: value "123456789" is out of range for type integer`, `Error: value "…" is out of range for type integer`},
	} {
		fc := &fakeCube{refuse: &cube.QueryError{Message: tt.refusal}}
		b := New(fc, Config{})
		r, err := b.Check(ctx, `{"measures": ["Apps.count"], "filters": [{"member": "Apps.name", "operator": "equals", "values": ["Portal"]}]}`, 100)
		require.NoError(t, err)
		_, err = b.Run(ctx, r)
		require.Error(t, err)
		assert.Equal(t, warehouse.Invalid, warehouse.KindOf(err))
		assert.Equal(t, tt.want, err.Error())
		var qe *cube.QueryError
		require.ErrorAs(t, err, &qe)
		assert.Equal(t, tt.want, qe.Message, "the error wrapped holds no more")
	}
}

// The same errors through a real Cube client: its cube.load span holds no
// more than the error Run returns, for a query Cube's database refused
// (HTTP 400) and for one its own code refused quoting a value (HTTP 500).
func TestCubeErrorSpansLoseTheDataTheyQuote(t *testing.T) {
	t.Parallel()
	const value = "ann@corp.test"
	tests := []struct {
		name     string
		status   int
		refusal  string
		wantKind warehouse.ErrorKind
		want     string
	}{
		{name: "database error", status: http.StatusBadRequest, refusal: `Error: invalid input syntax for type integer: "` + value + `"`,
			wantKind: warehouse.Invalid, want: `Error: invalid input syntax for type integer: "…"`},
		{name: "queryRewrite's error", status: http.StatusInternalServerError, refusal: `Error: no row of "` + value + `" in the access table`,
			wantKind: warehouse.Denied, want: `Error: no row of "…" in the access table`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			b := backendAt(t, &cubeServer{refuse: tt.refusal, status: tt.status}, tp)
			ctx := context.Background()
			r, err := b.Check(ctx, `{"measures": ["Apps.count"], "filters": [{"member": "Apps.name", "operator": "equals", "values": ["Portal"]}]}`, 100)
			require.NoError(t, err)
			_, err = b.Run(ctx, r)
			require.Error(t, err)
			assert.Equal(t, tt.wantKind, warehouse.KindOf(err), "got %v", err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), value, "the error Run returns")

			loads := 0
			for _, s := range rec.Ended() {
				if s.Name() != "cube.load" {
					continue
				}
				loads++
				assert.NotContains(t, s.Status().Description, value, "the span's status")
				require.NotEmpty(t, s.Events(), "the error is recorded on the span")
				for _, ev := range s.Events() {
					for _, a := range ev.Attributes {
						assert.NotContains(t, a.Value.Emit(), value, "the span's event %s, %s", ev.Name, a.Key)
					}
				}
			}
			assert.Equal(t, 1, loads, "cube.load spans")
		})
	}
}

// Show SQL's warning when Cube will not give the SQL keeps the
// deployment's words with what they quote from the data taken out, as the
// errors of Run do (docs/cube.md), whether Cube's database (HTTP 400) or
// a queryRewrite (HTTP 500) refused the request.
func TestShowLogLosesTheDataCubeQuotes(t *testing.T) {
	t.Parallel()
	const value = "ann@corp.test"
	tests := []struct {
		name   string
		status int
	}{
		{name: "database error", status: http.StatusBadRequest},
		{name: "queryRewrite's error", status: http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := backendAt(t, &cubeServer{refuse: `Error: no row of "` + value + `" in the access table`, status: tt.status})
			var log bytes.Buffer
			b.log = slog.New(slog.NewTextHandler(&log, nil))
			shown := b.Show(context.Background(), warehouse.Query{Backend: Name,
				Text: `{"measures": ["Apps.count"], "filters": [{"member": "Apps.name", "operator": "equals", "values": ["Portal"]}]}`})
			assert.Empty(t, shown.SQL, "Cube gave no SQL")
			assert.Contains(t, log.String(), `msg="cube sql"`, "the log says why")
			assert.Contains(t, log.String(), `no row of \"…\" in the access table`, "the deployment's words stay")
			assert.NotContains(t, log.String(), value, "the value they quote does not")
		})
	}
}
