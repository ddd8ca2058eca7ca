package store_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/warehousetest"
)

// BenchmarkCacheGetHit reads a result held in memory, as a button pressed
// on the replica that answered does: one round trip that finds the row
// still at the version held (BenchmarkCacheGetWideHit: a wide one).
func BenchmarkCacheGetHit(b *testing.B) {
	ctx := context.Background()
	db := storetest.New(b)
	cache, err := store.NewCache(db, store.CacheLimits{})
	if err != nil {
		b.Fatal(err)
	}
	r := cachedResult("T", 1)
	if err := cache.Put(ctx, r); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cache.Get(ctx, "T", r.QueryID); err != nil {
			b.Fatal(err)
		}
	}
}

// wideAnswers is how many wide answers BenchmarkCacheWideAnswers puts.
const wideAnswers = 20

// BenchmarkCacheWideAnswers puts 20 wide answers (2,000 rows × 61 text
// columns, each in a thread of its own) in a cache with the default
// limits and reports the heap the cache still holds afterwards (held-B,
// measured after a garbage collection), the results it holds and their
// size as it estimates it (results-held, estimated-B), and what Postgres
// stores per answer (stored-B/answer, the rows column as stored, after any
// compression of its own). One op is all 20 puts: run it with
// -benchtime 1x.
func BenchmarkCacheWideAnswers(b *testing.B) {
	ctx := context.Background()
	db := storetest.New(b)
	var (
		held, estimated, stored int64
		results                 int
	)
	// The process's peak RSS from here on (VmHWM after a reset), what the
	// issue's target (300 MB with 20 wide answers cached) is about.
	peakReset := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	for b.Loop() {
		cache, err := store.NewCache(db, store.CacheLimits{})
		if err != nil {
			b.Fatal(err)
		}
		for i := range wideAnswers {
			if err := cache.Put(ctx, wideAnswer(fmt.Sprintf("wide-%d", i))); err != nil {
				b.Fatal(err)
			}
		}
		results, estimated = cache.InMemory()
		// What forgetting frees is what the cache held; the connection
		// pool's buffers, grown by the puts, stay on both sides.
		full := heapAlloc()
		cache.Forget()
		held = int64(full) - int64(heapAlloc())
		if err := db.Pool().QueryRow(ctx, `SELECT sum(pg_column_size(rows)) / count(*) FROM query_results`).Scan(&stored); err != nil {
			b.Fatal(err)
		}
	}
	if peakReset == nil {
		if peak, err := vmHWM(); err == nil {
			b.ReportMetric(float64(peak)/(1<<20), "peak-rss-MB")
		}
	}
	b.ReportMetric(float64(held), "held-B")
	b.ReportMetric(float64(estimated), "estimated-B")
	b.ReportMetric(float64(results), "results-held")
	b.ReportMetric(float64(stored), "stored-B/answer")
}

// wideAnswer is a wide result cached in a thread of its own.
func wideAnswer(thread string) store.CachedResult {
	const sql = "SELECT * FROM analytics.items LIMIT 2000"
	return store.CachedResult{
		ThreadID: thread,
		QueryID:  warehouse.QueryID(sql),
		Query:    pgQuery(sql),
		Question: "Show every attribute of the items",
		Result:   warehousetest.WideResult(warehousetest.WideRows, warehousetest.WideColumns),
	}
}

// heapAlloc returns the bytes of live heap objects after two collections:
// the first only moves what sync.Pools hold (encoding/json keeps its last
// 8 MB buffer there) aside, the second frees it.
func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkCacheGetWideFromPostgres reads a wide answer back from Postgres
// (the in-memory cache emptied before each read), as a button pressed on
// another replica or after a restart does.
func BenchmarkCacheGetWideFromPostgres(b *testing.B) {
	ctx := context.Background()
	db := storetest.New(b)
	cache, err := store.NewCache(db, store.CacheLimits{})
	if err != nil {
		b.Fatal(err)
	}
	r := wideAnswer("wide")
	if err := cache.Put(ctx, r); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		cache.Forget()
		got, err := cache.Get(ctx, r.ThreadID, r.QueryID)
		if err != nil {
			b.Fatal(err)
		}
		if got.Result.RowCount != warehousetest.WideRows {
			b.Fatalf("got %d rows, want %d", got.Result.RowCount, warehousetest.WideRows)
		}
	}
}

// BenchmarkCacheGetWideHit reads a wide answer held in memory: the same
// round trip as BenchmarkCacheGetHit, its rows neither sent nor decoded
// (BenchmarkCacheGetWideFromPostgres: what the memory spares).
func BenchmarkCacheGetWideHit(b *testing.B) {
	ctx := context.Background()
	db := storetest.New(b)
	cache, err := store.NewCache(db, store.CacheLimits{})
	if err != nil {
		b.Fatal(err)
	}
	r := wideAnswer("wide")
	if err := cache.Put(ctx, r); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		got, err := cache.Get(ctx, r.ThreadID, r.QueryID)
		if err != nil {
			b.Fatal(err)
		}
		if got.Result.RowCount != warehousetest.WideRows {
			b.Fatalf("got %d rows, want %d", got.Result.RowCount, warehousetest.WideRows)
		}
	}
}

// BenchmarkCachePutWide stores one wide answer, again and again in the
// same thread and query (each put replaces the last).
func BenchmarkCachePutWide(b *testing.B) {
	ctx := context.Background()
	db := storetest.New(b)
	cache, err := store.NewCache(db, store.CacheLimits{})
	if err != nil {
		b.Fatal(err)
	}
	r := wideAnswer("wide")
	b.ReportAllocs()
	for b.Loop() {
		if err := cache.Put(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
}

// vmHWM reads the process's peak resident set size, in bytes.
func vmHWM() (int64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/self/status")
}
