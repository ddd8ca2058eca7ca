package nodes

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/store"
)

// A list of schedules is read wherever it was asked for, not in the
// thread a schedule posts to: a thread is named by its channel, and in
// the channel's list of everyone's schedules, one that sends its owner a
// message says whom. The confirmation, read in the thread, keeps "in this
// thread" and "send you".
func TestScheduleListWording(t *testing.T) {
	t.Parallel()
	n := (&Nodes{}).Defaults()
	w, err := schedule.ParseSpec("0 9 * * 1", time.UTC)
	require.NoError(t, err)
	thread := store.Schedule{ID: "3fa85f64", OwnerID: "U0001", Surface: SurfaceSlack, Question: "Signups", Spec: "0 9 * * 1",
		TimeZone: "UTC", DestKind: string(schedule.DestThread), DestChannel: "C0123", DestThread: "1700000000.000100",
		State: store.SchedulePaused}
	assert.Contains(t, blockkit.Mrkdwn(n.scheduleLine(thread, false)), "post “Signups” in a thread of <#C0123> every Monday at 09:00 (UTC)")
	assert.Contains(t, blockkit.Mrkdwn(DescribeSchedule(thread, w)), "post “Signups” in this thread every Monday")

	dm := thread
	dm.DestKind, dm.DestChannel, dm.DestThread = string(schedule.DestDM), "", ""
	assert.Contains(t, blockkit.Mrkdwn(n.scheduleLine(dm, true)), "send <@U0001> “Signups” in a direct message")
	assert.Contains(t, blockkit.Mrkdwn(n.scheduleLine(dm, false)), "send you “Signups” in a direct message")

	// How its last run ended, in words.
	for outcome, want := range map[string]string{
		store.RunQuiet: "sent nothing (the condition did not hold)", store.RunFailed: "failed",
		store.RunRefused: "was refused", store.RunPaused: "sent nothing (paused while it ran)",
	} {
		ran := thread
		ran.LastOutcome = outcome
		assert.Contains(t, blockkit.Mrkdwn(n.scheduleLine(ran, false)), "; last run "+want, outcome)
	}

	web := thread
	web.Surface = "web"
	assert.Contains(t, blockkit.Mrkdwn(n.scheduleLine(web, false)), "post “Signups” in the conversation it was made in every Monday")
}

// A schedule's question is what its owner typed: the web and the terminal,
// which draw the spans, show it as typed, with no link under a made-up
// label and no bold, as Slack does (slackapp's
// TestScheduleQuestionIsShownAsTyped).
func TestScheduleQuestionIsNotMarkup(t *testing.T) {
	t.Parallel()
	const question = "revenue <https://evil.example/login|Re-authenticate the bot here> *now* <@U0HOSTILE>"
	n := (&Nodes{}).Defaults()
	w, err := schedule.ParseSpec("0 9 * * 1", time.UTC)
	require.NoError(t, err)
	sch := store.Schedule{ID: "3fa85f64", OwnerID: "U0001", Surface: "web", Question: question, Spec: "0 9 * * 1",
		TimeZone: "UTC", DestKind: string(schedule.DestThread), State: store.ScheduleActive}
	for name, text := range map[string]answer.Text{
		"list":         n.scheduleLine(sch, true),
		"confirmation": DescribeSchedule(sch, w),
	} {
		assert.Contains(t, text.Plain(), "“"+question+"”", "%s: the question as typed", name)
		for _, sp := range text {
			if strings.Contains(question, strings.Trim(sp.Text, "“”")) {
				assert.Equal(t, answer.Span{Text: sp.Text}, sp, "%s: the question's words are plain", name)
			}
		}
	}
}
