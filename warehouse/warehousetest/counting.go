package warehousetest

import (
	"context"
	"sync/atomic"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Counting is a backend that counts the queries it checks and those its
// dialect fingerprints, each a parse of the query, so that a test can
// show a turn parses its query once. Everything else goes to Backend as
// it is; the optional interfaces Backend may have (warehouse.Permitter,
// …) do not.
type Counting struct {
	warehouse.Backend
	// Checks counts Check's calls, Fingerprints those of the dialect's
	// Fingerprint.
	Checks, Fingerprints atomic.Int64
}

// Check implements warehouse.Backend.
func (c *Counting) Check(ctx context.Context, text string, limit int) (warehouse.Runnable, error) {
	c.Checks.Add(1)
	return c.Backend.Check(ctx, text, limit)
}

// Dialect implements warehouse.Backend: Backend's, counting Fingerprint.
func (c *Counting) Dialect() warehouse.Dialect {
	d := c.Backend.Dialect()
	if fingerprint := d.Fingerprint; fingerprint != nil {
		d.Fingerprint = func(query string) (string, error) {
			c.Fingerprints.Add(1)
			return fingerprint(query)
		}
	}
	return d
}
