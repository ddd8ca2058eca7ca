package cube

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadQuery is the query testdata/load-0.33.json answers.
var loadQuery = Query{
	Measures:       []string{"Apps.count", "Publishers.count"},
	Dimensions:     []string{"Publishers.name"},
	TimeDimensions: []TimeDimension{{Dimension: "Apps.releaseDate", Granularity: "year", DateRange: []string{"2018-01-01", "2018-12-31"}}},
	Order:          Order{{"Apps.count", "desc"}},
	Limit:          3,
}

func TestLoad(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.script("load", ok(readFile(t, "testdata/load-0.33.json")))

	res, err := f.client().Load(t.Context(), loadQuery)
	require.NoError(t, err)

	calls := f.calls()
	require.Len(t, calls, 1)
	assert.Equal(t, "POST", calls[0].method)
	assert.Equal(t, "/cubejs-api/v1/load", calls[0].path)
	assert.Equal(t, map[string]any{"query": map[string]any{
		"measures":       []any{"Apps.count", "Publishers.count"},
		"dimensions":     []any{"Publishers.name"},
		"timeDimensions": []any{map[string]any{"dimension": "Apps.releaseDate", "granularity": "year", "dateRange": []any{"2018-01-01", "2018-12-31"}}},
		"order":          []any{[]any{"Apps.count", "desc"}},
		"limit":          float64(3),
	}}, calls[0].body)

	assert.Equal(t, []Column{
		{Name: "release_date_year", Member: "Apps.releaseDate", Type: "time", Granularity: "year"},
		{Name: "name", Member: "Publishers.name", Type: "string"},
		{Name: "apps_count", Member: "Apps.count", Type: "number"},
		{Name: "publishers_count", Member: "Publishers.count", Type: "number"},
	}, res.Columns)
	assert.Equal(t, [][]any{
		{"2018-01-01", "Big Fish Games", int64(44), int64(1)},
		{"2018-01-01", "Laush Studio", int64(42), int64(1)},
		{"2018-01-01", "Ripknot Systems", int64(42), int64(1)},
	}, res.Rows)
}

