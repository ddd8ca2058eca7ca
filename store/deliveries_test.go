package store_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

func TestClaimDeliveryOnce(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	ctx := context.Background()

	// Two pools stand for two bot processes sharing the database.
	other, err := store.Open(ctx, url)
	require.NoError(t, err)
	t.Cleanup(other.Close)
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pool := db
			if i%2 == 1 {
				pool = other
			}
			ok, err := pool.ClaimDelivery(ctx, "message:C1:1700000000.000100")
			assert.NoError(t, err)
			if ok {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(1), wins.Load(), "exactly one of 20 concurrent claims wins")

	ok, err := db.ClaimDelivery(ctx, "message:C1:1700000000.000200")
	require.NoError(t, err)
	assert.True(t, ok, "a different key is claimed")
}

func TestPruneDeliveries(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	for _, k := range []string{"old-1", "old-2", "old-3", "new"} {
		_, err := db.ClaimDelivery(ctx, k)
		require.NoError(t, err)
	}
	_, err := db.Pool().Exec(ctx, `UPDATE slack_deliveries SET received_at = now() - interval '2 days' WHERE key LIKE 'old-%'`)
	require.NoError(t, err)

	n, err := db.PruneDeliveries(ctx, 24*time.Hour, 2)
	require.NoError(t, err)
	assert.Equal(t, int64(2), n, "one batch deletes at most batch rows")
	n, err = db.PruneDeliveries(ctx, 24*time.Hour, 2)
	require.NoError(t, err)
	assert.Equal(t, int64(1), n, "the next batch deletes the rest")

	ok, err := db.ClaimDelivery(ctx, "old-1")
	require.NoError(t, err)
	assert.True(t, ok, "a pruned key can be claimed again")
	ok, err = db.ClaimDelivery(ctx, "new")
	require.NoError(t, err)
	assert.False(t, ok, "a recent claim survives pruning")
}

func TestHasThread(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	addTurns(t, db, store.Turn{ThreadID: "C1:1700000000.000100", UserMessage: "hi", Intent: "off_topic"})

	got, err := db.HasThread(ctx, "C1:1700000000.000100")
	require.NoError(t, err)
	assert.True(t, got, "a thread with a turn")
	got, err = db.HasThread(ctx, "C1:1700000000.000999")
	require.NoError(t, err)
	assert.False(t, got, "a thread without turns")
}

// ClaimRepeat: a press repeated within the window is not handled again;
// one received the window after the last one handled is, and the window
// then runs from it.
func TestClaimRepeat(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	const window = 10 * time.Second
	for _, tt := range []struct {
		after time.Duration
		want  bool
	}{
		{0, true},
		{9 * time.Second, false},
		{10 * time.Second, true},
		{19 * time.Second, false},
		{20 * time.Second, true},
	} {
		got, err := db.ClaimRepeat(ctx, "press:abc", t0.Add(tt.after), window)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "received %s after the first", tt.after)
	}
	other, err := db.ClaimRepeat(ctx, "press:def", t0.Add(time.Second), window)
	require.NoError(t, err)
	assert.True(t, other, "another press is no repeat")
}
