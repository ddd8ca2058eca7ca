package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Timing of the event stream.
const (
	// eventWriteTimeout bounds writing one event: a client that stops
	// reading without closing must not hold the run (and its worker slot)
	// forever.
	eventWriteTimeout = 30 * time.Second
	// keepAliveInterval spaces the comments that keep proxies from closing
	// a stream that waits on a slow model call.
	keepAliveInterval = 15 * time.Second
)

// eventWriter writes server-sent events, one at a time, each flushed at
// once. The first failed write cancels the run through fail; later events
// are dropped.
type eventWriter struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	fail context.CancelCauseFunc

	mu  sync.Mutex
	err error
}

// startEvents sends the stream's headers and returns its writer.
func startEvents(w http.ResponseWriter, fail context.CancelCauseFunc) *eventWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	// nginx buffers responses unless told not to, which would hold the
	// progress back until the answer is complete.
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	e := &eventWriter{w: w, rc: http.NewResponseController(w), fail: fail}
	e.write([]byte(": stream open\n\n"))
	return e
}

// send writes v as one event.
func (e *eventWriter) send(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		// Only a bug in the event types gets here: end the run visibly.
		e.fail(fmt.Errorf("encode %T event: %w", v, err))
		return
	}
	buf := make([]byte, 0, len(data)+8)
	buf = append(buf, "data: "...)
	buf = append(append(buf, data...), "\n\n"...)
	e.write(buf)
}

func (e *eventWriter) write(p []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil {
		return
	}
	err := e.rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout))
	if errors.Is(err, http.ErrNotSupported) {
		err = nil
	}
	if err == nil {
		_, err = e.w.Write(p)
	}
	if err == nil {
		err = e.rc.Flush()
	}
	if err != nil {
		e.err = err
		e.fail(fmt.Errorf("write event: %w", err))
	}
}

// keepAlive writes a comment every interval until the returned stop is
// called; stop waits for the writer goroutine to end.
func (e *eventWriter) keepAlive(interval time.Duration) (stop func()) {
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				e.write([]byte(": keep-alive\n\n"))
			}
		}
	}()
	return func() {
		close(done)
		<-ended
	}
}

// close clears the write deadline, which would otherwise outlive the
// request on a kept-alive connection.
func (e *eventWriter) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	_ = e.rc.SetWriteDeadline(time.Time{})
}
