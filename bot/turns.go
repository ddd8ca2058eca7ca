package bot

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// Turn limits' defaults (MAX_TURNS, TURN_QUEUE, TURN_WAIT).
const (
	DefaultMaxTurns  = 256
	DefaultTurnQueue = 1000
	DefaultTurnWait  = 2 * time.Minute
)

// ErrBusy means a turn was not admitted: too many were already waiting,
// or it waited longer than the limit allows. The asker is told to try
// again later; nothing of theirs was lost or half done.
var ErrBusy = errors.New("too many questions at once")

// Turns bounds the turns a process answers at once, whatever surface asks
// (Slack, the web API): MAX_TURNS of them run, up to TURN_QUEUE more wait
// for a place for at most TURN_WAIT, and beyond that a turn is refused at
// once. A turn spends most of its time waiting on the model, so the bound
// is high; what is scarce is limited where it is used: model calls by
// MODEL_CONCURRENCY, the database by its pools.
type Turns struct {
	slots   chan struct{}
	queue   int64
	wait    time.Duration
	waiting atomic.Int64
}

// NewTurns returns a bound of running turns, queue waiting ones and a wait
// of at most wait; non-positive values take the defaults.
func NewTurns(running, queue int, wait time.Duration) *Turns {
	if running <= 0 {
		running = DefaultMaxTurns
	}
	if queue <= 0 {
		queue = DefaultTurnQueue
	}
	if wait <= 0 {
		wait = DefaultTurnWait
	}
	return &Turns{slots: make(chan struct{}, running), queue: int64(queue), wait: wait}
}

// Limit is how many turns run at once.
func (t *Turns) Limit() int { return cap(t.slots) }

// Running is how many turns hold a place now.
func (t *Turns) Running() int { return len(t.slots) }

// MaxWait is the longest a turn waits for a place.
func (t *Turns) MaxWait() time.Duration { return t.wait }

// Waiting is how many turns wait for a place now.
func (t *Turns) Waiting() int { return int(t.waiting.Load()) }

// Admit takes a place for a turn. With one free it returns at once. Else,
// when fewer than the queue's bound are waiting, it calls queued (if not
// nil: the asker can be told they wait) and waits up to the wait limit;
// otherwise it fails with ErrBusy without waiting. It fails with ErrBusy
// when the wait runs out and with ctx's error when ctx ends first.
// release gives the place back; call it exactly once.
func (t *Turns) Admit(ctx context.Context, queued func()) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case t.slots <- struct{}{}:
		return t.release, nil
	default:
	}
	if t.waiting.Add(1) > t.queue {
		t.waiting.Add(-1)
		return nil, ErrBusy
	}
	defer t.waiting.Add(-1)
	if queued != nil {
		queued()
	}
	timer := time.NewTimer(t.wait)
	defer timer.Stop()
	select {
	case t.slots <- struct{}{}:
		if ctx.Err() != nil {
			// select picks at random among ready cases: an ended caller
			// must not take the place.
			<-t.slots
			return nil, ctx.Err()
		}
		return t.release, nil
	case <-timer.C:
		return nil, ErrBusy
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (t *Turns) release() { <-t.slots }

// Wait counts the caller among the waiting turns while it waits for
// something that comes before its place: the earlier question of its
// thread, which a front end answers first. It shares TURN_QUEUE with
// Admit's waiters, so a question queued behind its thread is bounded as
// one queued for a place; ok is false, and nothing is counted, when the
// queue is full. done stops counting; call it exactly once when ok,
// before Admit. The caller bounds the wait itself (MaxWait).
func (t *Turns) Wait() (done func(), ok bool) {
	if t.waiting.Add(1) > t.queue {
		t.waiting.Add(-1)
		return nil, false
	}
	return func() { t.waiting.Add(-1) }, true
}
