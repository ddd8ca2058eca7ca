package nodes

import (
	"context"
	"time"

	"github.com/analyticsbot/analyticsbot/store"
)

// ExecuteSQL runs the validated SQL read-only and caches the result for the
// thread so buttons can be served later by any process.
func (n *Nodes) ExecuteSQL(ctx context.Context, s *State) error {
	run := s.RunSQL
	if run == "" {
		run = s.SQL
	}
	c, err := n.runAndCache(ctx, s, s.SQL, run, s.Question())
	if err != nil {
		dbFailure(s, err)
		return nil
	}
	s.Result, s.QueryID = c.Result, c.QueryID
	return nil
}

// runAndCache runs runSQL read-only, counts the time on s, and caches the
// result for s's thread under sql, the statement as written. A failed cache
// write costs only a later re-run, so it is noted, not returned.
func (n *Nodes) runAndCache(ctx context.Context, s *State, sql, runSQL, question string) (store.CachedResult, error) {
	start := time.Now()
	res, err := n.Exec.Query(ctx, runSQL)
	s.DBTime += time.Since(start)
	if err != nil {
		return store.CachedResult{}, err
	}
	c := store.CachedResult{ThreadID: s.ThreadTS, QueryID: store.QueryID(sql), SQL: sql, Question: question, Result: res}
	if err := n.Cache.Put(ctx, c); err != nil {
		s.note("caching the result failed: " + err.Error())
		n.Logger.WarnContext(ctx, "cache result", "thread", s.ThreadTS, "query_id", c.QueryID, "err", err)
	}
	return c, nil
}
