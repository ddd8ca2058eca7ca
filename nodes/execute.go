package nodes

import (
	"context"
	"time"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// ExecuteQuery runs the validated query and caches the result for the
// thread so buttons can be served later by any process.
func (n *Nodes) ExecuteQuery(ctx context.Context, s *State) error {
	c, err := n.runAndCache(ctx, s, s.Checked, s.Question())
	if err != nil {
		dataFailure(s, err)
		return nil
	}
	s.Result, s.QueryID = c.Result, c.QueryID
	return nil
}

// runAndCache runs a checked query, counts the time on s, and caches the
// result for s's thread under the query as users see it. A failed cache
// write costs only a later re-run, so it is noted, not returned.
func (n *Nodes) runAndCache(ctx context.Context, s *State, q warehouse.Runnable, question string) (store.CachedResult, error) {
	start := time.Now()
	res, err := n.Warehouse.Run(ctx, q)
	s.DBTime += time.Since(start)
	if err != nil {
		return store.CachedResult{}, err
	}
	c := store.CachedResult{ThreadID: s.ThreadTS, QueryID: q.Query.ID(), Query: q.Query, Question: question, Result: res}
	if err := n.Cache.Put(ctx, c); err != nil {
		s.note("caching the result failed: " + err.Error())
		n.Logger.WarnContext(ctx, "cache result", "thread", s.ThreadTS, "query_id", c.QueryID, "err", err)
	}
	return c, nil
}
