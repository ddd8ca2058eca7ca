package slackapp

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

// channelSeq numbers the channels channelID hands out.
var channelSeq atomic.Int64

// channelID returns a channel id no other test of this process uses. The
// package database lives as long as the process, and with it delivery
// claims and threads keyed by channel: a fixed id would find its messages
// already handled when the test runs again under -count.
func channelID(prefix string) string {
	return fmt.Sprintf("%s%04d", prefix, channelSeq.Add(1))
}

// says reports what a user reads in m: its blocks' texts and its text.
func says(m fakeslack.Message) string {
	return strings.Join(m.BlockTexts(), "\n") + "\n" + m.Text
}

// byTS sorts messages by timestamp, the order Slack shows them in.
func byTS(msgs []fakeslack.Message) []fakeslack.Message {
	slices.SortFunc(msgs, func(a, b fakeslack.Message) int { return strings.Compare(a.TS, b.TS) })
	return msgs
}

func TestSocketModeRedeliveryIsAnsweredOnce(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch, ts := channelID("CREDELIV"), "1700000201.000100"
	payload := fakeslack.EventCallback("EvRedeliver", fakeslack.AppMention(ch, user, "<@"+fakeslack.BotUserID+"> "+q2018, ts, ""))

	for attempt := range 3 {
		e := fakeslack.Envelope{Type: "events_api", Payload: payload, RetryAttempt: attempt}
		if attempt > 0 {
			e.RetryReason = "timeout"
		}
		h.slack.WaitAck(t, h.slack.Send(t, e))
	}

	h.answerIn(ch, ts, answer18)
	h.waitJobs(3)
	assert.Len(t, h.threadMessages(ch, ts), 1, "three deliveries of one event, one answer")
}

// A signed event with no channel, user or timestamp is acknowledged and
// dropped: no model call, no message, no turn saved under thread ":".
func TestIncompleteEventsAreDropped(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch := channelID("CINCOMPL")
	for _, ev := range []map[string]any{
		fakeslack.AppMention("", user, "<@"+fakeslack.BotUserID+"> "+q2018, "1700000301.000100", ""),
		fakeslack.AppMention(ch, "", "<@"+fakeslack.BotUserID+"> "+q2018, "1700000302.000100", ""),
		fakeslack.AppMention(ch, user, "<@"+fakeslack.BotUserID+"> "+q2018, "", ""),
		fakeslack.MessageEvent("", "im", user, q2018, "1700000303.000100", ""),
		fakeslack.MessageEvent(ch, "im", user, q2018, "", ""),
	} {
		h.slack.WaitAck(t, h.slack.SendEvent(t, ev))
	}
	// Events are routed in the order they arrive: once a good one is
	// answered, the bad ones before it have been dealt with.
	ts := "1700000304.000100"
	h.mention(ch, ts, "", q2018)
	h.answerIn(ch, ts, answer18)
	h.waitJobs(1)

	calls := h.modelCalls()
	assert.Equal(t, 3, calls, "only the good question called the model (3 calls)")
	var others int
	for _, m := range h.slack.Messages() {
		if m.Channel == ch && m.ThreadTS != ts || m.Channel == "" {
			others++
		}
	}
	assert.Zero(t, others, "no message for the incomplete events")
	var turns int
	require.NoError(t, h.bot.DB().Pool().QueryRow(t.Context(),
		`SELECT count(*) FROM conversation_turns WHERE thread_id = ':' OR thread_id LIKE ':%' OR thread_id LIKE '%:'`).Scan(&turns))
	assert.Zero(t, turns, "no turn saved without a channel or a timestamp")
}

