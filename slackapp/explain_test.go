package slackapp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Explain under an answer that assumed something posts, in the thread and
// without the model, the query, the tables it reads and the assumptions.
func TestExplainPostsHowTheAnswerWasWorkedOut(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch, ts := channelID("CEXPLAIN1"), "1700000014.000100"
	m := answered(t, h, ch, ts)
	calls := h.modelCalls()

	h.press(m, "explain", queryID(t, m))
	got := h.answerIn(ch, ts, "It reads `analytics.apps`.")
	text := strings.Join(got.BlockTexts(), "\n")
	assert.Contains(t, text, "How I answered “"+q2018+"”:", "what it explains")
	assert.Contains(t, text, "• The SQL I ran: `SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018`", "the query, as code")
	assert.Contains(t, text, "• It assumed: A game counts in the year of its release date on the Steam store.", "the assumptions")
	assert.False(t, got.Ephemeral, "the explanation is posted for the whole thread")
	assert.Equal(t, calls, h.modelCalls(), "Explain makes no model call")
}
