package slackapp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/bot/bottest"
)

// badQuery is a question the scripted model answers with a query that never
// runs, however often it is asked again: the bot gives up with questions
// to try instead.
const (
	badQuestion = "How many gmes are there?"
	badSQLRule  = `
  - step: generate_sql
    match: '(?im)^Question: How many gmes are there'
    reply: '{"sql": "SELECT count(nme) AS games FROM analytics.apps"}'
`
	badQueryText = "I couldn't write a query that works for this question, even after 3 attempts. " +
		"Try rephrasing it with the exact names of what you're looking for."
)

// A failed question's text, which Slack shows alone in notifications and
// where blocks cannot be drawn, reads whole; the questions to try are
// buttons under their own heading.
func TestFailedQuestionText(t *testing.T) {
	t.Parallel()
	h := start(t, withScript(bottest.DemoScript(badSQLRule)))
	ch, ts := channelID("CTEXT"), "1700000090.000100"
	h.mention(ch, ts, "", badQuestion)
	m := h.answerIn(ch, ts, "couldn't write a query")
	assert.Equal(t, badQueryText, m.Text, "the message's text (fallback and notification)")
	shown := strings.Join(m.BlockTexts(), "\n")
	assert.Contains(t, shown, "You could try:", "the blocks introduce the questions")
	assert.Contains(t, string(m.Blocks), "How many games are free to play?", "a question to try, as a button")
}
