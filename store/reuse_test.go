package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// A remembered result is found again for its dataset and asker while it
// is young enough, from any thread; never for another asker, when it is
// older, or once its thread's cache dropped it.
func TestCacheRecent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	cache := newCache(t, db)
	ann := store.Asker{UserID: "UANN", ChannelID: "C1", Policy: "analysts"}
	r := cachedResult("T1", 7)
	require.NoError(t, cache.Put(ctx, r))
	require.NoError(t, cache.Remember(ctx, r.ThreadID, r.QueryID, "dataset-7", ann))

	got, err := cache.Recent(ctx, "dataset-7", ann, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, r.Result.Rows, got.Result.Rows)
	assert.Equal(t, "T1", got.ThreadID)
	assert.WithinDuration(t, time.Now(), got.CachedAt, time.Minute, "when it ran")

	for name, asker := range map[string]store.Asker{
		"another user":    {UserID: "UBOB", ChannelID: "C1", Policy: "analysts"},
		"another channel": {UserID: "UANN", ChannelID: "C2", Policy: "analysts"},
		"another policy":  {UserID: "UANN", ChannelID: "C1", Policy: "full"},
	} {
		_, err := cache.Recent(ctx, "dataset-7", asker, time.Minute)
		assert.ErrorIs(t, err, store.ErrNotFound, name)
	}
	_, err = cache.Recent(ctx, "dataset-8", ann, time.Minute)
	assert.ErrorIs(t, err, store.ErrNotFound, "another dataset")

	_, err = db.Pool().Exec(ctx, `UPDATE query_results SET created_at = now() - interval '2 minutes' WHERE thread_id = 'T1'`)
	require.NoError(t, err)
	_, err = cache.Recent(ctx, "dataset-7", ann, time.Minute)
	assert.ErrorIs(t, err, store.ErrNotFound, "older than the freshness allows")
	_, err = cache.Recent(ctx, "dataset-7", ann, time.Hour)
	assert.NoError(t, err, "young enough for a longer freshness")

	// The thread keeps its newest results only: the dropped one's record
	// goes with it.
	for i := range 10 {
		require.NoError(t, cache.Put(ctx, cachedResult("T1", 100+i)))
	}
	_, err = cache.Recent(ctx, "dataset-7", ann, time.Hour)
	assert.ErrorIs(t, err, store.ErrNotFound, "gone with its result")
	var left int
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT count(*) FROM result_datasets`).Scan(&left))
	assert.Zero(t, left)
}
