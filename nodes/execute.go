package nodes

import (
	"context"
	"errors"
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

// errNoCube is returned for a stored Cube query when the bot runs without
// Cube (BACKEND changed since the answer).
var errNoCube = errors.New("this answer came from Cube, which this bot is not configured for (BACKEND=cube)")

// runAndCache runs runSQL read-only, counts the time on s, and caches the
// result for s's thread under sql, the statement as written. A failed cache
// write costs only a later re-run, so it is noted, not returned.
func (n *Nodes) runAndCache(ctx context.Context, s *State, sql, runSQL, question string) (store.CachedResult, error) {
	start := time.Now()
	var (
		res store.Result
		err error
	)
	switch {
	case !isCubeQuery(runSQL):
		res, err = n.Exec.Query(ctx, runSQL)
	case n.Cube != nil:
		res, err = n.loadCube(ctx, sql, runSQL)
	default:
		err = errNoCube
	}
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
