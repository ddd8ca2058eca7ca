package slackapp

import (
	"sync"
	"testing"
	"time"
)

// fakeClock is the app's clock in tests that space progress updates or
// streamed text: it moves only when the test moves it (Advance), so a
// wait of the app's ends at the time the test says, never because the
// machine was slow or fast.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []fakeWait
	// changed is closed and replaced when a wait begins.
	changed chan struct{}
}

// fakeWait is an After under way: c gets the time once the clock
// reaches until.
type fakeWait struct {
	until time.Time
	c     chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC), changed: make(chan struct{})}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := fakeWait{until: c.now.Add(d), c: make(chan time.Time, 1)}
	if d <= 0 {
		w.c <- c.now
		return w.c
	}
	c.waits = append(c.waits, w)
	close(c.changed)
	c.changed = make(chan struct{})
	return w.c
}

// Advance moves the clock on by d and returns how many waits ended.
func (c *fakeClock) Advance(d time.Duration) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	ended := 0
	waits := c.waits[:0]
	for _, w := range c.waits {
		if w.until.After(c.now) {
			waits = append(waits, w)
			continue
		}
		w.c <- c.now
		ended++
	}
	c.waits = waits
	return ended
}

// WaitWaiting blocks until n waits are under way. It fails t after 30 s,
// a bound for the busiest machine, not part of what a test asserts.
func (c *fakeClock) WaitWaiting(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		c.mu.Lock()
		got, changed := len(c.waits), c.changed
		c.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("%d waits on the clock under way after 30s, want %d", got, n)
		}
	}
}
