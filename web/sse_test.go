package web

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flushCounter counts the flushes of the response it wraps.
type flushCounter struct {
	http.ResponseWriter
	flushes *atomic.Int32
}

func (f flushCounter) Flush() {
	f.flushes.Add(1)
	f.ResponseWriter.(http.Flusher).Flush()
}

func (f flushCounter) Unwrap() http.ResponseWriter { return f.ResponseWriter }

// A burst of events (a reply's text deltas) reaches the client while the
// run still waits for more, in a few writes to the socket rather than one
// an event.
func TestEventStreamCoalescesABurst(t *testing.T) {
	t.Parallel()
	const burst = 200
	var flushes atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancelCause(r.Context())
		defer cancel(nil)
		out := startEvents(flushCounter{w, &flushes}, cancel)
		defer out.close()
		for i := range burst {
			out.send(textDeltaEvent{Type: "text_delta", Text: strings.Repeat("w", i%7+1) + " "})
		}
		select { // the model is still thinking
		case <-release:
		case <-ctx.Done():
		}
		out.send(errorEvent{Type: "error", Message: "last"})
	}))
	t.Cleanup(srv.Close)
	defer close(release)

	resp, err := http.Get(srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data: ") {
				lines <- sc.Text()
			}
		}
	}()
	start := time.Now()
	for i := range burst {
		select {
		case l := <-lines:
			assert.Contains(t, l, `"type":"text_delta"`, "event %d", i)
		case <-time.After(5 * time.Second):
			t.Fatalf("event %d of the burst did not arrive while the run waits", i)
		}
	}
	t.Logf("the burst of %d events arrived in %v, in %d flushes", burst, time.Since(start), flushes.Load())
	assert.LessOrEqual(t, flushes.Load(), int32(burst/10), "flushes for a burst of %d events", burst)
}

// A lone event (a step's status before a long model call) reaches the
// client without another event to push it out: the run sends one and
// then waits, sending nothing more, until the client has it. The
// response's headers go out with it: before, the client has nothing.
func TestEventStreamSendsALoneEvent(t *testing.T) {
	t.Parallel()
	received := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancelCause(r.Context())
		defer cancel(nil)
		out := startEvents(w, cancel)
		defer out.close()
		out.send(statusEvent{Type: "status", Node: "generate_query"})
		select { // the model is still thinking
		case <-received:
		case <-ctx.Done():
		}
	}))
	t.Cleanup(srv.Close)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // a client that gave up ends the run
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	lines := make(chan string, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			lines <- err.Error()
			return
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data: ") {
				lines <- sc.Text()
				return
			}
		}
	}()
	select {
	case l := <-lines:
		assert.Contains(t, l, `"type":"status"`)
		assert.Contains(t, l, `"node":"generate_query"`)
	case <-time.After(5 * time.Second): // a hang guard, not a target: it comes in milliseconds
		t.Error("the lone event did not arrive while the run waits")
	}
	close(received)
}
