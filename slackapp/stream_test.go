package slackapp

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

// In a channel, the answer's text streams into the thread for the user who
// asked (chat.startStream with the recipient Slack requires there), then
// the streamed message becomes the whole answer and the progress message
// is gone.
func TestStreamingAnswerInAChannel(t *testing.T) {
	t.Parallel()
	h := start(t, streaming())
	ch, ts := channelID("CSTREAM01"), "1700000080.000100"
	h.mention(ch, ts, "", q2018)
	streamed := h.slack.WaitMessage(t, "the answer streaming", func(m fakeslack.Message) bool {
		return m.Channel == ch && m.ThreadTS == ts && m.Streaming && strings.Contains(m.Text, "**8160** games")
	})
	final := h.answerIn(ch, ts, answer18)
	assert.Equal(t, streamed.TS, final.TS, "the streamed message became the answer")
	assert.False(t, final.Streaming)
	assert.Contains(t, string(final.Blocks), "export_csv", "the whole answer: its buttons too")
	h.waitJobs(1)
	msgs := h.threadMessages(ch, ts)
	require.Len(t, msgs, 1, "only the answer is left in the thread: %v", msgs)

	starts := h.slack.Calls("chat.startStream")
	require.Len(t, starts, 1)
	assert.Equal(t, user, starts[0].Args.Get("recipient_user_id"))
	assert.Equal(t, fakeslack.TeamID, starts[0].Args.Get("recipient_team_id"))
	assert.Equal(t, ts, starts[0].Args.Get("thread_ts"))
	assert.Len(t, h.slack.Calls("chat.stopStream"), 1)
	assert.Equal(t, 3, h.modelCalls(), "streaming costs no model call")
}

// A workspace that cannot stream gets the answer as before, in place of
// the progress message, and is not asked to stream again.
func TestStreamingUnavailableFallsBack(t *testing.T) {
	t.Parallel()
	h := start(t, streaming())
	h.slack.SetError("chat.startStream", "unknown_method")
	ch := channelID("CSTREAM02")
	for i, ts := range []string{"1700000081.000100", "1700000082.000100"} {
		h.mention(ch, ts, "", q2018)
		m := h.answerIn(ch, ts, answer18)
		assert.Positive(t, m.Updates, "the answer replaced the progress message")
		h.waitJobs(int64(i + 1))
		assert.Len(t, h.threadMessages(ch, ts), 1)
	}
	assert.Len(t, h.slack.Calls("chat.startStream"), 1, "tried once")
}

// A streamed message that cannot become the answer is deleted and the
// answer posted: the thread never keeps half an answer.
func TestStreamedMessageThatCannotBecomeTheAnswer(t *testing.T) {
	t.Parallel()
	h := start(t, streaming())
	h.slack.SetError("chat.update", "cant_update_message")
	ch, ts := channelID("CSTREAM03"), "1700000083.000100"
	h.mention(ch, ts, "", q2018)
	h.waitJobs(1)
	msgs := h.threadMessages(ch, ts)
	require.Len(t, msgs, 1, "one message left: %v", msgs)
	assert.Contains(t, strings.Join(msgs[0].BlockTexts(), "\n"), answer18)
	assert.False(t, msgs[0].Streaming)
}

// In a direct message, the stream needs no recipient.
func TestStreamingInADirectMessage(t *testing.T) {
	t.Parallel()
	h := start(t, streaming(), withConfig(func(c *Config) { c.AssistantStatus = false }))
	dm, ts := "D0STREAM4", "1700000084.000100"
	h.message(dm, "im", ts, "", q2018)
	h.answerIn(dm, ts, answer18)
	starts := h.slack.Calls("chat.startStream")
	require.Len(t, starts, 1)
	assert.Empty(t, starts[0].Args.Get("recipient_user_id"))
}

func TestMarkdownOfModelText(t *testing.T) {
	t.Parallel()
	var m markdown
	var got strings.Builder
	for _, chunk := range []string{"*81", "60* games, **Valve** *", "*leads** &amp; 5 * 3 *", ""} {
		got.WriteString(m.write(chunk))
	}
	got.WriteString(m.flush())
	assert.Equal(t, "**8160** games, **Valve** **leads** & 5 * 3 *", got.String())

	// A link the model writes is no link while it streams, even split
	// between chunks.
	m, got = markdown{}, strings.Builder{}
	for _, chunk := range []string{"See [the report](https://evil.example/?d=1) and [more]", "(https://evil.example/2)."} {
		got.WriteString(m.write(chunk))
	}
	got.WriteString(m.flush())
	assert.Equal(t, "See [the report] (https://evil.example/?d=1) and [more] (https://evil.example/2).", got.String())
}

