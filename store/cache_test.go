package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/warehousetest"
)

func cachedResult(thread string, n int) store.CachedResult {
	sql := fmt.Sprintf("SELECT %d AS n", n)
	return store.CachedResult{
		ThreadID: thread,
		QueryID:  warehouse.QueryID(sql),
		Query:    pgQuery(sql),
		Question: fmt.Sprintf("what is %d?", n),
		Result: warehouse.Result{
			Columns:  []warehouse.Column{{Name: "n", Type: "int4"}},
			Rows:     [][]any{{int64(n)}},
			RowCount: 1,
		},
	}
}

func newCache(t *testing.T, db *store.DB) *store.Cache {
	t.Helper()
	c, err := store.NewCache(db, store.CacheLimits{})
	require.NoError(t, err)
	return c
}

func TestCacheKeepsNewestPerThread(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	cache := newCache(t, db)
	var puts []store.CachedResult
	for i := range 11 {
		r := cachedResult("A", i)
		require.NoError(t, cache.Put(ctx, r))
		puts = append(puts, r)
	}
	require.NoError(t, cache.Put(ctx, cachedResult("B", 0)))

	var stored int
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT count(*) FROM query_results WHERE thread_id = 'A'`).Scan(&stored))
	assert.Equal(t, 10, stored, "rows of thread A")

	for _, forget := range []bool{false, true} {
		if forget {
			cache.Forget()
		}
		_, err := cache.Get(ctx, "A", puts[0].QueryID)
		assert.ErrorIs(t, err, store.ErrNotFound, "oldest result (forget=%v)", forget)
		for _, r := range puts[1:] {
			got, err := cache.Get(ctx, "A", r.QueryID)
			if assert.NoError(t, err, "result %s (forget=%v)", r.Query.Text, forget) {
				assert.Equal(t, r.Query.Text, got.Query.Text)
			}
		}
	}

	_, err := cache.Get(ctx, "B", cachedResult("B", 0).QueryID)
	assert.NoError(t, err, "thread B keeps its own result")
}

func TestCacheThreadsAreIsolated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	cache := newCache(t, db)

	a := cachedResult("A", 1)
	b := cachedResult("B", 1) // same SQL, same query id, another thread
	b.Result.Rows = [][]any{{int64(999)}}
	require.NoError(t, cache.Put(ctx, a))
	require.NoError(t, cache.Put(ctx, b))
	only := cachedResult("A", 2)
	require.NoError(t, cache.Put(ctx, only))

	for _, forget := range []bool{false, true} {
		if forget {
			cache.Forget()
		}
		got, err := cache.Get(ctx, "A", a.QueryID)
		require.NoError(t, err)
		assert.Equal(t, [][]any{{int64(1)}}, got.Result.Rows, "thread A's rows (forget=%v)", forget)
		got, err = cache.Get(ctx, "B", b.QueryID)
		require.NoError(t, err)
		assert.Equal(t, [][]any{{int64(999)}}, got.Result.Rows, "thread B's rows (forget=%v)", forget)
		_, err = cache.Get(ctx, "B", only.QueryID)
		assert.ErrorIs(t, err, store.ErrNotFound, "thread B asking for thread A's query (forget=%v)", forget)
	}
}

func TestCacheServesFromPostgresAfterForget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	cache := newCache(t, db)
	const sql = "SELECT id, customer, amount, big, f, ints, floats, doc, nothing, day FROM orders ORDER BY id"
	n, text := warehouse.KindNumber, warehouse.KindText
	res := warehouse.Result{
		Columns: []warehouse.Column{{Name: "id", Kind: n, Type: "int4"}, {Name: "customer", Kind: text, Type: "text"},
			{Name: "amount", Kind: n, Type: "numeric"}, {Name: "big", Kind: n, Type: "int8"}, {Name: "f", Kind: n, Type: "float8"},
			{Name: "ints", Kind: warehouse.KindOther, Type: "_int4"}, {Name: "floats", Kind: warehouse.KindOther, Type: "_float8"},
			{Name: "doc", Kind: warehouse.KindOther, Type: "jsonb"}, {Name: "nothing", Kind: text, Type: "text"},
			{Name: "day", Kind: warehouse.KindTime, Type: "date"}},
		Rows: [][]any{
			{int64(1), "acme", "19.99", int64(9007199254740993), 2.0, []any{int64(1), int64(2)}, []any{0.5, 3.0, nil},
				`{"n": 1.10, "big": 9007199254740993}`, nil, "2024-01-02"},
			{int64(2), "", "5.00", int64(-1), 1e300, []any{}, []any{[]any{1.0}}, "[]", nil, "2024-01-03"},
			// Whole floats from a million up are written with an exponent:
			// jsonb used to bring them back as integers.
			{int64(3), "big", "1e6", int64(1e6), 1234567.0, []any{int64(1e6)}, []any{1e6, 1e21, -2e7}, "{}", nil, "2024-01-04"},
		},
		RowCount:  3,
		Truncated: true,
		LimitedBy: warehouse.LimitBytes,
	}
	want := store.CachedResult{ThreadID: "T", QueryID: warehouse.QueryID(sql), Query: pgQuery(sql), Question: "orders?", Result: res}
	require.NoError(t, cache.Put(ctx, want))

	fromLRU, err := cache.Get(ctx, "T", want.QueryID)
	require.NoError(t, err)
	assert.False(t, fromLRU.CachedAt.IsZero(), "CachedAt set")

	// Empty the row's rows behind the cache's back, keeping its version
	// (seq), which no Put does: a hit now proves the LRU.
	_, err = db.Pool().Exec(ctx, `UPDATE query_results SET columns = '[]', rows = '[]'::bytea`)
	require.NoError(t, err)
	again, err := cache.Get(ctx, "T", want.QueryID)
	require.NoError(t, err, "LRU hit")
	assert.Equal(t, res, again.Result)

	// Put it back, forget the LRU: now only Postgres can answer.
	require.NoError(t, cache.Put(ctx, want))
	cache.Forget()
	got, err := cache.Get(ctx, "T", want.QueryID)
	require.NoError(t, err, "served from Postgres")
	assert.Equal(t, res, got.Result, "a result read back equals the one stored, value types included")
	assert.Equal(t, want.Query.Text, got.Query.Text)
	assert.Equal(t, want.Question, got.Question)

	_, err = db.Pool().Exec(ctx, `UPDATE query_results SET columns = '[]', rows = '[]'::bytea`)
	require.NoError(t, err)
	got, err = cache.Get(ctx, "T", want.QueryID)
	require.NoError(t, err)
	assert.Equal(t, res, got.Result, "the Postgres read refilled the LRU")

	// Gone from Postgres (another replica's Put dropped it), it is gone:
	// the copy in memory is not served.
	_, err = db.Pool().Exec(ctx, `DELETE FROM query_results`)
	require.NoError(t, err)
	_, err = cache.Get(ctx, "T", want.QueryID)
	assert.ErrorIs(t, err, store.ErrNotFound, "gone from Postgres")
}

func TestCacheLatest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	cache := newCache(t, db)

	_, err := cache.Latest(ctx, "A")
	assert.ErrorIs(t, err, store.ErrNotFound, "empty thread")

	first, second := cachedResult("A", 1), cachedResult("A", 2)
	require.NoError(t, cache.Put(ctx, first))
	require.NoError(t, cache.Put(ctx, second))
	require.NoError(t, cache.Put(ctx, cachedResult("B", 3)))
	got, err := cache.Latest(ctx, "A")
	require.NoError(t, err)
	assert.Equal(t, second.Query.Text, got.Query.Text, "latest of two")

	// Storing the first again makes it the newest.
	require.NoError(t, cache.Put(ctx, first))
	got, err = cache.Latest(ctx, "A")
	require.NoError(t, err)
	assert.Equal(t, first.Query.Text, got.Query.Text, "after re-put")
	assert.Equal(t, first.Result, got.Result)
}

func TestCacheRePutReplacesAndCountsOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	cache, err := store.NewCache(db, store.CacheLimits{PerThread: 2, Entries: 16})
	require.NoError(t, err)

	r := cachedResult("A", 1)
	require.NoError(t, cache.Put(ctx, r))
	require.NoError(t, cache.Put(ctx, cachedResult("A", 2)))
	r.Result.Rows = [][]any{{int64(42)}}
	r.Result.Truncated = true
	require.NoError(t, cache.Put(ctx, r)) // same query id: replaces, evicts nothing

	cache.Forget()
	got, err := cache.Get(ctx, "A", r.QueryID)
	require.NoError(t, err)
	assert.Equal(t, warehouse.Result{Columns: r.Result.Columns, Rows: [][]any{{int64(42)}}, RowCount: 1, Truncated: true}, got.Result)
	_, err = cache.Get(ctx, "A", cachedResult("A", 2).QueryID)
	assert.NoError(t, err, "second result still kept with perThread=2")
}

// textResult is a result of rows rows of one 100-byte text cell, the
// same size for every n below 10.
func textResult(thread string, n, rows int) store.CachedResult {
	r := cachedResult(thread, n)
	r.Result.Columns = []warehouse.Column{{Name: "t", Kind: warehouse.KindText, Type: "text"}}
	r.Result.Rows = make([][]any, rows)
	for i := range r.Result.Rows {
		r.Result.Rows[i] = []any{fmt.Sprintf("%d%099d", n, i)[:100]}
	}
	r.Result.RowCount = rows
	return r
}

// emptyStored empties every stored result behind the cache's back,
// keeping the version of its row (seq), which no Put does: Get serves
// the copy in memory of a row still at its version, so what Get returns
// with rows comes from memory, and without, from Postgres.
func emptyStored(t *testing.T, db *store.DB) {
	t.Helper()
	_, err := db.Pool().Exec(context.Background(), `UPDATE query_results SET columns = '[]', rows = '[]'::bytea`)
	require.NoError(t, err)
}

func TestCacheMemoryBoundedInBytes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)

	// One result's size, as the cache counts it.
	probe, err := store.NewCache(db, store.CacheLimits{})
	require.NoError(t, err)
	require.NoError(t, probe.Put(ctx, textResult("P", 0, 100)))
	_, size := probe.InMemory()
	require.Greater(t, size, int64(100*100), "a result of 10,000 bytes of text counts at least those")

	// Room for two and a half.
	bound := size*2 + size/2
	cache, err := store.NewCache(db, store.CacheLimits{Bytes: bound})
	require.NoError(t, err)
	a, b, c := textResult("A", 1, 100), textResult("B", 2, 100), textResult("C", 3, 100)
	require.NoError(t, cache.Put(ctx, a))
	require.NoError(t, cache.Put(ctx, b))
	_, err = cache.Get(ctx, "A", a.QueryID) // A is now used more recently than B
	require.NoError(t, err)
	require.NoError(t, cache.Put(ctx, c))

	n, held := cache.InMemory()
	assert.Equal(t, 2, n, "results in memory")
	assert.LessOrEqual(t, held, bound, "bytes in memory")

	emptyStored(t, db)
	for _, r := range []store.CachedResult{a, c} {
		got, err := cache.Get(ctx, r.ThreadID, r.QueryID)
		if assert.NoError(t, err) {
			assert.Equal(t, r.Result.Rows, got.Result.Rows, "thread %s is still in memory", r.ThreadID)
		}
	}
	got, err := cache.Get(ctx, "B", b.QueryID)
	require.NoError(t, err)
	assert.Empty(t, got.Result.Rows, "the least recently used result left memory")
}

func TestCacheKeepsResultsBiggerThanTheBoundInPostgresOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	cache, err := store.NewCache(db, store.CacheLimits{Bytes: 64 << 10})
	require.NoError(t, err)

	small := textResult("A", 1, 10)
	require.NoError(t, cache.Put(ctx, small))
	// The same query again, now with 100 KB of rows: too big for memory,
	// and the small one it replaces must not be served in its place.
	big := textResult("A", 1, 1000)
	require.NoError(t, cache.Put(ctx, big))
	n, held := cache.InMemory()
	assert.Equal(t, 0, n, "results in memory after the big put")
	assert.Zero(t, held, "bytes in memory after the big put")

	got, err := cache.Get(ctx, "A", big.QueryID)
	require.NoError(t, err, "a result too big for memory is served from Postgres")
	assert.Equal(t, big.Result.Rows, got.Result.Rows)
	latest, err := cache.Latest(ctx, "A")
	require.NoError(t, err)
	assert.Equal(t, 1000, latest.Result.RowCount, "latest result")
	n, _ = cache.InMemory()
	assert.Equal(t, 0, n, "reading it from Postgres does not keep it in memory either")

	emptyStored(t, db)
	got, err = cache.Get(ctx, "A", big.QueryID)
	require.NoError(t, err)
	assert.Empty(t, got.Result.Rows, "nothing of thread A was left in memory")
}

func TestCacheMemoryStillBoundedInResults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	cache, err := store.NewCache(db, store.CacheLimits{Entries: 2})
	require.NoError(t, err)
	var puts []store.CachedResult
	for i := range 3 {
		r := cachedResult(fmt.Sprintf("T%d", i), i)
		require.NoError(t, cache.Put(ctx, r))
		puts = append(puts, r)
	}
	n, _ := cache.InMemory()
	assert.Equal(t, 2, n, "results in memory with Entries: 2")

	emptyStored(t, db)
	for _, r := range puts[1:] {
		got, err := cache.Get(ctx, r.ThreadID, r.QueryID)
		if assert.NoError(t, err) {
			assert.Equal(t, r.Result.Rows, got.Result.Rows, "thread %s is still in memory", r.ThreadID)
		}
	}
	got, err := cache.Get(ctx, puts[0].ThreadID, puts[0].QueryID)
	require.NoError(t, err)
	assert.Empty(t, got.Result.Rows, "the oldest left memory")
}

// A wide answer is stored compressed: what Postgres holds is a small part
// of its JSON, and it reads back the same.
func TestCacheStoresRowsCompact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	cache := newCache(t, db)
	r := store.CachedResult{ThreadID: "W", QueryID: "0123abcd", Query: pgQuery("SELECT * FROM items"),
		Result: warehousetest.WideResult(200, warehousetest.WideColumns)}
	js, err := json.Marshal(r.Result.Rows)
	require.NoError(t, err)
	require.NoError(t, cache.Put(ctx, r))

	var stored int
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT octet_length(rows) FROM query_results WHERE thread_id = 'W'`).Scan(&stored))
	assert.Less(t, stored, len(js)/4, "stored bytes of rows that are %d bytes of JSON", len(js))

	cache.Forget()
	got, err := cache.Get(ctx, "W", r.QueryID)
	require.NoError(t, err)
	assert.Equal(t, r.Result.Rows, got.Result.Rows)
}