func TestLoadContinueWait(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.script("load", waitReply, waitReply, ok(`{"data":[{"Apps.count":"27075"}],"annotation":{"measures":{"Apps.count":{"type":"number"}}}}`))

	res, err := f.client().Load(t.Context(), Query{Measures: []string{"Apps.count"}})
	require.NoError(t, err)
	assert.Equal(t, [][]any{{int64(27075)}}, res.Rows)

	calls := f.calls()
	require.Len(t, calls, 3, "got %d requests, want 2 polls and the answer", len(calls))
	assert.Equal(t, calls[0].body, calls[2].body, "a poll must repeat the same request")
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	const data = `{"data":[{"Apps.count":"1"}],"annotation":{"measures":{"Apps.count":{"type":"number"}}}}`
	tests := []struct {
		name      string
		replies   []reply
		secret    string
		wantIs    error
		wantQuery string // *QueryError message
		// wantRefused is the *RefusedError message
		wantRefused string
		wantErr     string
		wantCalls   int
	}{
		{name: "503 twice then OK", replies: []reply{status(503, `{"error":"starting"}`), status(503, ""), ok(data)}, wantCalls: 3},
		{name: "502 and 504 retried", replies: []reply{status(502, "<html>bad gateway</html>"), status(504, ""), ok(data)}, wantCalls: 3},
		{name: "retry then continue wait", replies: []reply{status(503, ""), waitReply, status(503, ""), ok(data)}, wantCalls: 4},
		{name: "503 until the retries run out", replies: []reply{status(503, `{"error":"Service Unavailable"}`)},
			wantIs: ErrUnavailable, wantErr: "cube load: cube is unavailable after 4 attempts: HTTP 503: Service Unavailable", wantCalls: 4},
		{name: "400 not retried", replies: []reply{status(400, `{"type":"UserError","error":"'foo' not found for path 'Apps.foo'","stack":"Error: ..."}`)},
			wantQuery: "'foo' not found for path 'Apps.foo'", wantErr: "cube load: cube rejected the query: 'foo' not found for path 'Apps.foo'", wantCalls: 1},
		{name: "database error", replies: []reply{status(400, `{"error":"Error: division by zero"}`)},
			wantQuery: "Error: division by zero", wantCalls: 1},
		{name: "error with status 200", replies: []reply{ok(`{"error":"Query should contain either measures, dimensions or timeDimensions with granularities in order to be valid"}`)},
			wantQuery: "Query should contain either measures, dimensions or timeDimensions with granularities in order to be valid", wantCalls: 1},
		{name: "401", replies: []reply{status(401, `{"error":"Authorization header isn't set"}`)},
			wantIs: ErrUnauthorized, wantErr: "cube load: cube rejected the token: check CUBE_API_SECRET (HTTP 401: Authorization header isn't set)", wantCalls: 1},
		{name: "wrong secret", replies: []reply{ok(data)}, secret: "not-the-secret",
			wantIs: ErrUnauthorized, wantErr: "cube load: cube rejected the token: check CUBE_API_SECRET (HTTP 403: Invalid token)", wantCalls: 1},
		{name: "500 with Cube's error is its refusal, not retried", replies: []reply{status(500, `{"error":"Error: no user: refusing to answer from orders"}`)},
			wantRefused: "Error: no user: refusing to answer from orders",
			wantErr:     "cube load: cube refused the query with an error of its own (HTTP 500): Error: no user: refusing to answer from orders", wantCalls: 1},
		{name: "500 of a proxy", replies: []reply{status(500, "<html>Internal Server Error</html>")},
			wantIs: ErrUnavailable, wantErr: "cube load: cube is unavailable after 1 attempt: HTTP 500: <html>Internal Server Error</html>", wantCalls: 1},
		{name: "a query's own error quoting a connection error's words", replies: []reply{status(400, `{"error":"Error: invalid input syntax for type integer: \"connect ECONNREFUSED 10.0.0.1:5432\""}`)},
			wantQuery: `Error: invalid input syntax for type integer: "connect ECONNREFUSED 10.0.0.1:5432"`, wantCalls: 1},
		{name: "its database's password refused", replies: []reply{status(400, `{"error":"Error: password authentication failed for user \"cube\""}`)},
			wantIs: ErrUnavailable, wantErr: `cube load: cube is unavailable: Cube could not reach its database: Error: password authentication failed for user "cube"`, wantCalls: 1},
		{name: "its database unknown", replies: []reply{status(400, `{"error":"Error: getaddrinfo ENOTFOUND db.internal"}`)},
			wantIs: ErrUnavailable, wantErr: "cube load: cube is unavailable: Cube could not reach its database: Error: getaddrinfo ENOTFOUND db.internal", wantCalls: 1},
		{name: "its database unreachable", replies: []reply{status(400, `{"error":"Error: connect ECONNREFUSED 127.0.0.1:5999"}`)},
			wantIs: ErrUnavailable, wantErr: "cube load: cube is unavailable: Cube could not reach its database: Error: connect ECONNREFUSED 127.0.0.1:5999", wantCalls: 1},
		{name: "not Cube at that address", replies: []reply{status(404, "<html><body>Not Found</body></html>")},
			wantIs: ErrUnavailable, wantErr: "cube load: cube is unavailable after 1 attempt: HTTP 404: <html><body>Not Found</body></html>", wantCalls: 1},
		{name: "unreadable answer", replies: []reply{ok("<html>")},
			wantIs: ErrUnavailable, wantErr: "cube load: cube is unavailable: unreadable answer: invalid character '<' looking for beginning of value", wantCalls: 1},
		{name: "answer without data", replies: []reply{ok(`{"query":{}}`)},
			wantIs: ErrUnavailable, wantErr: "cube load: cube is unavailable: the answer has no data", wantCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t)
			f.script("load", tt.replies...)
			c := f.client(func(cfg *Config) {
				if tt.secret != "" {
					cfg.Secret = tt.secret
				}
			})

			res, err := c.Load(t.Context(), Query{Measures: []string{"Apps.count"}})
			assert.Len(t, f.calls(), tt.wantCalls, "got %d requests, want %d", len(f.calls()), tt.wantCalls)
			switch {
			case tt.wantRefused != "":
				var re *RefusedError
				require.ErrorAs(t, err, &re, "got %v, want a *RefusedError", err)
				assert.Equal(t, tt.wantRefused, re.Message)
				assert.NotErrorIs(t, err, ErrUnavailable)
			case tt.wantQuery != "":
				var qe *QueryError
				require.ErrorAs(t, err, &qe, "got %v, want a *QueryError", err)
				assert.Equal(t, tt.wantQuery, qe.Message)
				assert.NotErrorIs(t, err, ErrUnavailable)
			case tt.wantIs != nil:
				require.ErrorIs(t, err, tt.wantIs)
				var qe *QueryError
				assert.False(t, errors.As(err, &qe), "got a *QueryError, want %v only", tt.wantIs)
			default:
				require.NoError(t, err)
				assert.Equal(t, [][]any{{int64(1)}}, res.Rows)
			}
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
			}
		})
	}
}

