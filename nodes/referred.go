package nodes

import (
	"context"
	"errors"

	"github.com/analyticsbot/analyticsbot/store"
)

// lookup says how an action finds the stored answer it refers to.
type lookup struct {
	// pressOnly takes only the answer a pressed button names (Refresh):
	// without one, there is none.
	pressOnly bool
	// cached takes, for a pressed button, the query and the resolved
	// question ("How many … in 2017?") of its cached result when it is
	// still cached, rather than what the turn's message typed ("And in
	// 2017?").
	cached bool
	// keywords, when there are any, find the answer whose question or
	// query has the most of them, before the latest answer (Show SQL's
	// words).
	keywords []string
	// none says what there is none of, for the failure's detail: "no
	// query", "nothing to schedule".
	none string
}

// referredAnswer finds the stored answer of s's thread that s refers to,
// one way for every action: the one a pressed button names
// (ReferencedQueryID); else, unless l is pressOnly, the one l's keywords
// find, else the thread's latest answer with a query.
// When there is none it records ErrNoPreviousQuery on s, and any other
// failure to look as a data failure; ok is then false.
func (n *Nodes) referredAnswer(ctx context.Context, s *State, l lookup) (turn store.Turn, ok bool) {
	var err error
	switch {
	case s.ReferencedQueryID != "" || l.pressOnly:
		if l.cached {
			if c, cerr := n.Cache.Get(ctx, s.ThreadTS, s.ReferencedQueryID); cerr == nil {
				turn = store.Turn{Query: c.Query, QueryID: c.QueryID, UserMessage: c.Question}
				break
			}
		}
		turn, err = n.DB.TurnByQueryID(ctx, s.ThreadTS, s.ReferencedQueryID)
	case len(l.keywords) > 0:
		turn, err = n.DB.FindQueryByKeyword(ctx, s.ThreadTS, l.keywords)
		if errors.Is(err, store.ErrNotFound) {
			turn, err = n.DB.MostRecentQuery(ctx, s.ThreadTS)
		}
	default:
		turn, err = n.DB.MostRecentQuery(ctx, s.ThreadTS)
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.fail(ErrNoPreviousQuery, l.none+" in thread "+s.ThreadTS)
		return turn, false
	case err != nil:
		dataFailure(s, err)
		return turn, false
	}
	return turn, true
}
