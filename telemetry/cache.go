package telemetry

import (
	"context"

	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
)

// InstrumentCache returns c with its reads counted in
// analyticsbot.cache.requests: a hit when a result came back, a miss
// otherwise (not found, or an error the nodes then treat like one, running
// the query again). Wrapping keeps the store free of telemetry: store cannot
// import this package, which imports nodes, which imports store.
func InstrumentCache(c nodes.ResultCache) nodes.ResultCache { return countedCache{c} }

type countedCache struct{ nodes.ResultCache }

func (c countedCache) Get(ctx context.Context, threadID, queryID string) (store.CachedResult, error) {
	r, err := c.ResultCache.Get(ctx, threadID, queryID)
	RecordCache(ctx, err == nil)
	return r, err
}

func (c countedCache) Latest(ctx context.Context, threadID string) (store.CachedResult, error) {
	r, err := c.ResultCache.Latest(ctx, threadID)
	RecordCache(ctx, err == nil)
	return r, err
}
