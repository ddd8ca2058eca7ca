package grounding_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refreshLog is a slog handler that reports each "value index refreshed"
// record on a channel: what an operator reads in the log at each refresh.
type refreshLog struct{ refreshed chan time.Time }

func (h refreshLog) Enabled(context.Context, slog.Level) bool { return true }
func (h refreshLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "value index refreshed" {
		h.refreshed <- r.Time
	}
	return nil
}
func (h refreshLog) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h refreshLog) WithGroup(string) slog.Handler      { return h }

// README: VALUE_INDEX_REFRESH is how often serve reads the values again;
// 0 reads them once, at start. Run is what serve runs with it.
func TestValueIndexRunInterval(t *testing.T) {
	t.Run("0 reads once", func(t *testing.T) {
		ix := demoIndex(t, 0)
		log := refreshLog{refreshed: make(chan time.Time, 10)}
		ix.Log = slog.New(log)
		done := make(chan struct{})
		go func() {
			defer close(done)
			ix.Run(t.Context(), 0)
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatal("Run with interval 0 did not return after its one refresh")
		}
		assert.Len(t, log.refreshed, 1, "one refresh, at start")
	})

	t.Run("an interval reads again until stopped", func(t *testing.T) {
		ix := demoIndex(t, 0)
		log := refreshLog{refreshed: make(chan time.Time, 100)}
		ix.Log = slog.New(log)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		const interval = 50 * time.Millisecond
		go func() {
			defer close(done)
			ix.Run(ctx, interval)
		}()
		var at []time.Time
		for len(at) < 3 {
			select {
			case when := <-log.refreshed:
				at = append(at, when)
			case <-done:
				t.Fatalf("Run returned after %d refreshes with an interval", len(at))
			case <-time.After(time.Minute):
				t.Fatalf("%d refreshes in a minute with an interval of %s", len(at), interval)
			}
		}
		assert.GreaterOrEqual(t, at[2].Sub(at[1]), interval, "the next refresh waits the interval")
		cancel()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatal("Run did not stop when its context ended")
		}
		stats, err := ix.DB.ValueIndexStats(context.Background(), "postgres")
		require.NoError(t, err)
		assert.Equal(t, 7, stats.Indexed, "the demo's text columns stay indexed")
	})
}
