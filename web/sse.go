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
	// flushDelay is how long an event may wait in the response's buffer
	// for the ones that follow it: a step's result and the next step's
	// status, a burst of text deltas go out in one write to the socket
	// instead of one each, none later than flushDelay after it was written.
	flushDelay = 10 * time.Millisecond
)

// eventWriter writes server-sent events, one at a time, each flushed
// within flushDelay with whatever was written meanwhile. The first failed
// write cancels the run through fail; later events are dropped.
type eventWriter struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	fail context.CancelCauseFunc

	mu     sync.Mutex
	err    error
	buf    []byte      // the event being encoded, reused
	timer  *time.Timer // flushes what is written since; nil when nothing waits
	closed bool
}

// startEvents sends the stream's headers and returns its writer.
func startEvents(w http.ResponseWriter, fail context.CancelCauseFunc) *eventWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
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
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil || e.closed {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		// Only a bug in the event types gets here: end the run visibly.
		e.fail(fmt.Errorf("encode %T event: %w", v, err))
		return
	}
	buf := append(e.buf[:0], "data: "...)
	buf = append(append(buf, data...), "\n\n"...)
	e.buf = buf
	e.writeLocked(buf)
}

func (e *eventWriter) write(p []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil || e.closed {
		return
	}
	e.writeLocked(p)
}

// writeLocked writes p to the response's buffer and has it flushed
// flushDelay later, with what comes meanwhile.
func (e *eventWriter) writeLocked(p []byte) {
	starts := e.timer == nil // else the flush already due takes p too
	// The buffer may fill and write to the connection, and the flush
	// writes the rest, all within flushDelay: one deadline covers them.
	if starts && !e.deadline() {
		return
	}
	if _, err := e.w.Write(p); err != nil {
		e.failed(err)
		return
	}
	if starts {
		e.timer = time.AfterFunc(flushDelay, e.flushDue)
	}
}

// flushDue is the timer's flush of what was written since the last one.
func (e *eventWriter) flushDue() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.timer == nil || e.closed || e.err != nil {
		return
	}
	e.timer = nil
	e.flushLocked()
}

// deadline sets the write deadline of the next writes to the connection;
// false when that failed (and the run is cancelled).
func (e *eventWriter) deadline() bool {
	err := e.rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout))
	if err != nil && !errors.Is(err, http.ErrNotSupported) {
		e.failed(err)
		return false
	}
	return true
}

func (e *eventWriter) flushLocked() {
	if err := e.rc.Flush(); err != nil {
		e.failed(err)
	}
}

func (e *eventWriter) failed(err error) {
	e.err = err
	e.fail(fmt.Errorf("write event: %w", err))
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

// close flushes what is still to be flushed, stops the writer (the
// response is about to end) and clears the write deadline, which would
// otherwise outlive the request on a kept-alive connection.
func (e *eventWriter) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	e.closed = true
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
		if e.err == nil {
			e.flushLocked()
		}
	}
	_ = e.rc.SetWriteDeadline(time.Time{})
}
