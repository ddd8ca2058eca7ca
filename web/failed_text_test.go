package web

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/nodes"
)

// A failed question's text reads whole in message_end's text, which API
// clients show alone; the questions to try are in the reply.
func TestChatStreamFailedQuestionText(t *testing.T) {
	t.Parallel()
	const rule = `
  - step: generate_sql
    match: '(?im)^Question: How many gmes are there'
    reply: '{"sql": "SELECT count(nme) AS games FROM analytics.apps"}'
`
	b := newTestBot(t, demoScript(rule))
	srv := newTestServer(t, b, Config{})

	end := lastMessageEnd(t, chat(t, srv, "", "How many gmes are there?", nil).all(t))
	assert.Equal(t, string(nodes.ErrInvalidQuery), end.Debug.ErrorKind, "error kind")
	assert.Equal(t, "I couldn't write a query that works for this question, even after 3 attempts. "+
		"Try rephrasing it with the exact names of what you're looking for.", end.Text, "message_end's text")
	if assert.NotNil(t, end.Reply, "reply") {
		assert.Contains(t, end.Reply.Questions, "How many games are free to play?", "the questions to try")
	}
}
