package slackapp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

// choiceButtons reads the buttons of a question asked back in m: label,
// action id and the question each asks.
func choiceButtons(t *testing.T, m fakeslack.Message) (labels, actions, asks []string) {
	t.Helper()
	var blocks []struct {
		Type     string `json:"type"`
		BlockID  string `json:"block_id"`
		Elements []struct {
			ActionID string `json:"action_id"`
			Value    string `json:"value"`
			Text     struct {
				Text string `json:"text"`
			} `json:"text"`
		} `json:"elements"`
	}
	require.NoError(t, json.Unmarshal(m.Blocks, &blocks))
	for _, b := range blocks {
		if b.Type != "actions" || b.BlockID != "clarify" {
			continue
		}
		for _, e := range b.Elements {
			labels, actions, asks = append(labels, e.Text.Text), append(actions, e.ActionID), append(asks, e.Value)
		}
	}
	return labels, actions, asks
}

// The bot asks back in the thread with the choices as buttons; pressing
// one posts the question with the choice in the thread, for everyone to
// see, and answers it there.
func TestAskBackButtons(t *testing.T) {
	t.Parallel()
	h := start(t, withBotConfig(func(c *bot.Config) { c.AskBack = "always" })) // no value index here
	ch, ts := channelID("CASKBACK1"), "1700000090.000100"
	h.mention(ch, ts, "", demo.AskBackQuestion)
	m := h.answerIn(ch, ts, "Which Bethesda do you mean?")
	labels, actions, asks := choiceButtons(t, m)
	assert.Equal(t, []string{"Bethesda Softworks", "Bethesda-Softworks", "Bethesda-Soft", "All three"}, labels)
	require.Len(t, asks, 4)
	assert.Equal(t, demo.AskBackQuestion+" (All three)", asks[3])

	h.press(m, actions[3], asks[3])
	asked := h.answerIn(ch, ts, "asked: "+demo.AskBackQuestion+" (All three)")
	assert.Contains(t, asked.Text, "<@"+user+">", "who chose")
	h.answerIn(ch, ts, "Games on Steam published by Bethesda (All three): *38*")

	var intents []string
	rows, err := h.bot.DB().Pool().Query(context.Background(),
		`SELECT intent FROM conversation_turns WHERE thread_id = $1 ORDER BY created_at, id`, threadID(ch, ts))
	require.NoError(t, err)
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		intents = append(intents, s)
	}
	require.NoError(t, rows.Err())
	assert.Equal(t, []string{"ask_back", "analytics_query"}, intents, "one thread: the question asked back, then the choice")
}
