package bot_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/nodes"
)

// The offline demo asks back which Bethesda a question means (the data
// spells the publisher three ways), with no model call beyond the two of
// any question; choosing asks the question again with the choice, in the
// same thread, and answers it.
func TestAskBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b := newBot(t, e, "") // the demo's script; ASK_BACK's default, values
	_, err := b.RefreshValueIndex(context.Background())
	require.NoError(t, err, "the value lookup finds the three spellings")
	thread := bot.NewThreadID()

	s, _ := ask(t, b, thread, demo.AskBackQuestion)
	require.Empty(t, s.ErrorKind, s.ResponseText)
	require.NotNil(t, s.Reply)
	assert.Equal(t, answer.KindClarify, s.Reply.Kind)
	assert.Equal(t, "Which Bethesda do you mean? The data spells the publisher three ways.", s.ResponseText)
	var labels []string
	for _, c := range s.Reply.Choices {
		labels = append(labels, c.Label)
	}
	assert.Equal(t, []string{"Bethesda Softworks", "Bethesda-Softworks", "Bethesda-Soft", "All three"}, labels)
	assert.Equal(t, 2, s.LLMCalls, "classify and generate, nothing more")
	assert.Empty(t, s.Query.Text, "no query ran")
	// Slack shows the choices as buttons that ask.
	var asks []string
	for _, bl := range decodeBlocks(t, s) {
		for _, el := range bl.Elements {
			asks = append(asks, el.Value)
		}
	}
	assert.Contains(t, asks, "How many games did Bethesda publish? (Bethesda Softworks)")

	var (
		errorKind string
		calls     int
		path      []string
	)
	require.NoError(t, e.admin.Pool().QueryRow(context.Background(),
		`SELECT error_kind, model_calls, node_path FROM chat_query_logs WHERE thread_id = $1`, thread).Scan(&errorKind, &calls, &path))
	assert.Empty(t, errorKind, "the query log counts a question back as answered")
	assert.Equal(t, 2, calls)
	assert.Equal(t, []string{"route_intent", "resolve_context", "generate_query", "ask_back", "save_turn"}, path)

	s, _ = ask(t, b, thread, s.Reply.Choices[0].Ask)
	require.Empty(t, s.ErrorKind, s.ResponseText)
	assert.Equal(t, answer.KindAnswer, s.Reply.Kind)
	assert.Equal(t, "Games on Steam published by Bethesda (Bethesda Softworks): 35.", s.ResponseText)
	assert.Equal(t, 3, s.LLMCalls, "classify, generate, interpret: as any question")
	turns := recentTurns(t, e, thread)
	require.Len(t, turns, 2)
	assert.Equal(t, string(nodes.IntentAskBack), turns[0].Intent, "the thread remembers it asked back")
	assert.Equal(t, demo.AskBackQuestion+" (Bethesda Softworks)", turns[1].UserMessage)

	s, _ = ask(t, b, bot.NewThreadID(), demo.AskBackQuestion+" (All three)")
	require.Empty(t, s.ErrorKind, s.ResponseText)
	assert.Equal(t, "Games on Steam published by Bethesda (All three): 38.", s.ResponseText)
}

// A generator that asks back right after the bot asked is not shown: the
// question holds the choice. Its reply then counts as one without a query.
func TestAskBackNeverTwiceInARow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b := newBot(t, e, script(`
  - step: generate_sql
    match: '(?im)^Question: how many games did bethesda publish'
    reply: '{"clarification": {"question": "Which Bethesda?", "options": ["Bethesda Softworks", "Bethesda-Soft"]}}'
`), func(c *bot.Config) { c.AskBack = "always" })
	thread := bot.NewThreadID()
	s, _ := ask(t, b, thread, demo.AskBackQuestion)
	require.Equal(t, answer.KindClarify, s.Reply.Kind, s.ResponseText)
	s, _ = ask(t, b, thread, s.Reply.Choices[1].Ask)
	assert.Equal(t, answer.KindError, s.Reply.Kind, "not asked again: %s", s.ResponseText)
	assert.Equal(t, nodes.ErrInvalidQuery, s.ErrorKind)
	assert.Contains(t, s.ResponseText, "I couldn't write a query that works for this question")
}

// A question back the bot cannot show (six options, or none) is not shown:
// the reply counts as one without a query, and the retry answers.
func TestAskBackGarbageFallsBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b := newBot(t, e, script(`
  - step: generate_sql
    times: 1
    reply: '{"clarification": {"question": "Which year?", "options": ["2013", "2014", "2015", "2016", "2017", "2018"]}}'
`))
	s, _ := ask(t, b, bot.NewThreadID(), "How many games were released in 2018?")
	require.Empty(t, s.ErrorKind, s.ResponseText)
	assert.Equal(t, answer.KindAnswer, s.Reply.Kind)
	assert.Equal(t, "8,160 games were released on Steam in 2018.", s.ResponseText)
	assert.Equal(t, 1, s.RetryCount)
	assert.Contains(t, s.Notes, `generator reply held a clarification with 6 options: {"clarification": {"question": "Which year?", "options": ["2013", "2014", "2015", "2016", "2017", "2018"]}}`)
}

// ASK_BACK decides when the generator is offered to ask back: by default
// only when the question's words match several stored values (none are
// indexed here), always, or never.
func TestAskBackModes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tt := range []struct {
		mode    string
		offered bool
	}{{"values", false}, {"always", true}, {"off", false}} {
		b := newBot(t, e, "", func(c *bot.Config) { c.AskBack = tt.mode })
		s, _ := ask(t, b, bot.NewThreadID(), demo.AskBackQuestion)
		var first string // the generator's first prompt: retries are never offered it
		for _, c := range b.Scripted.Calls() {
			if c.Step == llm.StepGenerateSQL && first == "" {
				first = c.Prompt
			}
		}
		require.NotEmpty(t, first, tt.mode)
		assert.Equal(t, tt.offered, strings.Contains(first, `{"clarification":`), "%s: the offer", tt.mode)
		if tt.offered {
			assert.Equal(t, answer.KindClarify, s.Reply.Kind, tt.mode)
		} else {
			assert.NotEqual(t, answer.KindClarify, s.Reply.Kind, "%s: %s", tt.mode, s.ResponseText)
		}
	}
	cfg := testConfig(t, e, "")
	cfg.AskBack = "sometimes"
	assert.ErrorContains(t, cfg.Check(), `ASK_BACK must be values, always or off, got "sometimes"`)
}
