package slackapp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

// Blocks Slack refuses (invalid_blocks) are sent again as plain text
// (docs/slack.md, Reliability): where Slack takes no table block, the
// answer still reaches the user, its table a code block, whether it
// replaces the progress message (chat.update) or is posted, as in a direct
// message whose progress is the thread status (chat.postMessage).
func TestRefusedBlocksAreSentAsPlainText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		dm     bool
		method string
	}{
		{name: "the answer replacing the progress message", method: "chat.update"},
		{name: "the answer posted in a direct message", dm: true, method: "chat.postMessage"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := start(t)
			h.slack.RefuseBlockType("table")
			ch, ts := channelID("CREFUSED"), "1700000401.000100"
			if tt.dm {
				h.slack.SetExperience(fakeslack.AgentView)
				ch = channelID("DREFUSED")
				h.message(ch, "im", ts, "", "Which publishers released the most games?")
			} else {
				h.mention(ch, ts, "", "Which publishers released the most games?")
			}
			m := h.answerIn(ch, ts, "released the most games")

			assert.Nil(t, m.Blocks, "the message went without blocks")
			assert.True(t, strings.HasPrefix(m.Text, "```\n") && strings.HasSuffix(m.Text, "\n```"), "got text %q, want a code block", m.Text)
			for _, want := range []string{"released the most games", "publisher", "games", "Ubisoft"} {
				assert.Contains(t, m.Text, want, "the plain text holds the answer and its table")
			}
			assert.Len(t, h.threadMessages(ch, ts), 1, "one answer in the thread")
			var refused int
			for _, c := range h.slack.Calls(tt.method) {
				if c.Error == "invalid_blocks" {
					refused++
				}
			}
			require.Equal(t, 1, refused, "Slack refused the answer's blocks once")
		})
	}
}

// hostileRule answers a question with a value and words that, unescaped,
// are Slack markup: a ping of the whole channel, a mention, a link whose
// label hides where it goes.
const hostileRule = `
  - step: generate_sql
    match: '(?im)^Question: which notes are flagged'
    reply: |
      {"sql": "SELECT release_year AS year, '<!channel> <@U999> <https://evil.example|click>' AS note FROM analytics.apps WHERE release_year BETWEEN 2016 AND 2018 GROUP BY release_year ORDER BY release_year"}
  - step: interpret
    match: '(?im)^Question: which notes are flagged'
    reply: '{"answer": "Flagged: <!channel> and <@U999>, see <https://evil.example|click> & more."}'
`

// The plain text sent when Slack refuses the blocks is escaped as Slack
// asks: a table cell or the model's words show as the characters they
// are, never as a ping, a mention or a link.
func TestRefusedBlocksPlainTextIsInert(t *testing.T) {
	t.Parallel()
	h := start(t, withScript(bottest.DemoScript(hostileRule)))
	h.slack.RefuseBlockType("table")
	ch, ts := channelID("CINERT"), "1700000402.000100"
	h.mention(ch, ts, "", "Which notes are flagged?")
	m := h.answerIn(ch, ts, "Flagged")

	require.Nil(t, m.Blocks, "the message went without blocks")
	assert.Contains(t, m.Text, "&lt;!channel&gt;", "the value shows as text")
	assert.Contains(t, m.Text, "2017", "the table is in the text")
	assert.Contains(t, m.Text, "Flagged: &lt;!channel&gt; and &lt;@U999&gt;", "the model's words show as text")
	assert.Contains(t, m.Text, "&amp; more", "an ampersand is escaped")
	for _, markup := range []string{"<!channel>", "<@U999>", "<https://"} {
		assert.NotContains(t, m.Text, markup, "got live markup in %q", m.Text)
	}
}
