package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// An example must score 0.2 to be shown (docs/examples.md): asked "games",
// a verified example sharing that one word among 9 words scores 2·1/(1+9)
// = 0.2 and is shown; one of 10 words scores 2/11, about 0.18, and is not.
func TestSearchExamplesNeedsAScoreOf02(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	require.NoError(t, db.PrepareExamples(ctx))
	const (
		nine = "game publisher developer studio genre price review rating platform"
		ten  = nine + " language"
	)
	for _, q := range []string{nine, ten} {
		_, _, err := db.AddExample(ctx, example(q, "Q "+q, store.StatusVerified))
		require.NoError(t, err)
	}

	got, err := db.SearchExamples(ctx, "postgres", "games", 5)
	require.NoError(t, err)
	require.Equal(t, []string{nine}, questions(got), "only the example scoring 0.2")
	assert.InDelta(t, 0.2, got[0].Score, 1e-6, "score")
}
