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
	ann := store.Asker{UserID: "UANN", Email: "ann@example.com", ChannelID: "C1", Policy: "analysts"}
	r := cachedResult("T1", 7)
	r.RunFor = ann
	require.NoError(t, cache.Put(ctx, r))
	require.NoError(t, cache.Remember(ctx, r.ThreadID, r.QueryID, "dataset-7"))

	got, err := cache.Recent(ctx, "dataset-7", ann, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, r.Result.Rows, got.Result.Rows)
	assert.Equal(t, "T1", got.ThreadID)
	assert.WithinDuration(t, time.Now(), got.CachedAt, time.Minute, "when it ran")

	for name, asker := range map[string]store.Asker{
		"another user":    {UserID: "UBOB", Email: "ann@example.com", ChannelID: "C1", Policy: "analysts"},
		"another address": {UserID: "UANN", Email: "ann@new.example", ChannelID: "C1", Policy: "analysts"},
		"no address":      {UserID: "UANN", ChannelID: "C1", Policy: "analysts"},
		"another channel": {UserID: "UANN", Email: "ann@example.com", ChannelID: "C2", Policy: "analysts"},
		"another policy":  {UserID: "UANN", Email: "ann@example.com", ChannelID: "C1", Policy: "full"},
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

// A result stored since under the same thread and query for someone else
// (a reused result kept for another person's question in that thread,
// which is not remembered as a run) is theirs: Recent never returns it
// for the asker the dataset was remembered for.
func TestCacheRecentReplacedForAnother(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	cache := newCache(t, db)
	ann := store.Asker{UserID: "UANN", ChannelID: "C1", Policy: "analysts"}
	bob := store.Asker{UserID: "UBOB", ChannelID: "C1", Policy: "analysts"}
	r := cachedResult("T1", 7)
	r.RunFor = ann
	require.NoError(t, cache.Put(ctx, r))
	require.NoError(t, cache.Remember(ctx, r.ThreadID, r.QueryID, "dataset-7"))

	bobs := cachedResult("T1", 7)
	bobs.Result.Rows = [][]any{{int64(300)}}
	bobs.RunFor = bob
	require.NoError(t, cache.Put(ctx, bobs))

	for _, where := range []string{"memory", "postgres"} {
		if where == "postgres" {
			cache.Forget()
		}
		got, err := cache.Recent(ctx, "dataset-7", ann, time.Hour)
		assert.ErrorIs(t, err, store.ErrNotFound, "%s: Ann is never given Bob's rows; got %v", where, got.Result.Rows)
	}
}

// Every result says who it was run for, from memory and from Postgres,
// and a result stored again for someone else says them.
func TestCacheRunFor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	cache := newCache(t, db)
	ann := store.Asker{UserID: "UANN", Email: "ann@example.com", ChannelID: "C1", Policy: "analysts"}
	bob := store.Asker{UserID: "UBOB", ChannelID: "C2", Policy: "full"}
	r := cachedResult("T1", 7)
	r.RunFor = ann
	require.NoError(t, cache.Put(ctx, r))
	got, err := cache.Get(ctx, "T1", r.QueryID)
	require.NoError(t, err)
	assert.Equal(t, ann, got.RunFor, "from memory")
	cache.Forget()
	got, err = cache.Get(ctx, "T1", r.QueryID)
	require.NoError(t, err)
	assert.Equal(t, ann, got.RunFor, "from postgres")

	r.RunFor = bob
	require.NoError(t, cache.Put(ctx, r))
	cache.Forget()
	got, err = cache.Latest(ctx, "T1")
	require.NoError(t, err)
	assert.Equal(t, bob, got.RunFor, "stored again for Bob")

	_, err = db.Pool().Exec(ctx, `UPDATE query_results SET run_for_user = '', run_for_email = '', run_for_channel = '', run_for_policy = ''`)
	require.NoError(t, err)
	cache.Forget()
	got, err = cache.Get(ctx, "T1", r.QueryID)
	require.NoError(t, err)
	assert.Equal(t, store.Asker{}, got.RunFor, "a result stored before 00023 is no one's")
}

// A result reused in another thread is kept there with the time it ran,
// not the time it was copied: were it dated anew, a thread that had run
// the same dataset before would find the copy fresh, and reuse would
// carry a result past RESULT_FRESHNESS and date its data too late.
func TestCacheReusedCopyKeepsItsAge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	cache := newCache(t, db)
	ann := store.Asker{UserID: "UANN", ChannelID: "C1", Policy: "analysts"}
	// The dataset ran in T2 before, and in T1 nine minutes ago.
	for _, thread := range []string{"T2", "T1"} {
		r := cachedResult(thread, 7)
		r.RunFor = ann
		require.NoError(t, cache.Put(ctx, r))
		require.NoError(t, cache.Remember(ctx, thread, r.QueryID, "dataset-7"))
	}
	_, err := db.Pool().Exec(ctx, `UPDATE query_results SET created_at = now() - interval '20 minutes' WHERE thread_id = 'T2'`)
	require.NoError(t, err)
	_, err = db.Pool().Exec(ctx, `UPDATE query_results SET created_at = now() - interval '9 minutes' WHERE thread_id = 'T1'`)
	require.NoError(t, err)
	cache = newCache(t, db) // one that did not keep the results in memory as they were stored

	recent, err := cache.Recent(ctx, "dataset-7", ann, 10*time.Minute)
	require.NoError(t, err)
	require.Equal(t, "T1", recent.ThreadID)
	// Reused in T2 (as nodes' reuse keeps it for the thread's buttons).
	reused := recent
	reused.ThreadID = "T2"
	require.NoError(t, cache.Put(ctx, reused))

	got, err := cache.Get(ctx, "T2", reused.QueryID)
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now().Add(-9*time.Minute), recent.CachedAt, time.Minute, "when it ran")
	assert.WithinDuration(t, recent.CachedAt, got.CachedAt, time.Millisecond, "the copy is as old as the run")
	_, err = cache.Recent(ctx, "dataset-7", ann, 5*time.Minute)
	assert.ErrorIs(t, err, store.ErrNotFound, "nine minutes old, in either thread, is past a 5-minute freshness")
}
