package bot_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
)

// otherLayout writes the 2018 count another way: the same dataset.
const otherLayout = `
  - step: generate_sql
    match: '(?im)^Question: how many games came out in 2018'
    reply: '{"sql": "select COUNT(*) as games\n  from analytics.apps\n where release_year = 2018 -- the year", "assumptions": ["Came out means released on Steam."]}'
`

// testResultFreshness: with RESULT_FRESHNESS, the same person's same query
// (however it is written) in the same channel is answered from the recent
// result without running it, says when the data is from and offers
// Refresh, which runs it again without the model. Another person's
// question runs; without the setting everything runs.
func testResultFreshness(t *testing.T, e *testEnv) {
	b := newBot(t, e, script(otherLayout), func(c *bot.Config) { c.ResultFreshness = 10 * time.Minute })
	askAs := func(user, thread, text string) *nodes.State {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s, _, err := b.AskState(ctx, bot.Message{ThreadID: thread, UserID: user, ChannelID: "CFRESH", Text: text})
		require.NoError(t, err)
		require.Empty(t, s.ErrorKind, "detail %s", s.ErrorDetail)
		return s
	}
	first := askAs("UFRESH", bot.NewThreadID(), "How many games were released in 2018?")
	require.True(t, first.DataAsOf.IsZero(), "the first ask runs")
	require.Equal(t, [][]any{{int64(8160)}}, first.Result.Rows)
	assert.NotContains(t, actionIDs(first), string(nodes.IntentRefresh))

	thread := bot.NewThreadID()
	again := askAs("UFRESH", thread, "How many games came out in 2018?")
	require.False(t, again.DataAsOf.IsZero(), "answered from the recent result")
	assert.Equal(t, first.QueryID, again.QueryID, "another layout of the same query: one dataset")
	assert.Zero(t, again.DBTime, "the query did not run")
	assert.Equal(t, first.Result.Rows, again.Result.Rows)
	assert.Contains(t, again.Reply.Status(), "data as of "+again.DataAsOf.UTC().Format("2006-01-02 15:04")+" UTC")
	assert.Contains(t, actionIDs(again), string(nodes.IntentRefresh), "a Refresh button")

	other := askAs("UOTHER", bot.NewThreadID(), "How many games were released in 2018?")
	assert.True(t, other.DataAsOf.IsZero(), "another person's question runs: their row scoping may differ")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	calls := len(b.Scripted.Calls())
	fresh, _, err := b.PressState(ctx, bot.Message{ThreadID: thread, UserID: "UFRESH", ChannelID: "CFRESH"}, string(nodes.IntentRefresh), again.QueryID)
	require.NoError(t, err)
	require.Empty(t, fresh.ErrorKind, "detail %s", fresh.ErrorDetail)
	assert.Equal(t, calls, len(b.Scripted.Calls()), "Refresh calls no model")
	assert.True(t, fresh.DataAsOf.IsZero(), "the refreshed answer ran now")
	assert.Positive(t, fresh.DBTime, "the query ran")
	assert.Equal(t, [][]any{{int64(8160)}}, fresh.Result.Rows)
	assert.Equal(t, "How many games came out in 2018?", fresh.Reply.Question, "the answer says what it answers")
	assert.Contains(t, fresh.Reply.Text.Plain(), "8,160")
	assert.NotContains(t, actionIDs(fresh), string(nodes.IntentRefresh))
	// README: assumptions are always shown. The same query assumes what the
	// answer it refreshes did, and Explain on it says so.
	require.Equal(t, []string{"Came out means released on Steam."}, again.Assumptions)
	assert.Equal(t, again.Assumptions, fresh.Reply.Assumptions, "the refreshed answer shows the assumptions")
	assert.Contains(t, actionIDs(fresh), string(nodes.IntentExplain), "and has Explain")
	explained, _, err := b.PressState(ctx, bot.Message{ThreadID: thread, UserID: "UFRESH", ChannelID: "CFRESH"}, string(nodes.IntentExplain), fresh.QueryID)
	require.NoError(t, err)
	assert.Contains(t, explained.Reply.Text.Plain(), "It assumed: "+again.Assumptions[0])

	off := newBot(t, e, script())
	s, _, err := off.AskState(ctx, bot.Message{ThreadID: bot.NewThreadID(), UserID: "UFRESH", ChannelID: "CFRESH", Text: "How many games were released in 2018?"})
	require.NoError(t, err)
	assert.True(t, s.DataAsOf.IsZero(), "without RESULT_FRESHNESS every question runs")
}

func actionIDs(s *nodes.State) []string {
	var ids []string
	for _, a := range s.Reply.Actions {
		ids = append(ids, a.ID)
	}
	return ids
}
