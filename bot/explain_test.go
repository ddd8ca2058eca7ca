package bot_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/terminal"
)

// TestExplain: an answer that assumed something offers Explain; its press,
// or the words alone, answer with the query, the tables it reads and the
// assumptions, from what the thread kept, without the model.
func TestExplain(t *testing.T) {
	e := newEnv(t)
	const want = "How I answered “How many games were released in 2018?”:\n" +
		"• The SQL I ran: SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018\n" +
		"• It reads analytics.apps.\n" +
		"• It assumed: A game counts in the year of its release date on the Steam store. The data covers releases up to May 2019."
	tests := []struct {
		name string
		text string // a message, or the button when empty
	}{
		{name: "button"},
		{name: "words", text: "explain this answer please"},
		{name: "question words", text: "How did you get that?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBot(t, e, script())
			thread := bot.NewThreadID()
			a, _ := ask(t, b, thread, "How many games were released in 2018?")
			require.Empty(t, a.ErrorKind, "question: %s", a.ErrorDetail)
			var labels []string
			for _, act := range a.Reply.Actions {
				labels = append(labels, act.Label)
			}
			assert.Equal(t, []string{"Export CSV", "Show SQL", "Explain", "Schedule"}, labels, "buttons under an answer that assumed something")
			calls := len(b.Scripted.Calls())

			var s *nodes.State
			var path []string
			if tt.text == "" {
				st, res := press(t, b, thread, string(nodes.IntentExplain), a.QueryID)
				s, path = st, res.Path()
			} else {
				st, res := ask(t, b, thread, tt.text)
				s, path = st, res.Path()
			}
			require.Empty(t, s.ErrorKind, "explain: %s", s.ErrorDetail)
			assert.Equal(t, []string{nodes.NodeRouteIntent, nodes.NodeExplain, nodes.NodeSaveTurn}, path, "path")
			assert.Equal(t, calls, len(b.Scripted.Calls()), "model calls")
			assert.Equal(t, want, s.Reply.Plain(), "what the user reads")
			assert.Equal(t, a.QueryID, s.Reply.QueryID, "the answer explained")
			// Slack shows the query and the table as code.
			assert.Contains(t, blocksJSON(t, s), "`SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018`", "Slack's blocks")
			assert.Contains(t, blocksJSON(t, s), "It reads `analytics.apps`.", "Slack's blocks")
			// The terminal prints the same lines.
			assert.Contains(t, terminal.Render(s.Reply, terminal.Options{}), "• It reads ‘analytics.apps’.", "terminal")

			// Show SQL still finds the answer's question, not the explanation's.
			sql, _ := press(t, b, thread, string(nodes.IntentShowSQL), a.QueryID)
			assert.Equal(t, "SQL for: How many games were released in 2018?", sql.Reply.Plain(), "Show SQL after Explain")
		})
	}
}

// TestExplainOnlyWhenAssumed: an answer that assumed nothing has no
// Explain button (README), only the buttons of every answer.
func TestExplainOnlyWhenAssumed(t *testing.T) {
	e := newEnv(t)
	b := newBot(t, e, script(`
  - step: generate_sql
    match: '(?im)^Question: how many games are there'
    reply: '{"sql": "SELECT count(*) AS games FROM analytics.apps", "assumptions": [], "explanation": "Counts every app."}'
`))
	a, _ := ask(t, b, bot.NewThreadID(), "How many games are there?")
	require.Empty(t, a.ErrorKind, "question: %s", a.ErrorDetail)
	require.Empty(t, a.Reply.Assumptions, "the answer assumed nothing")
	var labels []string
	for _, act := range a.Reply.Actions {
		labels = append(labels, act.Label)
	}
	assert.Equal(t, []string{"Export CSV", "Show SQL", "Schedule"}, labels, "buttons under an answer that assumed nothing")
}

// TestExplainNothing: with no answer in the thread, Explain says there is
// none to explain.
func TestExplainNothing(t *testing.T) {
	e := newEnv(t)
	b := newBot(t, e, script())
	s, res := ask(t, b, bot.NewThreadID(), "explain")
	assert.Equal(t, nodes.ErrNoPreviousQuery, s.ErrorKind, "error kind")
	assert.Equal(t, []string{nodes.NodeRouteIntent, nodes.NodeExplain, nodes.NodeHandleError, nodes.NodeSaveTurn}, res.Path(), "path")
	assert.Zero(t, s.LLMCalls, "model calls")
}
