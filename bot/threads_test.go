package bot_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
)

// testThreadOwners: a web thread is issued to its asker and only theirs
// through every entry point of the bot; Slack's threads are the channel's
// and the terminal's local, as before.
func testThreadOwners(t *testing.T, e *testEnv) {
	const followUp = `
  - step: classify
    match: '(?s)\nUser: How many games were released in 2018\?\n.*\nQuestion: And in 2017\?\s*$'
    reply: '{"intent": "follow_up", "confidence": 0.9, "question": "How many games were released in 2017?"}'
`
	b := newBot(t, e, script(followUp), func(c *bot.Config) { c.ExampleAdmins = []string{"token:zed"} })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ana := bot.Message{UserID: "token:ana", ChannelID: "web", Text: "How many games were released in 2018?"}
	s, _, err := b.AskState(ctx, ana)
	require.NoError(t, err)
	require.Empty(t, s.ErrorKind, s.ErrorDetail)
	require.Regexp(t, `^web-[0-9a-f]{32}$`, s.ThreadTS, "a question without a thread starts one")
	ana.ThreadID = s.ThreadTS
	query := s.QueryID

	zed := ana
	zed.UserID, zed.Text = "token:zed", "And in 2017?"
	turns := len(recentTurns(t, e, ana.ThreadID))
	calls := len(b.Scripted.Calls())
	refusals := map[string]func() error{
		"Ask": func() error { _, _, err := b.AskState(ctx, zed); return err },
		"Ask a note": func() error {
			m := zed
			m.Text = "feedback: wrong"
			_, _, err := b.AskState(ctx, m)
			return err
		},
		"Press": func() error { _, _, err := b.PressState(ctx, zed, string(nodes.IntentShowSQL), query); return err },
		"Rate":  func() error { _, err := b.Rate(ctx, zed, store.RatingUp, query, ""); return err },
		"Note":  func() error { _, err := b.Note(ctx, zed, query, "wrong"); return err },
		"Verify": func() error {
			_, err := b.Verify(ctx, zed, query)
			return err
		},
		"ManageSchedule": func() error {
			_, err := b.ManageSchedule(ctx, zed, nodes.ActionSchedulePause, "0123abcd")
			return err
		},
		"Thread":  func() error { _, err := b.Thread(ctx, zed, 10); return err },
		"Context": func() error { _, err := b.Context(ctx, zed); return err },
		"a thread never issued": func() error {
			m := ana
			m.ThreadID = "web-0123456789abcdef0123456789abcdef"
			_, _, err := b.AskState(ctx, m)
			return err
		},
	}
	for name, call := range refusals {
		assert.ErrorIs(t, call(), bot.ErrNoThread, name)
	}
	assert.Len(t, recentTurns(t, e, ana.ThreadID), turns, "nothing saved into the owner's thread")
	assert.Len(t, b.Scripted.Calls(), calls, "no model call")
	var rated int
	require.NoError(t, e.admin.Pool().QueryRow(ctx, `SELECT count(*) FROM feedback WHERE thread_id = $1`, ana.ThreadID).Scan(&rated))
	assert.Zero(t, rated, "no rating kept")

	mine, err := b.Thread(ctx, ana, 10)
	require.NoError(t, err)
	require.Len(t, mine, turns)
	ana.Text = "And in 2017?"
	s, _, err = b.AskState(ctx, ana)
	require.NoError(t, err, "the owner continues")
	assert.Equal(t, [][]any{{int64(games2017)}}, s.Result.Rows)

	// Slack's threads are the channel's: anyone there follows up.
	slack := bot.Message{ThreadID: "C1:1700000000.000100", UserID: "U1", ChannelID: "C1", Text: "How many games were released in 2018?"}
	_, _, err = b.AskState(ctx, slack)
	require.NoError(t, err)
	slack.UserID, slack.Text = "U2", "And in 2017?"
	s, _, err = b.AskState(ctx, slack)
	require.NoError(t, err, "another member of the channel follows up")
	assert.Equal(t, [][]any{{int64(games2017)}}, s.Result.Rows)

	// The terminal's threads keep their local ids.
	s, _, err = b.AskState(ctx, bot.Message{UserID: "terminal", ChannelID: "terminal", Text: "How many games were released in 2018?"})
	require.NoError(t, err)
	assert.Regexp(t, `^local-[0-9a-f]+$`, s.ThreadTS)
}
