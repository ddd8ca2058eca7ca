package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// Two Caches on one database are two replicas: each holds the results it
// stored or read in memory. When one stores a newer result under a query
// of the thread the other holds (the question asked again in the thread,
// Refresh), or drops it, the other serves what Postgres holds from then on,
// never its own older copy.
func TestCacheReplicasServeTheStoredResult(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	a := newCache(t, db)
	b, err := store.NewCache(db, store.CacheLimits{PerThread: 1})
	require.NoError(t, err)

	ana := store.Asker{UserID: "UANA", Email: "ana@example.com", ChannelID: "C1", Policy: "analysts"}
	bob := store.Asker{UserID: "UBOB", Email: "bob@example.com", ChannelID: "C1", Policy: "analysts"}
	first := cachedResult("T1", 1)
	first.Result.Rows, first.RunFor = [][]any{{int64(8160)}}, ana
	require.NoError(t, a.Put(ctx, first))
	got, err := a.Get(ctx, "T1", first.QueryID)
	require.NoError(t, err)
	require.Equal(t, [][]any{{int64(8160)}}, got.Result.Rows, "replica A's own answer")

	// The same question asked again in the thread, on replica B: the
	// same query id, newer rows, another asker.
	newer := first
	newer.Result.Rows, newer.RunFor = [][]any{{int64(8161)}}, bob
	require.NoError(t, b.Put(ctx, newer))
	fromB, err := b.Get(ctx, "T1", first.QueryID)
	require.NoError(t, err)

	got, err = a.Get(ctx, "T1", first.QueryID)
	require.NoError(t, err)
	assert.Equal(t, [][]any{{int64(8161)}}, got.Result.Rows, "replica A serves replica B's newer rows, not its own copy")
	assert.Equal(t, bob, got.RunFor, "and says whom they were run for")
	assert.Equal(t, fromB.CachedAt, got.CachedAt, "and when they ran")
	got, err = a.Get(ctx, "T1", first.QueryID)
	require.NoError(t, err)
	assert.Equal(t, [][]any{{int64(8161)}}, got.Result.Rows, "again, from the copy A now holds")

	// Replica B keeps one result per thread: another question there drops
	// this one, for replica A too.
	require.NoError(t, b.Put(ctx, cachedResult("T1", 2)))
	_, err = a.Get(ctx, "T1", first.QueryID)
	assert.ErrorIs(t, err, store.ErrNotFound, "a result B dropped is gone on A, its copy in memory too")
	held, _ := a.InMemory()
	assert.Zero(t, held, "A let its copy go")
}
