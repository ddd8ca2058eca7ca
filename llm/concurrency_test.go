package llm

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

// gatedModel holds every call until release is closed, counting the calls
// in flight.
type gatedModel struct {
	release           chan struct{}
	entered, inFlight atomic.Int32
	mu                sync.Mutex
	most              int32
}

func (g *gatedModel) GenerateContent(ctx context.Context, _ []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	n := g.inFlight.Add(1)
	defer g.inFlight.Add(-1)
	g.mu.Lock()
	g.most = max(g.most, n)
	g.mu.Unlock()
	g.entered.Add(1)
	select {
	case <-g.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "ok"}}}, nil
}

func (g *gatedModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, g, prompt, opts...)
}

// With MODEL_CONCURRENCY 3, ten calls at once reach the model three at a
// time; the others wait and then all complete.
func TestCompleteConcurrency(t *testing.T) {
	t.Parallel()
	m := &gatedModel{release: make(chan struct{})}
	c := NewClient(m, WithConcurrency(3))
	var started atomic.Int32
	var wg sync.WaitGroup
	errs := make([]error, 10)
	for i := range errs {
		wg.Go(func() {
			started.Add(1)
			_, _, errs[i] = c.Complete(context.Background(), StepClassify, "q")
		})
	}
	for started.Load() < 10 || m.entered.Load() < 3 {
		runtime.Gosched()
	}
	for range 1000 { // give a call that ignored the bound every chance to show
		runtime.Gosched()
	}
	assert.EqualValues(t, 3, m.inFlight.Load(), "three calls at the model, the rest waiting")
	close(m.release)
	wg.Wait()
	for _, err := range errs {
		assert.NoError(t, err)
	}
	assert.EqualValues(t, 3, m.most, "never more than three at once")
	assert.EqualValues(t, 10, m.entered.Load(), "every call made")
}

// A call waiting for a place gives up when its caller does.
func TestCompleteConcurrencyWaitEndsWithTheCaller(t *testing.T) {
	t.Parallel()
	m := &gatedModel{release: make(chan struct{})}
	defer close(m.release)
	c := NewClient(m, WithConcurrency(1))
	go func() { _, _, _ = c.Complete(context.Background(), StepClassify, "holds the place") }()
	for m.entered.Load() < 1 {
		runtime.Gosched()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, _, err := c.Complete(ctx, StepClassify, "waits")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.EqualValues(t, 1, m.entered.Load(), "the waiting call never reached the model")
}

// A 429 that says how long to wait is sent again after that wait, with the
// same body; one that does not, or asks too long, is returned as it is.
func TestRetryAfter(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var bodies []string
	answers := map[string][]func(http.ResponseWriter){}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		queue := answers[r.URL.Path]
		answer := queue[0]
		answers[r.URL.Path] = queue[1:]
		mu.Unlock()
		answer(w)
	}))
	t.Cleanup(srv.Close)
	limited := func(header, value string) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			if header != "" {
				w.Header().Set(header, value)
			}
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"error": "rate limited"}`)
		}
	}
	ok := func(w http.ResponseWriter) { _, _ = io.WriteString(w, "fine") }
	answers["/ms"] = []func(http.ResponseWriter){limited("Retry-After-Ms", "30"), limited("Retry-After", "0"), ok}
	answers["/none"] = []func(http.ResponseWriter){limited("", ""), ok}
	answers["/long"] = []func(http.ResponseWriter){limited("Retry-After", "3600"), ok}

	client := newHTTPClient()
	post := func(path string) (int, string) {
		req, err := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(`{"prompt": "q"}`))
		require.NoError(t, err)
		resp, err := client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	start := time.Now()
	status, body := post("/ms")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "fine", body)
	assert.GreaterOrEqual(t, time.Since(start), 30*time.Millisecond, "the asked wait was waited")
	assert.Equal(t, []string{`{"prompt": "q"}`, `{"prompt": "q"}`, `{"prompt": "q"}`}, bodies, "the same body each time")

	status, _ = post("/none")
	assert.Equal(t, http.StatusTooManyRequests, status, "no wait given: Client's backoff decides")
	status, _ = post("/long")
	assert.Equal(t, http.StatusTooManyRequests, status, "an hour is not waited out")
}

func TestRetryAfterWait(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		header, value string
		want          time.Duration
		ok            bool
	}{
		{"Retry-After", "7", 7 * time.Second, true},
		{"Retry-After", "Wed, 25 Nov 2026 09:00:05 GMT", 5 * time.Second, true},
		{"Retry-After", "Wed, 25 Nov 2026 08:00:00 GMT", 0, true},
		{"Retry-After-Ms", "250", 250 * time.Millisecond, true},
		{"Retry-After", "soon", 0, false},
		{"", "", 0, false},
	} {
		h := http.Header{}
		if tt.header != "" {
			h.Set(tt.header, tt.value)
		}
		got, ok := retryAfterWait(h, now)
		assert.Equal(t, tt.ok, ok, "%s: %s", tt.header, tt.value)
		assert.Equal(t, tt.want, got, "%s: %s", tt.header, tt.value)
	}
}
