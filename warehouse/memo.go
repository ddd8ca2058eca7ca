package warehouse

import (
	"context"
	"sync"
	"time"
)

// Memo keeps what a backend loads about itself (its catalog, a semantic
// layer's model) for a while: it rarely changes, and reading it costs a
// round trip per question.
type Memo[T any] struct {
	// TTL is how long a loaded value is reused.
	TTL time.Duration
	// Load reads the value.
	Load func(ctx context.Context) (T, error)
	// Now returns the current time; nil means time.Now.
	Now func() time.Time

	mu  sync.Mutex
	v   T
	at  time.Time
	set bool
}

// Get returns the value, loading it when there is none yet, it is older
// than TTL, or refresh is set. A failed load keeps the old value for the
// next call but returns the error.
func (m *Memo[T]) Get(ctx context.Context, refresh bool) (T, error) {
	now := time.Now
	if m.Now != nil {
		now = m.Now
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.set && !refresh && now().Sub(m.at) < m.TTL {
		return m.v, nil
	}
	v, err := m.Load(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	m.v, m.at, m.set = v, now(), true
	return v, nil
}
