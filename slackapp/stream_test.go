package slackapp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
}
