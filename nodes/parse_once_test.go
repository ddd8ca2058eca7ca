package nodes

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/grounding"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/warehousetest"
)

// An answered query is parsed once, by the guard in validate_query: the id
// its result is cached under, the dataset key that looks for a recent
// result and the fingerprint that finds its verified example come with
// the checked query. The badge shows that the fingerprint is the one the
// example was stored under, written another way.
func TestAnswerParsesItsQueryOnce(t *testing.T) {
	n, _ := newNodes(t, nil)
	pg := n.Warehouse.(*pgwarehouse.Backend)
	counting := &warehousetest.Counting{Backend: pg}
	n.Warehouse = counting
	n.ResultFreshness = time.Hour
	n.ExampleStore = &grounding.Examples{DB: requireDB(t), Logger: n.Logger}
	ctx := context.Background()

	// A constant of this run's own, so no other test's answer matches it.
	year := 1990 + rand.IntN(1_000_000)
	stored := fmt.Sprintf("SELECT count(*) AS games FROM analytics.apps WHERE release_year <> %d", year)
	fp, err := pg.Dialect().Fingerprint(stored)
	require.NoError(t, err)
	_, _, err = requireDB(t).AddExample(ctx, store.Example{Backend: pg.Name(), Question: "How many games?", Query: stored,
		Fingerprint: fp, Source: store.SourceAdmin, Status: store.StatusVerified, ProposedBy: "U9", VerifiedBy: "U9"})
	require.NoError(t, err)

	s := &State{ThreadTS: threadID(t), UserID: "U1", ChannelID: "C1", UserQuery: "How many games?",
		Query: warehouse.Query{Backend: pg.Name(),
			Text: fmt.Sprintf("select COUNT(*) as games\nfrom analytics.apps where release_year != %d", year)}}
	for _, step := range []func(context.Context, *State) error{n.ValidateQuery, n.ExecuteQuery, n.FormatAnswer} {
		require.NoError(t, step(ctx, s))
		require.Empty(t, s.ErrorKind, s.ErrorDetail)
	}
	require.NotNil(t, s.Reply)
	assert.Equal(t, "U9", s.Reply.VerifiedBy, "the verified example is found by the query's fingerprint")
	assert.Equal(t, warehouse.IDOf(pg, s.Query), s.QueryID, "the answer's id is its fingerprint's")
	assert.Equal(t, int64(1), counting.Checks.Load(), "the query is checked once")
	assert.Zero(t, counting.Fingerprints.Load(), "and never parsed again for its fingerprint")
}
