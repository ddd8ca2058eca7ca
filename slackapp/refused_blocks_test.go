package slackapp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