func TestLoadHangingServer(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.script("load", reply{hang: true})
	c := f.client(func(cfg *Config) { cfg.Timeout = 100 * time.Millisecond })

	start := time.Now()
	_, err := c.Load(t.Context(), Query{Measures: []string{"Apps.count"}})
	elapsed := time.Since(start)
	require.ErrorIs(t, err, ErrUnavailable)
	assert.NotErrorIs(t, err, context.DeadlineExceeded, "Timeout running out must not look like the caller's deadline")
	assert.EqualError(t, err, "cube load: cube is unavailable: no answer within 100ms")
	// Without the overall timeout the call would wait for the hanging
	// server until the test ends; the bound is loose so a slow machine passes.
	assert.Less(t, elapsed, 5*time.Second, "got an answer after %s, want it soon after the 100ms timeout", elapsed)
	assert.Len(t, f.calls(), 1, "a timed-out request must not be retried past Timeout")
}

func TestLoadStillRunningAtTimeout(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.script("load", waitReply)
	c := f.client(func(cfg *Config) { cfg.Timeout = 50 * time.Millisecond })

	_, err := c.Load(t.Context(), Query{Measures: []string{"Apps.count"}})
	require.ErrorIs(t, err, ErrUnavailable)
	assert.Contains(t, err.Error(), "cube load: cube is unavailable: the query did not finish within 50ms (")
	assert.Greater(t, len(f.calls()), 1, "got %d requests, want the query polled", len(f.calls()))
}

func TestLoadCallerCanceled(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.script("load", reply{hang: true})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		select {
		case <-f.arrived: // cancel once the request is in flight
		case <-time.After(10 * time.Second):
		}
		cancel()
	}()

	_, err := f.client().Load(ctx, Query{Measures: []string{"Apps.count"}})
	require.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, ErrUnavailable, "the caller's cancellation is not Cube being down")
	assert.EqualError(t, err, "cube load: context canceled")
}

func TestLoadConnectionRefused(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now

	var dials atomic.Int32
	transport := &http.Transport{DialContext: func(ctx context.Context, network, address string) (net.Conn, error) {
		dials.Add(1)
		return (&net.Dialer{}).DialContext(ctx, network, address)
	}}
	t.Cleanup(transport.CloseIdleConnections)
	c, err := New(Config{
		APIURL: "http://" + addr, Secret: testSecret, Retries: 2,
		BackoffInitial: time.Millisecond, BackoffMax: 2 * time.Millisecond,
		HTTPClient: &http.Client{Transport: transport},
	})
	require.NoError(t, err)

	_, err = c.Load(t.Context(), Query{Measures: []string{"Apps.count"}})
	require.ErrorIs(t, err, ErrUnavailable)
	assert.Contains(t, err.Error(), "cube load: cube is unavailable after 3 attempts: ")
	assert.Contains(t, err.Error(), "connection refused")
	assert.Equal(t, int32(3), dials.Load(), "got %d connection attempts, want 1 + 2 retries", dials.Load())
}
