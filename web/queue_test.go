package web

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
)

// A question waiting for the earlier one of its thread waits as one
// waiting for a place does: within TURN_QUEUE, so more questions of the
// thread than that are refused at once with 503 and Retry-After, and the
// one waiting is answered once its turn comes.
func TestChatStreamThreadQueueIsBounded(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, demoScript(slowRule), func(c *bot.Config) { c.MaxTurns, c.TurnQueue, c.TurnWait = 1, 1, time.Hour })
	srv := newTestServer(t, b, Config{})
	started, err := b.StartThread(t.Context(), bot.Message{UserID: webUser, ChannelID: webChannel})
	require.NoError(t, err)
	thread := started.ThreadID

	slow := chat(t, srv, thread, "Answer the slow question", nil)
	slow.until(t, "status", nodes.NodeGenerateQuery)
	waiting := chat(t, srv, thread, q2018, nil)
	ev, ok := waiting.next(t)
	require.True(t, ok)
	var status statusEvent
	ev.decode(t, &status)
	assert.Equal(t, "Waiting for the previous answer in this conversation…", status.Label)

	for i := range 3 {
		resp, data := doJSON(t, srv, http.MethodPost, "/api/chat/stream",
			map[string]any{"thread_id": thread, "messages": []map[string]string{{"role": "user", "content": q2018}}}, nil)
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "question %d of the thread beyond TURN_QUEUE: %s", i+3, data)
		assert.Equal(t, textBusy, errorBody(t, data), "busy message")
		assert.Equal(t, "30", resp.Header.Get("Retry-After"), "Retry-After")
	}

	slow.close() // the thread's turn passes on
	assert.Contains(t, lastMessageEnd(t, waiting.all(t)).Text, said2018, "the waiting question is answered")
	assert.Equal(t, 0, b.Turns().Waiting(), "nothing left counted as waiting")
}

// A question that waits for the earlier one of its thread longer than
// TURN_WAIT is told the bot is busy, as one waiting for a place is.
func TestChatStreamThreadWaitDeadline(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, demoScript(slowRule), func(c *bot.Config) { c.MaxTurns, c.TurnWait = 2, 50*time.Millisecond })
	srv := newTestServer(t, b, Config{})
	started, err := b.StartThread(t.Context(), bot.Message{UserID: webUser, ChannelID: webChannel})
	require.NoError(t, err)
	thread := started.ThreadID

	slow := chat(t, srv, thread, "Answer the slow question", nil)
	slow.until(t, "status", nodes.NodeGenerateQuery)
	defer slow.close()

	evs := chat(t, srv, thread, q2018, nil).all(t)
	require.Equal(t, []string{"status", "error"}, types(evs), "waited, then told")
	var e errorEvent
	evs[1].decode(t, &e)
	assert.Equal(t, textBusy, e.Message)
}
