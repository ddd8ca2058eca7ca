package pgwarehouse

import (
	"context"
	"sync"
	"time"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// errTooBusy is the failure of a query that could not start in time: the
// caller's own queries, or everyone's, held the connections it needed.
var errTooBusy = warehouse.Errorf(warehouse.Busy, "too many queries are running")

// callers bounds how many queries each caller runs at once, so that one
// person (a script over MCP, questions in many threads, a schedule's
// owner) cannot hold every connection of the reader's pool while the
// others wait past DATABASE_TIMEOUT.
type callers struct {
	max int
	mu  sync.Mutex
	// slots holds each running caller's semaphore, dropped when its last
	// query ends.
	slots map[string]*slot
}

type slot struct {
	sem   chan struct{}
	users int // queries running or waiting
}

func newCallers(max int) callers {
	return callers{max: max, slots: map[string]*slot{}}
}

// start waits, up to wait, until c may run one more query and returns
// the function that ends it; past wait it fails with errTooBusy. A
// canceled ctx ends the wait with its error.
func (c *callers) start(ctx context.Context, who warehouse.Caller, wait time.Duration) (func(), error) {
	// By the surface's id, which every path sets (a question, a press, a
	// schedule run as its owner); some set the address too, some not.
	key := who.UserID
	if key == "" {
		key = who.Email
	}
	c.mu.Lock()
	s := c.slots[key]
	if s == nil {
		s = &slot{sem: make(chan struct{}, c.max)}
		c.slots[key] = s
	}
	s.users++
	c.mu.Unlock()
	leave := func() {
		c.mu.Lock()
		if s.users--; s.users == 0 {
			delete(c.slots, key)
		}
		c.mu.Unlock()
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case s.sem <- struct{}{}:
		return func() { <-s.sem; leave() }, nil
	case <-timer.C:
		leave()
		return nil, errTooBusy
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
}