// A result and the eviction it causes are written together or not at
// all: when the eviction fails, the new result is not kept either, and
// the thread keeps what it had.
func TestCachePutIsOneTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	cache, err := store.NewCache(db, store.CacheLimits{PerThread: 1})
	require.NoError(t, err)
	require.NoError(t, cache.Put(ctx, cachedResult("A", 1)))
	_, err = db.Pool().Exec(ctx, `
		CREATE FUNCTION refuse_eviction() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'eviction refused'; END $$;
		CREATE TRIGGER refuse_eviction BEFORE DELETE ON query_results FOR EACH ROW EXECUTE FUNCTION refuse_eviction()`)
	require.NoError(t, err)

	err = cache.Put(ctx, cachedResult("A", 2))
	require.ErrorContains(t, err, "eviction refused")
	var queries []string
	rows, err := db.Pool().Query(ctx, `SELECT sql FROM query_results WHERE thread_id = 'A' ORDER BY seq`)
	require.NoError(t, err)
	for rows.Next() {
		var q string
		require.NoError(t, rows.Scan(&q))
		queries = append(queries, q)
	}
	require.NoError(t, rows.Err())
	assert.Equal(t, []string{"SELECT 1 AS n"}, queries, "the new result rolled back with its eviction")
	cache.Forget()
	_, err = cache.Get(ctx, "A", cachedResult("A", 2).QueryID)
	assert.ErrorIs(t, err, store.ErrNotFound)
}
