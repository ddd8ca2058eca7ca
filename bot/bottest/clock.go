package bottest

import (
	"sync"
	"time"
)

// Clock is a time the test moves by hand: its Now is the bot's and the
// scheduler's clock (Bot.SetClock, scheduler options).
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock set at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the time last set.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}
