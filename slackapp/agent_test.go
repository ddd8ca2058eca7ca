package slackapp

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

// An app made from slack/manifest.yaml (agent_view): opening its Messages
// tab offers the suggested prompts to the conversation; a question there
// is answered in its own thread, with the thread status while it works.
// Opening another tab, and moving around Slack, change nothing.
func TestAgentMessagesTab(t *testing.T) {
	t.Parallel()
	h := start(t)
	h.slack.SetExperience(fakeslack.AgentView)
	dm := channelID("DAGENT")

	home := h.slack.SendEvent(t, fakeslack.AppHomeOpened(dm, user, "home"))
	moved := h.slack.SendEvent(t, fakeslack.AppContextChanged(dm, user, "CSOMEWHERE1"))
	h.slack.SendEvent(t, fakeslack.AppHomeOpened(dm, user, "messages"))
	require.Eventually(t, func() bool { return len(h.slack.SuggestedPrompts()) == 1 }, 10*time.Second, 20*time.Millisecond)
	p := h.slack.SuggestedPrompts()[0]
	assert.Equal(t, dm, p.Channel)
	assert.Empty(t, p.ThreadTS, "agent apps set prompts for the conversation")
	require.Len(t, p.Prompts, 4)
	assert.Equal(t, q2018, p.Prompts[0].Message)
	h.slack.WaitAck(t, home)
	h.slack.WaitAck(t, moved)

	ts := "1700000090.000100"
	h.message(dm, "im", ts, "", q2018)
	m := h.answerIn(dm, ts, answer18)
	assert.Equal(t, ts, m.ThreadTS, "the answer is a reply in the question's thread")
	statuses := h.slack.Statuses()
	require.NotEmpty(t, statuses, "the thread status shows progress")
	for _, s := range statuses {
		assert.Equal(t, fakeslack.Status{Channel: dm, ThreadTS: ts, Status: s.Status}, s)
	}
	assert.Contains(t, statusTexts(statuses), "is writing SQL…")
	assert.Empty(t, h.slack.Titles(), "the question is the thread's root: no title to set")

	assert.Len(t, h.slack.Calls("assistant.threads.setSuggestedPrompts"), 1, "only the Messages tab offers prompts")
	for _, m := range h.slack.Messages() {
		assert.Equal(t, ts, m.ThreadTS, "nothing but the answer was posted, got %+v", m)
	}
}

// An installation still made with assistant_view keeps its experience:
// assistant_thread_started offers the prompts to the new thread, whose
// first question becomes its title (TestAssistantThread has the rest).
func TestAssistantViewInstallationKeepsWorking(t *testing.T) {
	t.Parallel()
	h := start(t)
	h.slack.SetExperience(fakeslack.AssistantView)
	dm, root := channelID("DLEGACY"), "1700000091.000100"
	h.slack.SendEvent(t, fakeslack.AssistantThreadStarted(dm, user, root))
	require.Eventually(t, func() bool { return len(h.slack.SuggestedPrompts()) == 1 }, 10*time.Second, 20*time.Millisecond)
	assert.Equal(t, root, h.slack.SuggestedPrompts()[0].ThreadTS)

	h.message(dm, "im", "1700000091.000200", root, q2018)
	h.answerIn(dm, root, answer18)
	require.Eventually(t, func() bool { return len(h.slack.Titles()) == 1 }, 10*time.Second, 20*time.Millisecond)
	statuses := h.slack.Statuses()
	require.NotEmpty(t, statuses)
	assert.Equal(t, root, statuses[0].ThreadTS, "the status goes to the assistant thread")
}

func statusTexts(statuses []fakeslack.Status) []string {
	var out []string
	for _, s := range statuses {
		out = append(out, s.Status)
	}
	return out
}

// taskStep is one task card's status as one streaming call sent it.
type taskStep struct{ ID, Status string }

// streamedTasks reads the task_update chunks of the streaming calls, in
// the order they were made.
func streamedTasks(t *testing.T, s *fakeslack.Server) []taskStep {
	t.Helper()
	var calls []fakeslack.Call
	for _, c := range s.Calls("") {
		switch c.Method {
		case "chat.startStream", "chat.appendStream", "chat.stopStream":
			calls = append(calls, c)
		}
	}
	var out []taskStep
	for _, c := range calls {
		raw := c.Args.Get("chunks")
		if raw == "" {
			continue
		}
		var chunks []struct{ Type, ID, Status string }
		require.NoError(t, json.Unmarshal([]byte(raw), &chunks))
		for _, ch := range chunks {
			if ch.Type == "task_update" {
				out = append(out, taskStep{ch.ID, ch.Status})
			}
		}
	}
	return out
}

// With streaming on, as by default, a question in the Messages tab shows its
// steps as task cards in the streamed reply instead of the thread status.
func TestAgentMessagesTabStreams(t *testing.T) {
	t.Parallel()
	h := start(t, streaming())
	h.slack.SetExperience(fakeslack.AgentView)
	dm, ts := channelID("DAGENTSTREAM"), "1700000092.000100"
	h.message(dm, "im", ts, "", q2018)
	m := h.answerIn(dm, ts, answer18)
	h.waitJobs(1)
	assert.Equal(t, ts, m.ThreadTS)
	assert.Empty(t, h.slack.Statuses(), "the cards show progress, not the status")
	assert.Empty(t, h.slack.Calls("chat.postMessage"), "nor a progress message")
	var ids []string
	for _, s := range streamedTasks(t, h.slack) {
		if s.Status == "complete" {
			ids = append(ids, s.ID)
		}
	}
	assert.Equal(t, []string{"tables", "query", "run", "explain"}, ids, "every step shown, and completed in order")
}
