package bot_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/chart"
)

// The interpreter may propose a chart inside its one reply; the result's
// shape decides. No extra model call.
func TestChartFromTheInterpreter(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pie := newBot(t, e, script(`
  - step: interpret
    match: 'Question: Which publishers released the most games'
    reply: '{"answer": "*Big Fish Games* published the most.", "chart": {"type": "pie", "title": "Who publishes the most"}}'
`))
	s := askAs(t, pie, "U1", bot.NewThreadID(), "Which publishers released the most games?")
	require.Empty(t, s.ErrorKind, s.ErrorDetail)
	require.NotNil(t, s.Chart)
	assert.Equal(t, chart.Pie, s.Chart.Type, "five publishers, one measure: a pie fits")
	assert.Equal(t, "Who publishes the most", s.Chart.Title)
	assert.Contains(t, blocksJSON(t, s), `"type":"data_visualization"`)
	assert.Equal(t, 3, s.LLMCalls)

	none := newBot(t, e, script(`
  - step: interpret
    match: 'Question: Which publishers released the most games'
    reply: '{"answer": "*Big Fish Games* published the most.", "chart": {"type": "none"}}'
`))
	s = askAs(t, none, "U1", bot.NewThreadID(), "Which publishers released the most games?")
	assert.Nil(t, s.Chart)

	plain := newBot(t, e, script())
	s = askAs(t, plain, "U1", bot.NewThreadID(), "Which publishers released the most games?")
	require.NotNil(t, s.Chart, "without a proposal the rules still chart it")
	assert.Equal(t, chart.Bar, s.Chart.Type)
	s = askAs(t, plain, "U1", bot.NewThreadID(), "How many games were released in 2018?")
	assert.Nil(t, s.Chart, "a single value has no chart")
}
