package store_test

import (
	"context"
	"testing"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

func BenchmarkCacheGetHit(b *testing.B) {
	ctx := context.Background()
	db := storetest.New(b)
	cache, err := store.NewCache(db, 0, 0)
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

func BenchmarkExecutorQuery1000Rows(b *testing.B) {
	ctx := context.Background()
	db, _ := newAnalyticsDB(b)
	exec := store.NewExecutor(db, store.ExecConfig{})
	const sql = `SELECT g AS id, 'customer ' || g AS name, (g * 1.25)::numeric(12,2) AS amount,
	                    DATE '2024-01-01' + g AS day, g % 2 = 0 AS even
	             FROM generate_series(1, 1000) g`
	b.ReportAllocs()
	for b.Loop() {
		res, err := exec.Query(ctx, sql)
		if err != nil {
			b.Fatal(err)
		}
		if res.RowCount != 1000 || res.Truncated {
			b.Fatalf("got %d rows (truncated %v), want 1000", res.RowCount, res.Truncated)
		}
	}
}
