package slackapp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

func TestMentionIsAnsweredInItsThread(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch, ts := channelID("CMENTION1"), "1700000001.000100"

	h.mention(ch, ts, "", q2018)
	m := h.answerIn(ch, ts, answer18)

	texts := strings.Join(m.BlockTexts(), "\n")
	assert.Contains(t, texts, "*8,160*", "the count, as the table writes it")
	assert.Contains(t, texts, "A game counts in the year of its release date", "the assumptions")
	assert.Contains(t, string(m.Blocks), `"action_id":"show_sql"`, "the Show SQL button")
	assert.GreaterOrEqual(t, m.Updates, 1, "the answer replaced the progress message")
	assert.Len(t, h.threadMessages(ch, ts), 1, "one message in the thread: progress, then answer")

	first := h.slack.Calls("chat.postMessage")[0]
	assert.Contains(t, first.Args.Get("blocks"), "Working on it", "progress shows before the answer")
	assert.Empty(t, h.slack.Statuses(), "no assistant status in a channel")
}

func TestFollowUpInTheThreadNeedsNoMention(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch, ts := channelID("CFOLLOW01"), "1700000002.000100"
	h.mention(ch, ts, "", q2018)
	h.answerIn(ch, ts, answer18)
	calls := h.modelCalls()

	h.message(ch, "channel", "1700000002.000300", ts, "And in 2017?")
	h.answerIn(ch, ts, answer17)
	assert.LessOrEqual(t, h.modelCalls()-calls, 3, "a follow-up costs at most 3 model calls")
}

func TestMessagesTheBotMustIgnore(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch := channelID("CIGNORE01")
	before := len(h.slack.Messages())

	// A reply in a thread the bot never answered in, top-level chatter,
	// an edit, another bot and the bot itself: none is a question.
	h.message(ch, "channel", "1700000003.000200", "1700000003.000100", q2018)
	h.message(ch, "channel", "1700000003.000300", "", q2018)
	edited := fakeslack.MessageEvent(ch, "channel", user, q2018, "1700000003.000400", "")
	edited["subtype"] = "message_changed"
	fromBot := fakeslack.MessageEvent(ch, "channel", "UOTHERBOT", q2018, "1700000003.000500", "")
	fromBot["bot_id"] = "BOTHER01"
	self := fakeslack.MessageEvent(channelID("DSELF"), "im", fakeslack.BotUserID, q2018, "1700000003.000600", "")
	for i, ev := range []map[string]any{edited, fromBot, self} {
		id := h.slack.Send(t, fakeslack.Envelope{Type: "events_api", Payload: fakeslack.EventCallback("EvIgnore"+string(rune('a'+i)), ev)})
		h.slack.WaitAck(t, id)
	}
	// Only the thread reply becomes a job (it needs a database look-up);
	// the others are dropped when they arrive. A DM then proves the app
	// is still working and that nothing was posted meanwhile.
	h.waitJobs(1)
	after := channelID("DAFTER")
	h.message(after, "im", "1700000003.000700", "", q2018)
	h.answerIn(after, "1700000003.000700", answer18)
	for _, m := range h.slack.Messages()[before:] {
		assert.Equal(t, after, m.Channel, "nothing may be posted but the DM's answer, got %+v", m)
	}
}

func TestDirectMessageUsesTheAssistantStatus(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch, ts := channelID("DDIRECT01"), "1700000004.000100"
	h.message(ch, "im", ts, "", q2018)
	m := h.answerIn(ch, ts, answer18)

	assert.Equal(t, 0, m.Updates, "with a thread status there is no progress message to replace")
	statuses := h.slack.Statuses()
	require.NotEmpty(t, statuses, "assistant.threads.setStatus was called")
	assert.Equal(t, "is working on it…", statuses[0].Status)
	var labels []string
	for _, s := range statuses {
		assert.Equal(t, ch, s.Channel)
		assert.Equal(t, ts, s.ThreadTS)
		labels = append(labels, s.Status)
	}
	assert.Contains(t, labels, "is writing SQL…", "node progress shows as the status")
}

func TestDirectMessageFallsBackWithoutAssistantStatus(t *testing.T) {
	t.Parallel()
	h := start(t)
	h.slack.SetError("assistant.threads.setStatus", "missing_scope")
	ch, ts := channelID("DNOSTATUS"), "1700000005.000100"
	h.message(ch, "im", ts, "", q2018)
	m := h.answerIn(ch, ts, answer18)
	assert.GreaterOrEqual(t, m.Updates, 1, "the progress message was replaced by the answer")

	h.message(ch, "im", "1700000005.000300", "", q2018)
	h.answerIn(ch, "1700000005.000300", answer18)
	assert.Len(t, h.slack.Calls("assistant.threads.setStatus"), 1, "after missing_scope the status is not tried again")
}

func TestSlashCommand(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch := channelID("CSLASH001")

	id := h.slack.Send(t, fakeslack.Envelope{Type: "slash_commands", Payload: mustJSON(t, h.slack.SlashCommand("/ask", q2018, user, ch))})
	ack := h.slack.WaitAck(t, id)
	assert.Empty(t, ack.Payload, "a question is acknowledged with nothing shown: the question posted is what the asker reads")

	asked := h.slack.WaitMessage(t, "the question posted in the channel", func(m fakeslack.Message) bool {
		return m.Channel == ch && m.ThreadTS == "" && strings.Contains(m.Text, "asked: "+q2018)
	})
	assert.Contains(t, asked.Text, "<@"+user+">")
	h.answerIn(ch, asked.TS, answer18)

	id = h.slack.Send(t, fakeslack.Envelope{Type: "slash_commands", Payload: mustJSON(t, h.slack.SlashCommand("/ask", "help", user, ch))})
	help := string(h.slack.WaitAck(t, id).Payload)
	assert.Contains(t, help, `"response_type":"ephemeral"`)
	assert.Contains(t, help, "Try asking", "help lists example questions")
	assert.Contains(t, help, q2018)
}

func TestSlashCommandWhereTheBotCannotPost(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch := channelID("GPRIVATE1")
	h.slack.SetNotInChannel(ch)
	id := h.slack.Send(t, fakeslack.Envelope{Type: "slash_commands", Payload: mustJSON(t, h.slack.SlashCommand("/ask", q2018, user, ch))})
	h.slack.WaitAck(t, id)
	m := h.slack.WaitMessage(t, "an ephemeral explanation", func(m fakeslack.Message) bool {
		return m.Ephemeral && strings.Contains(m.Text, "/invite @")
	})
	assert.Equal(t, user, m.User, "only the user who asked sees it")
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func TestGarbageEnvelopesAreAckedAndIgnored(t *testing.T) {
	t.Parallel()
	h := start(t)
	for _, e := range []fakeslack.Envelope{
		{Type: "events_api", Payload: json.RawMessage(`{"type":"event_callback","event":{"type":"no_such_event"}}`)},
		{Type: "events_api", Payload: json.RawMessage(`"not an object"`)},
		{Type: "interactive", Payload: json.RawMessage(`{"type":"block_actions","actions":[]}`)},
		{Type: "mystery", Payload: json.RawMessage(`{}`)},
	} {
		id := h.slack.Send(t, e)
		h.slack.WaitAck(t, id)
	}
	ch, ts := channelID("DSTILLOK1"), "1700000006.000100"
	h.message(ch, "im", ts, "", q2018)
	h.answerIn(ch, ts, answer18)
}