func TestManyThreadsAtOnceKeepTheirOrder(t *testing.T) {
	t.Parallel()
	const threads = 50
	h := start(t, withScript(slowDemoScript(50*time.Millisecond)), withConfig(func(c *Config) { c.Workers = 8 }))
	const ts, followTS = "1700000202.000100", "1700000202.000200"
	channels := make([]string, threads)
	for i := range channels {
		channels[i] = channelID("CMANY")
	}

	// Every question and its follow-up arrive before any answer is awaited:
	// the follow-up only resolves to 2017 if it ran after the first answer
	// was saved.
	for _, ch := range channels {
		h.mention(ch, ts, "", q2018)
		h.message(ch, "channel", followTS, ts, "And in 2017?")
	}
	h.waitJobs(2 * threads)

	for _, ch := range channels {
		msgs := byTS(h.threadMessages(ch, ts))
		require.Len(t, msgs, 2, "%s: got %d messages, want the answer and the follow-up's answer", ch, len(msgs))
		assert.Contains(t, says(msgs[0]), answer18, "%s: the first message answers the question", ch)
		assert.Contains(t, says(msgs[1]), answer17, "%s: the second answers the follow-up", ch)
	}
}

func TestRateLimitedPostIsRetried(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch, ts := channelID("CRATELIM"), "1700000203.000100"
	h.slack.RateLimitNext("chat.postMessage", 1, 1)

	h.mention(ch, ts, "", q2018)
	m := h.answerIn(ch, ts, answer18)

	calls := h.slack.Calls("chat.postMessage")
	require.GreaterOrEqual(t, len(calls), 2, "got %d chat.postMessage calls, want the refused one and its retry", len(calls))
	assert.Equal(t, 429, calls[0].Status, "got status %d first, want 429", calls[0].Status)
	assert.Equal(t, 200, calls[1].Status, "got status %d on the retry, want 200", calls[1].Status)
	assert.Contains(t, calls[1].Args.Get("blocks"), "Working on it", "the retry is the same progress message, not a later post")
	wait := calls[1].At.Sub(calls[0].At)
	assert.GreaterOrEqual(t, wait, time.Second, "got a retry %s after the 429, want Retry-After's 1s at least", wait)
	assert.GreaterOrEqual(t, m.Updates, 1, "the answer replaced the retried progress message")
	assert.Len(t, h.threadMessages(ch, ts), 1)
}

func TestServerErrorsOnUpdateAreRetried(t *testing.T) {
	t.Parallel()
	// With a long progress interval the progress message changes once,
	// to the first step's label; the next chat.update is the answer's.
	h := start(t, withScript(slowDemoScript(300*time.Millisecond)), withConfig(func(c *Config) { c.ProgressInterval = time.Hour }))
	ch, ts := channelID("CFAIL503"), "1700000204.000100"

	h.mention(ch, ts, "", q2018)
	h.slack.WaitMessage(t, "the progress message showing a step", func(m fakeslack.Message) bool {
		return m.Channel == ch && m.ThreadTS == ts && m.Updates == 1 && strings.HasPrefix(m.Text, "⏳")
	})
	h.slack.FailNext("chat.update", 2, 503)
	m := h.answerIn(ch, ts, answer18)

	var statuses []int
	for _, c := range h.slack.Calls("chat.update") {
		statuses = append(statuses, c.Status)
	}
	assert.Equal(t, []int{200, 503, 503, 200}, statuses, "chat.update: the step label, then the answer refused twice and retried")
	assert.Equal(t, 2, m.Updates, "the answer replaced the progress message")
	assert.Len(t, h.threadMessages(ch, ts), 1, "no second message for the answer")
}

func TestShutdownFinishesWorkInFlight(t *testing.T) {
	t.Parallel()
	h := start(t, withScript(slowDemoScript(300*time.Millisecond)))
	ch, ts := channelID("CSHUTOK"), "1700000205.000100"

	h.mention(ch, ts, "", q2018)
	h.slack.WaitMessage(t, "the progress message", func(m fakeslack.Message) bool {
		return m.Channel == ch && m.ThreadTS == ts && strings.Contains(m.Text, "Working on it")
	})
	h.shutdown()

	// No waiting: shutdown returned only after the answer went out.
	msgs := h.threadMessages(ch, ts)
	require.Len(t, msgs, 1, "got %d messages in the thread, want the answer", len(msgs))
	assert.Contains(t, says(msgs[0]), answer18, "the answer in flight was finished")
}

