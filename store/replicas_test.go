package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

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

// The upserts of query_results of earlier versions, as a replica still
// serving during a rolling upgrade sends them after `migrate`: version 22's
// names no asker, version 25's names one but cannot say it does
// (run_for_stated, 00027). Either leaves the result it replaces no one's:
// never Ana's, whose result it was, with Bob's rows.
func TestCacheResultWrittenByAnEarlierVersionIsNoOnes(t *testing.T) {
	t.Parallel()
	ana := store.Asker{UserID: "UANA", Email: "ana@example.com", ChannelID: "C1", Policy: "analysts"}
	bob := store.Asker{UserID: "UBOB", Email: "bob@example.com", ChannelID: "C1", Policy: "analysts"}
	for _, tc := range []struct {
		name string
		// upsert is the version's statement, its arguments after the
		// first ten: ThreadID, QueryID, backend, SQL, question,
		// columns, rows, row count, truncated, limited by.
		upsert string
		more   []any
	}{
		{name: "version 22", upsert: `
		INSERT INTO query_results
			(thread_id, query_id, backend, sql, question, columns, rows, row_count, truncated, limited_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (thread_id, query_id) DO UPDATE SET
			backend = EXCLUDED.backend, sql = EXCLUDED.sql, question = EXCLUDED.question,
			columns = EXCLUDED.columns, rows = EXCLUDED.rows,
			row_count = EXCLUDED.row_count, truncated = EXCLUDED.truncated, limited_by = EXCLUDED.limited_by,
			created_at = EXCLUDED.created_at, seq = EXCLUDED.seq
		RETURNING created_at`},
		{name: "version 25", upsert: `
		INSERT INTO query_results
			(thread_id, query_id, backend, sql, question, columns, rows, row_count, truncated, limited_by,
			 run_for_user, run_for_email, run_for_channel, run_for_policy, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, coalesce($15, now()))
		ON CONFLICT (thread_id, query_id) DO UPDATE SET
			backend = EXCLUDED.backend, sql = EXCLUDED.sql, question = EXCLUDED.question,
			columns = EXCLUDED.columns, rows = EXCLUDED.rows,
			row_count = EXCLUDED.row_count, truncated = EXCLUDED.truncated, limited_by = EXCLUDED.limited_by,
			run_for_user = EXCLUDED.run_for_user, run_for_email = EXCLUDED.run_for_email,
			run_for_channel = EXCLUDED.run_for_channel,
			run_for_policy = EXCLUDED.run_for_policy,
			created_at = EXCLUDED.created_at, seq = EXCLUDED.seq
		RETURNING created_at`, more: []any{bob.UserID, bob.Email, bob.ChannelID, bob.Policy, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := storetest.New(t)
			cache := newCache(t, db)
			anas := cachedResult("T1", 7)
			anas.Result.Rows, anas.RunFor = [][]any{{int64(7)}}, ana
			require.NoError(t, cache.Put(ctx, anas))
			require.NoError(t, cache.Remember(ctx, "T1", anas.QueryID, "dataset-7"))
			got, err := cache.Get(ctx, "T1", anas.QueryID)
			require.NoError(t, err)
			require.Equal(t, ana, got.RunFor, "Ana's, as this version stores it")

			bobsRows, err := store.EncodeRows([][]any{{int64(300)}})
			require.NoError(t, err)
			columns, err := json.Marshal(anas.Result.Columns)
			require.NoError(t, err)
			args := append([]any{"T1", anas.QueryID, anas.Query.Backend, anas.Query.Text, anas.Question,
				string(columns), bobsRows, 1, false, ""}, tc.more...)
			_, err = db.Pool().Exec(ctx, tc.upsert, args...)
			require.NoError(t, err, "the earlier version's upsert")

			for _, where := range []string{"memory", "postgres"} {
				if where == "postgres" {
					cache.Forget()
				}
				got, err := cache.Get(ctx, "T1", anas.QueryID)
				require.NoError(t, err, where)
				assert.Equal(t, [][]any{{int64(300)}}, got.Result.Rows, "%s: the rows the earlier version stored", where)
				assert.Equal(t, store.Asker{}, got.RunFor, "%s: Bob's rows are no one's, never Ana's", where)
				_, err = cache.Recent(ctx, "dataset-7", ana, time.Hour)
				assert.ErrorIs(t, err, store.ErrNotFound, "%s: RESULT_FRESHNESS never gives Ana Bob's rows", where)
			}

			// Stored again by this version, the result is its asker's.
			require.NoError(t, cache.Put(ctx, anas))
			cache.Forget()
			got, err = cache.Get(ctx, "T1", anas.QueryID)
			require.NoError(t, err)
			assert.Equal(t, ana, got.RunFor, "stored again by this version")
			// An update that stores no new rows keeps their asker, and is
			// read with the rows held in memory.
			_, err = db.Pool().Exec(ctx, `UPDATE query_results SET question = 'renamed'`)
			require.NoError(t, err)
			got, err = cache.Get(ctx, "T1", anas.QueryID)
			require.NoError(t, err)
			assert.Equal(t, ana, got.RunFor, "after an update of the row that keeps its version")
			assert.Equal(t, "renamed", got.Question, "the row as it is now")
			assert.Equal(t, anas.Result.Rows, got.Result.Rows)
		})
	}
}
