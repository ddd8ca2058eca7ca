package bot_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/pgpool"
)

// testStartedThread: the message StartThread returns vouches for its
// thread's owner, so asking with it does not read the owner back, nor the
// history of a thread nobody else knows yet; it vouches for no one else,
// and the second question asked with it reads the first turn.
func testStartedThread(t *testing.T, e *testEnv) {
	b := newBot(t, e, script(`
  - step: classify
    match: '(?s)\nUser: How many games were released in 2018\?\n.*\nQuestion: And in 2017\?\s*$'
    reply: '{"intent": "follow_up", "confidence": 0.9, "question": "How many games were released in 2017?"}'
`))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var rt pgpool.RoundTrips
	m, err := b.StartThread(pgpool.CountRoundTrips(ctx, &rt), bot.Message{UserID: "token:ana", ChannelID: "web"})
	require.NoError(t, err)
	assert.Regexp(t, `^web-[0-9a-f]{32}$`, m.ThreadID)
	assert.Equal(t, 1, rt.Len(), "the thread is recorded:\n%s", &rt)

	other := m
	other.UserID, other.Text = "token:zed", "How many games were released in 2018?"
	_, _, err = b.AskState(ctx, other)
	assert.ErrorIs(t, err, bot.ErrNoThread, "the message vouches for its own user only")

	rt.Reset()
	require.NoError(t, b.CheckThread(pgpool.CountRoundTrips(ctx, &rt), m))
	assert.Zero(t, rt.Len(), "the owner is not read back:\n%s", &rt)

	m.Text = "How many games were released in 2018?"
	s, _, err := b.AskState(ctx, m)
	require.NoError(t, err)
	require.Empty(t, s.ErrorKind, s.ErrorDetail)
	assert.Empty(t, s.History)
	assert.Equal(t, "8,160 games were released on Steam in 2018.", s.ResponseText)

	m.Text = "And in 2017?"
	s, _, err = b.AskState(ctx, m)
	require.NoError(t, err)
	require.Empty(t, s.ErrorKind, s.ErrorDetail)
	require.Len(t, s.History, 1, "the first turn, read as history")
	assert.Equal(t, "How many games were released in 2018?", s.History[0].UserMessage)
	assert.Equal(t, "6,357 games were released on Steam in 2017.", s.ResponseText)
}
