package nodes

import (
	"context"
	"errors"
	"time"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// ExecuteQuery runs the validated query and caches the result for the
// thread so buttons can be served later by any process.
// With ResultFreshness, the same asker's same query (by the backend's
// fingerprint) that ran less than that long ago is answered from its
// result instead, which is kept for this thread too.
func (n *Nodes) ExecuteQuery(ctx context.Context, s *State) error {
	ctx = audienceCtx(ctx, s)
	if n.ResultFreshness > 0 && n.reuse(ctx, s) {
		return nil
	}
	c, err := n.runAndCache(ctx, s, s.Checked, s.Question())
	if err != nil {
		dataFailure(s, err)
		return nil
	}
	s.Result, s.QueryID = c.Result, c.QueryID
	return nil
}

// runFor is who a query run for s with ctx (its audience's: audienceCtx)
// returns rows for: the asker, where they asked (the database's row
// scoping reads both) and the policy it runs as, which within a channel's
// ceiling is the policy within it. The rows of a result are served, and
// reused, only for the same (ExportCSV, reuse).
func runFor(ctx context.Context, s *State) store.Asker {
	a := store.Asker{UserID: s.UserID, Email: s.UserEmail, ChannelID: s.ChannelID, Policy: s.Policy}
	if p := warehouse.CallerOf(ctx).Access; p != nil {
		a.Policy = p.Policy()
	}
	return a
}

// reuse answers s from a recent result of the same dataset and asker, if
// there is one; a lookup that fails only costs running the query.
func (n *Nodes) reuse(ctx context.Context, s *State) bool {
	id, key := s.Checked.Dataset(n.Warehouse)
	recent, err := n.Cache.Recent(ctx, key, runFor(ctx, s), n.ResultFreshness)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			n.Logger.WarnContext(ctx, "look for a recent result", "thread", s.ThreadTS, "err", err)
		}
		return false
	}
	c := store.CachedResult{ThreadID: s.KeptIn(), QueryID: id,
		Query: s.Checked.Query, Question: s.Question(), Result: recent.Result, RunFor: recent.RunFor,
		CachedAt: recent.CachedAt}
	// Kept for this thread's buttons, but not remembered as a run, and
	// dated when it ran (CachedAt): its age is the first run's, should the
	// thread have run the same dataset before (store's
	// TestCacheReusedCopyKeepsItsAge).
	if err := n.Cache.Put(ctx, c); err != nil {
		n.Logger.WarnContext(ctx, "cache a reused result", "thread", s.ThreadTS, "err", err)
		return false
	}
	s.Result, s.QueryID, s.DataAsOf = recent.Result, c.QueryID, recent.CachedAt
	s.note("answered from the result of " + recent.CachedAt.UTC().Format(time.RFC3339) + ", not run again")
	return true
}

// runAndCache runs a checked query, counts the time on s, and caches the
// result for s's thread (KeptIn) under the query as users see it. A failed cache
// write costs only a later re-run, so it is noted, not returned.
func (n *Nodes) runAndCache(ctx context.Context, s *State, q warehouse.Runnable, question string) (store.CachedResult, error) {
	start := time.Now()
	res, err := n.Warehouse.Run(ctx, q)
	s.DBTime += time.Since(start)
	if err != nil {
		return store.CachedResult{}, err
	}
	id, key := q.Dataset(n.Warehouse)
	c := store.CachedResult{ThreadID: s.KeptIn(), QueryID: id, Query: q.Query, Question: question, Result: res,
		RunFor: runFor(ctx, s)}
	if err := n.Cache.Put(ctx, c); err != nil {
		s.note("caching the result failed: " + err.Error())
		n.Logger.WarnContext(ctx, "cache result", "thread", s.ThreadTS, "query_id", c.QueryID, "err", err)
		return c, nil
	}
	if n.ResultFreshness > 0 {
		if err := n.Cache.Remember(ctx, s.KeptIn(), c.QueryID, key); err != nil {
			n.Logger.WarnContext(ctx, "remember result", "thread", s.ThreadTS, "query_id", c.QueryID, "err", err)
		}
	}
	return c, nil
}

// Refresh runs the query of an earlier answer of the thread again, checked
// as new under the presser's policy, and answers from the fresh result
// without the model: the Refresh button of an answer served from a recent
// result. The new answer is a turn of its own, with its own buttons.
func (n *Nodes) Refresh(ctx context.Context, s *State) error {
	ctx = audienceCtx(ctx, s)
	turn, ok := n.referredAnswer(ctx, s, lookup{pressOnly: true, none: "no query " + s.ReferencedQueryID})
	if !ok {
		return nil
	}
	c, ok := n.rerun(ctx, s, turn)
	if !ok {
		return nil
	}
	s.ResolvedQuery = c.Question
	s.Query, s.Result, s.QueryID = c.Query, c.Result, c.QueryID
	s.Answer = n.plainSummary(ctx, s.Result)
	// The same query assumes what it did: the fresh answer says so too.
	s.Assumptions, _ = n.assumptionsOf(ctx, s.ThreadTS, turn.QueryID)
	return nil
}
