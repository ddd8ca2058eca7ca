package pgpool_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/pgpool"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// roundTrip is the bound the tests give their pools.
const roundTrip = time.Second

// newPool opens a pool on url with pgpool's settings and a round-trip
// bound of roundTrip; cleanup closes it.
func newPool(t *testing.T, url string, adjust func(*pgxpool.Config)) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	require.NoError(t, err)
	pgpool.Configure(cfg, roundTrip)
	if adjust != nil {
		adjust(cfg)
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// within runs fn and fails the test when it has not returned after wait:
// a call the pool's deadlines did not end.
func within(t *testing.T, wait time.Duration, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(wait):
		t.Fatalf("no answer after %s: the round trip has no deadline", wait)
		return nil
	}
}

// Every round trip of a pool ends by its deadline when the server stops
// answering without closing the connection, with an error of the kind
// callers tell users about; the pool works again once the server answers.
func TestRoundTripDeadline(t *testing.T) {
	t.Parallel()
	_, url := storetest.NewWithURL(t)
	p := storetest.NewProxy(t, url)
	pool := newPool(t, p.URL(), func(c *pgxpool.Config) { c.MaxConns = 1 })
	ctx := context.Background() // no deadline of the caller's
	_, err := pool.Exec(ctx, "SELECT 1")
	require.NoError(t, err, "through the proxy")

	t.Run("a statement on a held connection", func(t *testing.T) {
		p.BlackHole()
		defer p.Restore()
		err := within(t, time.Minute, func() error {
			var one int
			return pool.QueryRow(ctx, "SELECT 1").Scan(&one)
		})
		err = pgpool.Classify(err)
		assert.ErrorIs(t, err, pgpool.ErrNoAnswer)
		assert.ErrorIs(t, err, pgpool.ErrUnavailable, "a kind of unavailable")
	})

	t.Run("a transaction", func(t *testing.T) {
		conn, err := pool.Acquire(ctx) // a connection made while bytes flow
		require.NoError(t, err)
		conn.Release()
		p.BlackHole()
		defer p.Restore()
		err = within(t, time.Minute, func() error {
			tx, err := pool.Begin(ctx)
			if err != nil {
				return err
			}
			defer tx.Rollback(ctx) //nolint:errcheck // the error is Begin's or Exec's
			_, err = tx.Exec(ctx, "SELECT 1")
			return err
		})
		assert.ErrorIs(t, pgpool.Classify(err), pgpool.ErrNoAnswer)
	})

	t.Run("waiting for a connection", func(t *testing.T) {
		held, err := pool.Acquire(ctx)
		require.NoError(t, err)
		defer held.Release()
		err = within(t, time.Minute, func() error {
			c, err := pool.Acquire(ctx) // MaxConns is 1: no connection comes
			if err == nil {
				c.Release()
			}
			return err
		})
		assert.ErrorIs(t, pgpool.Classify(err), pgpool.ErrNoAnswer)
	})

	t.Run("lifted for a wait meant to be long", func(t *testing.T) {
		p.BlackHole()
		defer p.Restore()
		caller, cancel := context.WithTimeout(pgpool.WithRoundTrip(ctx, 0), 3*roundTrip)
		defer cancel()
		start := time.Now()
		err := within(t, time.Minute, func() error {
			_, err := pool.Exec(caller, "SELECT 1")
			return err
		})
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.GreaterOrEqual(t, time.Since(start), 3*roundTrip, "only the caller's deadline ended it")
	})

	p.Cut() // what the black hole held is stale
	err = within(t, time.Minute, func() error {
		var one int
		return pool.QueryRow(ctx, "SELECT 1").Scan(&one)
	})
	assert.NoError(t, err, "once the server answers")
}

// A connection attempt to a server that accepts and never answers (a
// black-holing proxy in front of it) fails by the connect timeout
// (DATABASE_TIMEOUT when the URL sets none).
func TestConnectDeadline(t *testing.T) {
	t.Parallel()
	_, url := storetest.NewWithURL(t)
	p := storetest.NewProxy(t, url)
	p.BlackHole()
	pool := newPool(t, p.URL(), nil)
	err := within(t, time.Minute, func() error {
		_, err := pool.Exec(context.Background(), "SELECT 1")
		return err
	})
	require.Error(t, err)
	assert.ErrorIs(t, pgpool.Classify(err), pgpool.ErrNoAnswer)
	assert.False(t, errors.Is(err, context.Canceled), "not the caller's doing: %v", err)
}
