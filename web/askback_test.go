package web

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/demo"
)

// The web chat gets a question asked back as a reply of kind "clarify"
// with its choices; choosing one asks the choice's question in the same
// thread, which answers it, and a reloaded thread shows both again.
func TestChatAskBack(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "", func(c *bot.Config) { c.AskBack = "always" }) // no value index here
	srv := newTestServer(t, b, Config{})

	first := lastMessageEnd(t, chat(t, srv, "", demo.AskBackQuestion, nil).all(t))
	require.NotNil(t, first.Reply)
	assert.Equal(t, answer.KindClarify, first.Reply.Kind)
	assert.Equal(t, "Which Bethesda do you mean? The data spells the publisher three ways.", first.Text)
	assert.Empty(t, first.QueryID, "no query ran")
	assert.Empty(t, first.Reply.Actions, "no buttons of an answer")
	require.Len(t, first.Reply.Choices, 4)
	assert.Equal(t, answer.Choice{Label: "Bethesda-Soft", Ask: demo.AskBackQuestion + " (Bethesda-Soft)"}, first.Reply.Choices[2])

	second := lastMessageEnd(t, chat(t, srv, first.ThreadID, first.Reply.Choices[2].Ask, nil).all(t))
	assert.Equal(t, first.ThreadID, second.ThreadID, "the choice is asked in the same thread")
	assert.Equal(t, "Games on Steam published by Bethesda (Bethesda-Soft): 1.", second.Text)
	assert.NotEmpty(t, second.QueryID)

	resp, data := doJSON(t, srv, http.MethodGet, "/api/threads/"+first.ThreadID, nil, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "GET thread: %s", data)
	assert.Contains(t, string(data), `"choices":[{"label":"Bethesda Softworks","ask":"How many games did Bethesda publish? (Bethesda Softworks)"}`,
		"a reloaded page shows the choices again")
}
