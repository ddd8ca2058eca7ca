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