// Where the stream is in use, progress is the plan's task cards, each shown
// as its step happens: the stream starts as the question is taken, and
// while the model writes the query the user reads the tables found and
// the query being written. At the end every step is complete and the
// message is the whole answer.
func TestStreamingShowsTheStepsAsTaskCards(t *testing.T) {
	t.Parallel()
	h := start(t, streaming(), withScript(slowDemoScript(300*time.Millisecond)))
	ch, ts := channelID("CTASKS"), "1700000085.000100"
	h.mention(ch, ts, "", q2018)

	writing := h.slack.WaitMessage(t, "the query being written", func(m fakeslack.Message) bool {
		return m.Channel == ch && m.Streaming && len(m.Tasks) == 2 && m.Tasks[1].Status == "in_progress"
	})
	assert.Equal(t, []fakeslack.Task{
		{ID: "tables", Title: "Finding the tables", Status: "complete"},
		{ID: "query", Title: "Writing the query", Status: "in_progress"},
	}, writing.Tasks)
	assert.Equal(t, "plan", writing.TaskDisplayMode)
	assert.Equal(t, "Answering your question", writing.Plan)
	assert.Empty(t, h.slack.Calls("chat.postMessage"), "no progress message where the stream is in use")

	final := h.answerIn(ch, ts, answer18)
	assert.Equal(t, writing.TS, final.TS, "the streamed message became the answer")
	h.waitJobs(1)
	msgs := h.threadMessages(ch, ts)
	require.Len(t, msgs, 1, "only the answer is in the thread: %v", msgs)

	assert.Empty(t, final.Tasks, "the answer replaced the cards")

	// Each card went from in progress to complete, in the steps' order; a
	// step quicker than one update may show complete at once.
	steps := streamedTasks(t, h.slack)
	var order []string
	seen := map[string][]string{}
	for _, s := range steps {
		if seen[s.ID] == nil {
			order = append(order, s.ID)
		}
		seen[s.ID] = append(seen[s.ID], s.Status)
	}
	assert.Equal(t, []string{"tables", "query", "run", "explain"}, order)
	for id, statuses := range seen {
		if len(statuses) == 1 {
			assert.Equal(t, []string{"complete"}, statuses, id)
		} else {
			assert.Equal(t, []string{"in_progress", "complete"}, statuses, id)
		}
	}
	assert.Equal(t, []string{"in_progress", "complete"}, seen["query"], "the slow step was seen in progress")
	start := h.slack.Calls("chat.startStream")
	require.Len(t, start, 1)
	assert.Equal(t, "plan", start[0].Args.Get("task_display_mode"))
}

// A shutdown that cannot wait turns every streamed message into the notice
// that says why there is no answer: the one being answered, with its step
// in progress ended as an error, and those still waiting for a worker.
// None is left streaming or doubled.
func TestStreamingShutdownEndsTheStreams(t *testing.T) {
	t.Parallel()
	h := start(t, streaming(), withScript(slowDemoScript(2*time.Second)), withConfig(func(c *Config) {
		c.ShutdownGrace, c.Workers = 0, 1
	}))
	const ts = "1700000087.000100"
	channels := []string{channelID("CSTREAMOFF"), channelID("CSTREAMOFF"), channelID("CSTREAMOFF")}
	for _, ch := range channels {
		h.mention(ch, ts, "", q2018)
	}
	h.slack.WaitCalls(t, "chat.startStream", len(channels))
	h.slack.WaitMessage(t, "a step in progress", func(m fakeslack.Message) bool {
		return m.Streaming && len(m.Tasks) > 0 && m.Tasks[len(m.Tasks)-1].Status == "in_progress"
	})
	h.shutdown()

	for _, ch := range channels {
		msgs := h.threadMessages(ch, ts)
		require.Len(t, msgs, 1, "%s: want exactly one message that says why there is no answer", ch)
		assert.False(t, msgs[0].Streaming, "%s: the stream was stopped", ch)
		assert.Contains(t, says(msgs[0]), "restarting", "%s: the user is told", ch)
	}
	var errored int
	for _, s := range streamedTasks(t, h.slack) {
		if s.Status == "error" {
			errored++
		}
	}
	assert.Equal(t, 1, errored, "the answer cut short ends its step as an error")
}

// A question whose query never works ends with the step it failed in as
// an error, none left in progress, and the message saying what happened.
func TestStreamingMarksTheFailedStep(t *testing.T) {
	t.Parallel()
	h := start(t, streaming(), withScript(bottest.DemoScript(badSQLRule)))
	ch, ts := channelID("CTASKERR"), "1700000088.000100"
	h.mention(ch, ts, "", badQuestion)
	m := h.answerIn(ch, ts, "couldn't write a query")
	h.waitJobs(1)
	assert.Len(t, h.threadMessages(ch, ts), 1)
	assert.Empty(t, m.Tasks, "the answer replaced the cards")

	last := map[string]string{}
	for _, s := range streamedTasks(t, h.slack) {
		last[s.ID] = s.Status
	}
	assert.Equal(t, "complete", last["tables"])
	var errored []string
	for id, status := range last {
		assert.NotEqual(t, "in_progress", status, id)
		if status == "error" {
			errored = append(errored, id)
		}
	}
	assert.Len(t, errored, 1, "one step failed: %v", last)
}
