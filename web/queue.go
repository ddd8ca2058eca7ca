package web

import (
	"context"
	"sync"

	"github.com/analyticsbot/analyticsbot/bot"
)

// threadQueues keeps the questions of one thread in order: a question
// asked while the thread's previous one is still being answered waits for
// it, so the follow-up reads the answer it follows. Waiters of a thread
// go in the order they came (a channel's waiting senders are served first
// in, first out). They wait as questions waiting for a place do: within
// TURN_QUEUE, for at most TURN_WAIT.
type threadQueues struct {
	mu sync.Mutex
	m  map[string]*threadQueue
}

type threadQueue struct {
	turn  chan struct{} // holds one token while a question of the thread runs
	users int           // questions holding or waiting for the turn
}

// enter waits for thread's turn, calling queued first when it must wait.
// A question that waits counts among turns' waiting ones: with
// TURN_QUEUE of them waiting it fails at once with bot.ErrBusy. ctx
// bounds the wait (the caller gives it TURN_WAIT). leave gives the turn to
// the next question; call it exactly once when err is nil.
func (q *threadQueues) enter(ctx context.Context, thread string, turns *bot.Turns, queued func()) (leave func(), err error) {
	q.mu.Lock()
	if q.m == nil {
		q.m = map[string]*threadQueue{}
	}
	t := q.m[thread]
	if t == nil {
		t = &threadQueue{turn: make(chan struct{}, 1)}
		q.m[thread] = t
	}
	t.users++
	q.mu.Unlock()
	done := func() {
		q.mu.Lock()
		if t.users--; t.users == 0 {
			delete(q.m, thread)
		}
		q.mu.Unlock()
	}
	select {
	case t.turn <- struct{}{}:
		return func() { <-t.turn; done() }, nil
	default:
	}
	stopWaiting, ok := turns.Wait()
	if !ok {
		done()
		return nil, bot.ErrBusy
	}
	defer stopWaiting()
	if queued != nil {
		queued()
	}
	select {
	case t.turn <- struct{}{}:
		if ctx.Err() != nil {
			<-t.turn
			done()
			return nil, ctx.Err()
		}
		return func() { <-t.turn; done() }, nil
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
}
