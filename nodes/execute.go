package nodes

import (
	"context"
	"time"

	"github.com/analyticsbot/analyticsbot/store"
)

// ExecuteSQL runs the validated SQL read-only and caches the result for the
// thread so buttons can be served later by any process.
func (n *Nodes) ExecuteSQL(ctx context.Context, s *State) error {
	start := time.Now()
	res, err := n.Exec.Query(ctx, s.SQL)
	s.DBTime += time.Since(start)
	if err != nil {
		dbFailure(s, err)
		return nil
	}
	s.Result = res
	s.QueryID = store.QueryID(s.SQL)
	err = n.Cache.Put(ctx, store.CachedResult{
		ThreadID: s.ThreadTS, QueryID: s.QueryID, SQL: s.SQL, Question: s.Question(), Result: res,
	})
	if err != nil {
		// The answer is still good; only a later button press pays for this
		// by re-running the stored SQL.
		s.note("caching the result failed: " + err.Error())
		n.Logger.WarnContext(ctx, "cache result", "thread", s.ThreadTS, "query_id", s.QueryID, "err", err)
	}
	return nil
}
