package bot_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/warehousetest"
)

// memoryRules answer through the in-memory backend's language.
const memoryRules = "rules:\n" + everyQuestion + `
  - step: generate_query
    match: '(?m)^Question: Which items are active\?'
    reply: '{"query": {"from": "items", "select": ["name", "price"], "where": {"active": true}, "order": "id"}, "assumptions": ["Active means the active flag is set."], "explanation": "Lists active items."}'
  - step: interpret
    reply: '{"answer": "*3* items are active; the dearest is *Gizmo*."}'
`

// TestMemoryBackend answers a question through the real graph from the
// in-memory backend written in test code (warehousetest.Memory): nothing
// but the backend's own package needs to know where the data lives. The
// bot's own state still lives in Postgres.
func TestMemoryBackend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	cfg := bottest.Config(t, url, memoryRules)
	b, err := bot.NewWithBackend(cfg, db, warehousetest.NewMemory(warehousetest.Fixture()), bottest.Logger(t))
	require.NoError(t, err)
	thread := bot.NewThreadID()

	s, res, err := b.AskState(ctx, bot.Message{ThreadID: thread, UserID: "U1", ChannelID: "C1", Text: "Which items are active?"})
	require.NoError(t, err)
	require.Empty(t, s.ErrorKind, "answered: %s", s.ErrorDetail)
	assert.Equal(t, answerPath, res.Path())
	assert.Equal(t, 3, s.LLMCalls, "classify, generate, interpret")
	assert.Equal(t, "memory", s.Query.Backend)
	assert.Equal(t, [][]any{{"Widget", 9.99}, {"", 0.0}, {"Gizmo", 100.0}}, s.Result.Rows)
	assert.Equal(t, "*3* items are active; the dearest is *Gizmo*.", s.Answer)
	blocks := blocksJSON(t, s)
	for _, want := range []string{"the dearest is *Gizmo*", `"action_id":"export_csv"`, `"action_id":"show_sql"`,
		"Assumption: Active means the active flag is set.", "3 rows"} {
		assert.Contains(t, blocks, want, "what the user sees")
	}
	var prompt string
	for _, c := range b.Scripted.Calls() {
		if c.Step == "generate_query" {
			prompt = c.Prompt
		}
	}
	assert.Contains(t, prompt, "TABLE items\n  id number\n", "the generator saw the memory catalog")
	turns, err := db.RecentTurns(ctx, thread, 5)
	require.NoError(t, err)
	require.Len(t, turns, 1)
	assert.Equal(t, "memory", turns[0].Query.Backend, "the saved turn names its backend")

	calls := len(b.Scripted.Calls())
	csv, _, err := b.PressState(ctx, bot.Message{ThreadID: thread, UserID: "U1", ChannelID: "C1"}, string(nodes.IntentExportCSV), s.QueryID)
	require.NoError(t, err)
	require.Empty(t, csv.ErrorKind, csv.ErrorDetail)
	assert.Equal(t, "name,price\nWidget,9.99\n\"\",0\nGizmo,100\n", string(csv.CSVContent))

	shown, _, err := b.PressState(ctx, bot.Message{ThreadID: thread, UserID: "U1", ChannelID: "C1"}, string(nodes.IntentShowSQL), s.QueryID)
	require.NoError(t, err)
	require.Empty(t, shown.ErrorKind, shown.ErrorDetail)
	assert.Contains(t, shown.ResponseText, "Memory query for: Which items are active?")
	var q map[string]any
	require.NoError(t, json.Unmarshal([]byte(shown.Query.Text), &q))
	assert.Equal(t, "items", q["from"], "the query shown")
	assert.Equal(t, calls, len(b.Scripted.Calls()), "the buttons call no model")
	assert.Zero(t, b.Scripted.CallCount(llm.StepGenerateSQL), "no SQL anywhere")
}
