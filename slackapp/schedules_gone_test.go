package slackapp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/store"
)

// A channel a run depends on that Slack says is gone when the run checks
// its owner is still in it (conversations.members: channel_not_found,
// deleted or private without the bot) fails the run as a post there
// would: no retry within the run, and its owner is told why in the words
// of a post Slack refused, not that Slack could not confirm who they are.
// A DM schedule's channel it was made in, whose access it reads with, is
// named as such.
func TestRunWhoseChannelIsGoneIsNotRetried(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, dest string
		want       string
	}{
		{name: "posts to it", dest: "channel", want: "(I couldn't post it: I can't find that channel: it was deleted, or it is private " +
			"and I'm not in it (invite me with /invite @%s)). I'll try again at the next time, Tuesday 1 December at 09:00."},
		{name: "made in it, posts to a DM", dest: "dm", want: "(I couldn't post it: I can't check the channel it was made in, " +
			"whose access it reads with: I can't find that channel: it was deleted, or it is private and I'm not in it " +
			"(invite me with /invite @%s)). I'll try again at the next time"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
			clk := bottest.NewClock(due)
			h, sc := scheduled(t, clk, "replica-1", ownState(t))
			ch := channelID("CGONE")
			answered(t, h, ch, "1700002501.000100")
			h.slack.Join(ch, user)
			s := storedSchedules(t, h, threadID(ch, "1700002501.000100"), ch, due, 1, func(s *store.Schedule) {
				if tt.dest == "dm" {
					s.DestKind, s.DestChannel = "dm", user
				}
			})[0]

			h.slack.DeleteChannel(ch)
			require.Equal(t, 1, tick(t, sc), "the attempt at 09:00")
			noRetries(t, clk, sc, due)
			note := ownerNote(t, h, user, "I couldn't run your schedule “"+s.Question+"”")
			assert.Contains(t, says(note), "that was due Monday 30 November at 09:00 "+strings.ReplaceAll(tt.want, "%s", h.app.botName()))
			assert.NotContains(t, says(note), "who you are")
			assert.Empty(t, h.posts(ch, s.Question), "nothing posted in the channel")
			assert.Empty(t, h.posts("D"+user, "📅"), "nor in their direct messages")
			runs, err := h.bot.DB().ScheduleRuns(context.Background(), s.ID, 10)
			require.NoError(t, err)
			require.Len(t, runs, 1, "one attempt")
			assert.Equal(t, store.RunFailed, runs[0].Outcome)
			assert.Equal(t, "undeliverable", runs[0].ErrorKind)
		})
	}
}

// When Slack does not answer whether a run's owner is still in its
// channel (conversations.members failing for a while), the run reads
// nothing and is tried again; its owner is then told that, not that Slack
// could not confirm who they are.
func TestRunWhoseOwnersMembershipSlackCannotTellIsRetried(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clk := bottest.NewClock(due)
	h, sc := scheduled(t, clk, "replica-1", ownState(t))
	ch := channelID("CMEMBERS")
	answered(t, h, ch, "1700002601.000100")
	s := storedSchedules(t, h, threadID(ch, "1700002601.000100"), ch, due, 1)[0]

	h.slack.SetError("conversations.members", "fetch_members_failed")
	for _, at := range []time.Duration{0, time.Minute, 3 * time.Minute} { // SCHEDULE_RETRIES=2, 1m doubling
		clk.Set(due.Add(at))
		require.Equal(t, 1, tick(t, sc), "attempt at +%s", at)
	}
	assert.Empty(t, h.posts(ch, s.Question), "nothing posted")
	note := ownerNote(t, h, user, "I couldn't run your schedule “"+s.Question+"”")
	assert.Contains(t, says(note), "(Slack didn't say whether you are still in its channel, so I read nothing as you, 3 tries)")
	runs, err := h.bot.DB().ScheduleRuns(context.Background(), s.ID, 10)
	require.NoError(t, err)
	require.Len(t, runs, 3)
	for _, r := range runs {
		assert.Equal(t, store.RunFailed, r.Outcome)
		assert.Equal(t, "membership_unknown", r.ErrorKind)
	}
}