func TestShutdownReportsWorkItCouldNotFinish(t *testing.T) {
	t.Parallel()
	h := start(t, withScript(slowDemoScript(2*time.Second)), withConfig(func(c *Config) {
		c.ShutdownGrace, c.Workers = 0, 1
	}))
	const ts = "1700000206.000100"
	channels := []string{channelID("CSHUTLOST"), channelID("CSHUTLOST"), channelID("CSHUTLOST")}
	for _, ch := range channels {
		h.mention(ch, ts, "", q2018)
	}
	h.slack.WaitMessage(t, "a progress message", func(m fakeslack.Message) bool {
		return slices.Contains(channels, m.Channel) && strings.Contains(m.Text, "Working on it")
	})
	h.shutdown()

	// Shutdown returned, so whatever the app says has been said: one
	// message per thread, the progress message replaced by the notice (a
	// progress post cut short by the shutdown would leave a stale one).
	for _, ch := range channels {
		msgs := h.threadMessages(ch, ts)
		require.Len(t, msgs, 1, "%s: want exactly one message that says why there is no answer", ch)
		assert.Contains(t, says(msgs[0]), "restarting", "%s: the user is told, not silently dropped", ch)
	}
}

func TestFullQueueTellsUsersTheBotIsBusy(t *testing.T) {
	t.Parallel()
	h := start(t, withScript(slowDemoScript(500*time.Millisecond)), withConfig(func(c *Config) {
		c.Workers, c.QueueLimit = 1, 1
	}))
	const ts = "1700000207.000100"
	channels := make([]string, 5)
	for i := range channels {
		channels[i] = channelID("CBUSY")
		h.mention(channels[i], ts, "", q2018)
	}
	h.waitJobs(int64(len(channels)))

	answered, busy := 0, 0
	for _, ch := range channels {
		msgs := h.threadMessages(ch, ts)
		require.Len(t, msgs, 1, "%s: got %d messages, want an answer or an apology", ch, len(msgs))
		text := says(msgs[0])
		isAnswer, isBusy := strings.Contains(text, answer18), strings.Contains(text, "answering a lot of questions")
		assert.True(t, isAnswer != isBusy, "%s: want either the answer or the busy message, got %q", ch, text)
		if isAnswer {
			answered++
		}
		if isBusy {
			busy++
		}
	}
	assert.GreaterOrEqual(t, answered, 1, "the first question always fits")
	assert.GreaterOrEqual(t, busy, 1, "one worker and one waiting place cannot take five slow questions")
}

// Web API calls that get a 5xx are retried SLACK_API_RETRIES times, and
// then given up (docs/slack.md, Reliability): with one retry, the answer's
// chat.update refused with 503 is sent twice, not a third time, and the
// answer is posted as a new message in the thread instead, and the
// progress message it could not replace is deleted.
func TestAPIRetriesStopAtTheSetting(t *testing.T) {
	t.Parallel()
	h := start(t, withConfig(func(c *Config) { c.APIRetries = 1 }))
	ch, ts := channelID("CRETRIES"), "1700000402.000100"
	// The progress updates before it say "⏳ …"; the answer does not.
	isAnswer := func(args url.Values) bool { return !strings.HasPrefix(args.Get("text"), "⏳") }
	h.slack.FailNextMatching("chat.update", 3, 503, isAnswer)

	h.mention(ch, ts, "", q2018)
	m := h.answerIn(ch, ts, answer18)
	h.waitJobs(1)

	var statuses []int
	for _, c := range h.slack.Calls("chat.update") {
		if isAnswer(c.Args) {
			statuses = append(statuses, c.Status)
		}
	}
	assert.Equal(t, []int{503, 503}, statuses, "the answer's chat.update: the call and one retry")
	assert.Zero(t, m.Updates, "the answer was posted as a new message")
	assert.Len(t, h.threadMessages(ch, ts), 1, "the answer alone: the progress message is deleted once the answer is posted")
}
