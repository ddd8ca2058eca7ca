package warehouse

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Memo keeps what a backend loads about itself (its catalog, a semantic
// layer's model) for a while: it rarely changes, and reading it costs a
// round trip per question.
//
// One load runs at a time; the questions that need the value meanwhile
// wait for that load, each only as long as its own context lets it, so a
// backend that hangs holds every question up to its own deadline, not to
// the first question's.
type Memo[T any] struct {
	// TTL is how long a loaded value is reused.
	TTL time.Duration
	// Load reads the value.
	Load func(ctx context.Context) (T, error)
	// Now returns the current time; nil means time.Now.
	Now func() time.Time

	mu     sync.Mutex
	v      T
	at     time.Time
	set    bool
	flight *load[T]
	// loads counts the loads started, numbering them.
	loads uint64
}

// load is one run of Memo.Load that callers share: done closes when v and
// err are set.
type load[T any] struct {
	done chan struct{}
	v    T
	err  error
	// n is the load's number (Memo.loads when it started).
	n uint64
	// waiting counts the calls that joined the load (under Memo.mu).
	waiting int
}

// Get returns the value, loading it when there is none yet, it is older
// than TTL, or refresh is set. A failed load keeps the old value for the
// next call but returns the error. A call that finds a load running joins
// it, and returns ctx's error if ctx ends first; a refresh joins only a
// load that started after it was asked for, since one that started before
// may have read the value it must not get again. A load that failed only
// because the caller that started it went away is started again for a
// caller still waiting.
func (m *Memo[T]) Get(ctx context.Context, refresh bool) (T, error) {
	var zero T
	m.mu.Lock()
	asked := m.loads // a refresh wants a load numbered after this
	m.mu.Unlock()
	for {
		m.mu.Lock()
		if m.set && !refresh && m.now().Sub(m.at) < m.TTL {
			v := m.v
			m.mu.Unlock()
			return v, nil
		}
		f := m.flight
		if f == nil {
			m.loads++
			f = &load[T]{done: make(chan struct{}), n: m.loads}
			m.flight = f
			m.mu.Unlock()
			m.run(ctx, f)
			return f.v, f.err
		}
		f.waiting++
		m.mu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
			return zero, ctx.Err()
		}
		if refresh && f.n <= asked {
			continue // it read what may be the old value: load again
		}
		if f.err != nil && ctx.Err() == nil &&
			(errors.Is(f.err, context.Canceled) || errors.Is(f.err, context.DeadlineExceeded)) {
			continue
		}
		return f.v, f.err
	}
}

// run loads into f under ctx, keeps the value when it loaded, and lets the
// callers waiting on f go, even when Load panics (the panic goes on up
// the caller that started the load).
func (m *Memo[T]) run(ctx context.Context, f *load[T]) {
	defer func() {
		if r := recover(); r != nil {
			f.err = fmt.Errorf("load panicked: %v", r)
			m.finish(f)
			panic(r)
		}
		m.finish(f)
	}()
	v, err := m.Load(ctx)
	f.v, f.err = v, err
	if err != nil {
		var zero T
		f.v = zero
	}
}

// finish records f's value, when it has one, and ends f.
func (m *Memo[T]) finish(f *load[T]) {
	m.mu.Lock()
	if f.err == nil {
		m.v, m.at, m.set = f.v, m.now(), true
	}
	m.flight = nil
	m.mu.Unlock()
	close(f.done)
}

// waiting is how many calls wait on the load running now; 0 when none runs.
func (m *Memo[T]) waiting() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.flight == nil {
		return 0
	}
	return m.flight.waiting
}

func (m *Memo[T]) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}
