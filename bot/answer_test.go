package bot_test

import (
	"encoding/json"
	"flag"
	"github.com/analyticsbot/analyticsbot/blockkit"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/nodes"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// testNewQuestion asks a fresh question and checks everything the user gets
// back, what it cost, and what the thread remembers.
func testNewQuestion(t *testing.T, e *testEnv) {
	b := newBot(t, e, script())
	thread := bot.NewThreadID()
	s, res := ask(t, b, thread, "How many games were released in 2018?")

	require.Empty(t, s.ErrorKind, "got error %s (%s), want an answer", s.ErrorKind, s.ErrorDetail)
	assert.Equal(t, [][]any{{int64(games2018)}}, s.Result.Rows, "rows")
	assert.Equal(t, []string{"games"}, s.ColumnNames(), "columns")
	assert.Contains(t, s.Answer, strconv.Itoa(games2018), "answer %q must quote the count", s.Answer)
	assert.Contains(t, s.ResponseText, "8,160", "fallback text %q must quote the count as the table writes it", s.ResponseText)
	assert.Equal(t, sql2018, s.Query.Text, "sql")
	wantID := pgID(sql2018)
	assert.Equal(t, wantID, s.QueryID, "query id")
	assert.Equal(t, answerPath, res.Path(), "path")

	blocks := decodeBlocks(t, s)
	require.Equal(t, []string{"section", "context", "actions", "context_actions"}, blockTypes(blocks),
		"block types: the count is said, with no 1×1 table")
	assert.Contains(t, blocks[0].Text.Text, "*8,160*", "answer section: the count as the table writes it")
	ctxTexts := contextTexts(t, blocks[1])
	assert.Contains(t, ctxTexts, "Assumption: A game counts in the year of its release date on the Steam store.", "context %q", ctxTexts)
	assert.Contains(t, ctxTexts, "Assumption: The data covers releases up to May 2019.", "context %q", ctxTexts)
	buttons := blocks[2].Elements
	require.Len(t, buttons, 3, "buttons")
	for i, want := range []string{string(nodes.IntentExportCSV), string(nodes.IntentShowSQL), string(nodes.IntentSchedule)} {
		assert.Equal(t, "button", buttons[i].Type, "element %d type", i)
		assert.Equal(t, want, buttons[i].ActionID, "button %d action", i)
		assert.Equal(t, wantID, buttons[i].Value, "button %d value", i)
	}

	assert.Equal(t, 3, s.LLMCalls, "model calls in the state")
	assert.Equal(t, 3, len(b.Scripted.Calls()), "model calls received")
	for step, want := range map[llm.Step]int{llm.StepClassify: 1, llm.StepResolve: 0, llm.StepGenerateSQL: 1, llm.StepInterpret: 1} {
		assert.Equal(t, want, b.Scripted.CallCount(step), "calls of %s", step)
	}

	turns := recentTurns(t, e, thread)
	require.Len(t, turns, 1, "saved turns")
	assert.Equal(t, "How many games were released in 2018?", turns[0].UserMessage, "saved question")
	assert.Equal(t, s.Answer, turns[0].BotResponse, "saved answer")
	assert.Equal(t, sql2018, turns[0].Query.Text, "saved sql")
	assert.Equal(t, wantID, turns[0].QueryID, "saved query id")
	assert.Equal(t, string(nodes.IntentAnalytics), turns[0].Intent, "saved intent")
}

// testFollowUp asks "And in 2017?" after the 2018 question: the history
// reaches the model, and the rewrite either comes with the classification
// or costs one resolve call.
func testFollowUp(t *testing.T, e *testEnv) {
	const rewriteRule = `
  - step: classify
    match: '(?s)\nUser: How many games were released in 2018\?\n.*\nQuestion: And in 2017\?\s*$'
    reply: '{"intent": "follow_up", "confidence": 0.9, "question": "How many games were released in 2017?"}'
`
	const noRewriteRules = `
  - step: classify
    match: '(?s)\nUser: How many games were released in 2018\?\n.*\nQuestion: And in 2017\?\s*$'
    reply: '{"intent": "follow_up", "confidence": 0.8}'
  - step: resolve
    match: '(?s)\nUser: How many games were released in 2018\?\n.*\nQuestion: And in 2017\?\s*$'
    reply: '{"question": "How many games were released in 2017?", "referenced_query_id": null}'
`
	tests := []struct {
		name        string
		rules       string
		wantCalls   int
		wantResolve int
	}{
		{name: "classifier rewrites", rules: rewriteRule, wantCalls: 3, wantResolve: 0},
		{name: "resolver rewrites", rules: noRewriteRules, wantCalls: 4, wantResolve: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBot(t, e, script(tt.rules))
			thread := bot.NewThreadID()
			first, _ := ask(t, b, thread, "How many games were released in 2018?")
			require.Empty(t, first.ErrorKind, "first question: %s", first.ErrorDetail)
			b.Scripted.Reset()

			s, res := ask(t, b, thread, "And in 2017?")
			require.Empty(t, s.ErrorKind, "got error %s (%s), want an answer", s.ErrorKind, s.ErrorDetail)
			assert.Equal(t, nodes.IntentFollowUp, s.Intent, "intent")
			assert.Equal(t, "How many games were released in 2017?", s.ResolvedQuery, "resolved question")
			assert.Contains(t, s.Query.Text, "2017", "sql")
			assert.NotContains(t, s.Query.Text, "2018", "sql")
			assert.Equal(t, [][]any{{int64(games2017)}}, s.Result.Rows, "rows")
			assert.Contains(t, s.Answer, strconv.Itoa(games2017), "answer")
			assert.Equal(t, answerPath, res.Path(), "path")
			assert.Equal(t, tt.wantCalls, s.LLMCalls, "model calls")
			assert.Equal(t, tt.wantResolve, b.Scripted.CallCount(llm.StepResolve), "resolve calls")

			calls := b.Scripted.Calls()
			require.NotEmpty(t, calls, "calls")
			require.Equal(t, llm.StepClassify, calls[0].Step, "first call")
			assert.Contains(t, calls[0].Prompt, "User: How many games were released in 2018?", "classify prompt must hold the history")
			for _, c := range calls {
				switch c.Step {
				case llm.StepResolve:
					assert.Contains(t, c.Prompt, "User: How many games were released in 2018?", "resolve prompt must hold the history")
					assert.Contains(t, c.Prompt, "[query "+first.QueryID+"]", "resolve prompt must name the earlier query")
				case llm.StepGenerateSQL:
					assert.Contains(t, c.Prompt, first.Query.Text, "generate prompt must hold the earlier SQL")
				}
			}
			assert.Len(t, recentTurns(t, e, thread), 2, "saved turns")

			// The export serves the follow-up's result, the thread's latest.
			csv, _ := ask(t, b, thread, "export as csv")
			assert.Equal(t, "games\n"+strconv.Itoa(games2017)+"\n", string(csv.CSVContent), "csv after the follow-up")
		})
	}
}

// elapsedPattern finds the elapsed time in the answer's context line, the
// one part of the reply that differs from run to run.
var elapsedPattern = regexp.MustCompile(` · in [^"·]+`)

// testAnswerGolden locks the Block Kit JSON of the 2018 answer.
func testAnswerGolden(t *testing.T, e *testEnv) {
	b := newBot(t, e, script())
	s, _ := ask(t, b, bot.NewThreadID(), "How many games were released in 2018?")
	require.Empty(t, s.ErrorKind, "got error %s (%s), want an answer", s.ErrorKind, s.ErrorDetail)

	data, err := json.MarshalIndent(blockkit.Reply(s.Reply).Blocks, "", "  ")
	require.NoError(t, err, "marshal blocks")
	got := string(data) + "\n"
	require.Regexp(t, elapsedPattern, got, "the context line must show the elapsed time")
	got = elapsedPattern.ReplaceAllString(got, " · in <elapsed>")

	path := filepath.Join("testdata", "answer_2018.golden")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755), "mkdir testdata")
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644), "write golden")
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "read golden (run go test ./bot -run TestBot/AnswerGolden -update)")
	assert.Equal(t, string(want), got, "blocks differ from %s; if the change is intended run with -update", path)
}
