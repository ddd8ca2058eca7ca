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

// A candidate keeps 70 % of its score (docs/examples.md): the same
// question stored as verified and as a candidate scores 1 and 0.7, the
// verified one first.
func TestSearchExamplesCandidateKeeps70Percent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	require.NoError(t, db.PrepareExamples(ctx))
	const q = "Which publisher released the most games?"
	for _, e := range []store.Example{example(q, "Q candidate", store.StatusCandidate), example(q, "Q verified", store.StatusVerified)} {
		_, _, err := db.AddExample(ctx, e)
		require.NoError(t, err)
	}

	got, err := db.SearchExamples(ctx, "postgres", q, 5)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, []string{store.StatusVerified, store.StatusCandidate}, []string{got[0].Status, got[1].Status}, "verified first")
	assert.InDelta(t, 1, got[0].Score, 1e-6, "the verified example's score")
	assert.InDelta(t, 0.7, got[1].Score, 1e-6, "the candidate's score")
}

// Suggested prompts are the verified examples used most (docs/slack.md,
// the Messages tab; bot.SuggestedQuestions lists them with MostUsed): the
// list puts the most used first, whatever their age, where it otherwise
// puts the newest first.
func TestListExamplesMostUsed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	add := func(q string) int64 {
		t.Helper()
		e, _, err := db.AddExample(ctx, example(q, "Q "+q, store.StatusVerified))
		require.NoError(t, err)
		return e.ID
	}
	once, thrice, never := add("Used once"), add("Used three times"), add("Never used, the newest")
	require.NoError(t, db.MarkExamplesUsed(ctx, []int64{once, thrice}))
	require.NoError(t, db.MarkExamplesUsed(ctx, []int64{thrice}))
	require.NoError(t, db.MarkExamplesUsed(ctx, []int64{thrice}))

	most, err := db.ListExamples(ctx, store.ExampleFilter{Backend: "postgres", Status: store.StatusVerified, MostUsed: true, Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, []string{"Used three times", "Used once"}, questions(most), "the most used first")

	newest, err := db.ListExamples(ctx, store.ExampleFilter{Backend: "postgres", Status: store.StatusVerified, Limit: 1})
	require.NoError(t, err)
	require.Len(t, newest, 1)
	assert.Equal(t, never, newest[0].ID, "without MostUsed, the newest first")
}

// Among examples used as often, the examples file's come first, in the
// file's order (bot stores them in it at start): a fresh install offers
// the team's first questions, not its last ones first.
func TestListExamplesMostUsedKeepsTheFilesOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	add := func(q, source string) {
		t.Helper()
		e := example(q, "Q "+q, store.StatusVerified)
		e.Source = source
		_, _, err := db.AddExample(ctx, e)
		require.NoError(t, err)
	}
	add("Learned before the file was read", store.SourceFeedback)
	for _, q := range []string{"First in the file", "Second in the file", "Third in the file"} {
		add(q, store.SourceFile)
	}
	add("Learned since", store.SourceFeedback)

	got, err := db.ListExamples(ctx, store.ExampleFilter{Backend: "postgres", Status: store.StatusVerified, MostUsed: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"First in the file", "Second in the file", "Third in the file", "Learned since",
		"Learned before the file was read"}, questions(got))
}
