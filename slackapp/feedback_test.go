package slackapp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

// feedbackValues reads the 👍/👎 values of an answer's feedback buttons.
func feedbackValues(t *testing.T, m fakeslack.Message) (actionID, up, down string) {
	t.Helper()
	var blocks []struct {
		Type     string `json:"type"`
		Elements []struct {
			Type     string `json:"type"`
			ActionID string `json:"action_id"`
			Positive struct {
				Value string `json:"value"`
			} `json:"positive_button"`
			Negative struct {
				Value string `json:"value"`
			} `json:"negative_button"`
		} `json:"elements"`
	}
	require.NoError(t, json.Unmarshal(m.Blocks, &blocks))
	for _, b := range blocks {
		for _, e := range b.Elements {
			if b.Type == "context_actions" && e.Type == "feedback_buttons" {
				return e.ActionID, e.Positive.Value, e.Negative.Value
			}
		}
	}
	t.Fatalf("no feedback buttons in %s", m.Blocks)
	return "", "", ""
}

// 👍/👎 through Slack: the answer carries Slack's feedback buttons, a press
// is stored for the user who pressed and thanked to them alone, a 👎's note
// comes as a thread reply, and none of it calls the model.
func TestFeedbackButtons(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch, ts := channelID("CFEEDBACK"), "1700000020.000100"
	m := answered(t, h, ch, ts)
	qid := queryID(t, m)
	actionID, up, down := feedbackValues(t, m)
	calls := h.modelCalls()
	ctx := context.Background()

	h.press(m, actionID, up)
	thanks := h.slack.WaitMessage(t, "the thanks", func(m fakeslack.Message) bool {
		return m.Ephemeral && m.User == user && m.Channel == ch && strings.Contains(m.Text, "Thanks for the 👍")
	})
	assert.Equal(t, ts, thanks.ThreadTS)
	var rating int
	var stored string
	require.NoError(t, h.bot.DB().Pool().QueryRow(ctx, `SELECT rating, user_id FROM feedback WHERE thread_id = $1 AND query_id = $2`,
		threadID(ch, ts), qid).Scan(&rating, &stored))
	assert.Equal(t, 1, rating)
	assert.Equal(t, user, stored, "stored for the user who pressed")

	h.press(m, actionID, down)
	h.slack.WaitMessage(t, "the invitation to say what was wrong", func(m fakeslack.Message) bool {
		return m.Ephemeral && m.User == user && strings.Contains(m.Text, "What was wrong?")
	})
	h.mention(ch, "1700000020.000900", ts, "feedback: it counts DLC as games")
	h.answerIn(ch, ts, "added your note")
	var note string
	require.NoError(t, h.bot.DB().Pool().QueryRow(ctx, `SELECT rating, note FROM feedback WHERE thread_id = $1 AND query_id = $2`,
		threadID(ch, ts), qid).Scan(&rating, &note))
	assert.Equal(t, -1, rating)
	assert.Equal(t, "it counts DLC as games", note)
	assert.Equal(t, calls, h.modelCalls(), "feedback makes no model call")
}

// A result with a chartable shape reaches Slack as a native chart that
// Slack's limits accept (the fake Slack refuses what Slack would).
func TestChartReachesSlack(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch, ts := channelID("CCHART001"), "1700000030.000100"
	h.mention(ch, ts, "", "Which publishers released the most games?")
	m := h.answerIn(ch, ts, "Big Fish Games")
	var blocks []struct {
		Type  string `json:"type"`
		Title string `json:"title"`
		Chart struct {
			Type   string `json:"type"`
			Series []struct {
				Data []struct {
					Label string  `json:"label"`
					Value float64 `json:"value"`
				} `json:"data"`
			} `json:"series"`
		} `json:"chart"`
	}
	require.NoError(t, json.Unmarshal(m.Blocks, &blocks))
	var found bool
	for _, b := range blocks {
		if b.Type != "data_visualization" {
			continue
		}
		found = true
		assert.Equal(t, "Games by publisher", b.Title)
		assert.Equal(t, "bar", b.Chart.Type)
		require.Len(t, b.Chart.Series, 1)
		require.Len(t, b.Chart.Series[0].Data, 10)
		assert.Equal(t, "Big Fish Games", b.Chart.Series[0].Data[0].Label)
		assert.Equal(t, 213.0, b.Chart.Series[0].Data[0].Value)
	}
	assert.True(t, found, "a data_visualization block in %s", m.Blocks)
}

// Slack's assistant view: a new thread gets the demo's questions as
// suggested prompts, and the thread is titled after its first question.
func TestAssistantThread(t *testing.T) {
	t.Parallel()
	h := start(t)
	dm, root := "D0ASSIST1", "1700000040.000100"
	h.slack.SendEvent(t, fakeslack.AssistantThreadStarted(dm, user, root))
	require.Eventually(t, func() bool { return len(h.slack.SuggestedPrompts()) == 1 }, 10*time.Second, 20*time.Millisecond)
	p := h.slack.SuggestedPrompts()[0]
	assert.Equal(t, dm, p.Channel)
	assert.Equal(t, root, p.ThreadTS)
	require.Len(t, p.Prompts, 4)
	assert.Equal(t, q2018, p.Prompts[0].Message)

	h.message(dm, "im", "1700000040.000200", root, q2018)
	h.answerIn(dm, root, answer18)
	require.Eventually(t, func() bool { return len(h.slack.Titles()) == 1 }, 10*time.Second, 20*time.Millisecond)
	assert.Equal(t, fakeslack.Title{Channel: dm, ThreadTS: root, Title: q2018}, h.slack.Titles()[0])

	h.message(dm, "im", "1700000040.000300", root, "And in 2017?")
	h.answerIn(dm, root, answer17)
	assert.Len(t, h.slack.Titles(), 1, "only the first question names the thread")
}

// askButtons reads the buttons of m that ask a question: action id and
// value (the question).
func askButtons(t *testing.T, m fakeslack.Message) map[string]string {
	t.Helper()
	var blocks []struct {
		Type     string `json:"type"`
		Elements []struct {
			ActionID string          `json:"action_id"`
			Value    string          `json:"value"`
			Text     json.RawMessage `json:"text"`
		} `json:"elements"`
	}
	require.NoError(t, json.Unmarshal(m.Blocks, &blocks))
	out := map[string]string{}
	for _, b := range blocks {
		for _, e := range b.Elements {
			if b.Type == "actions" && strings.HasPrefix(e.ActionID, "ask_") {
				var label struct{ Text string }
				require.NoError(t, json.Unmarshal(e.Text, &label))
				assert.Equal(t, e.Value, label.Text, "the button says the question it asks")
				out[e.Value] = e.ActionID
			}
		}
	}
	return out
}

// An answer's suggested follow-ups are buttons; pressing one posts the
// question in the thread for everyone to see and answers it there.
func TestFollowUpButtons(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch, ts := channelID("CFOLLOWUP"), "1700000050.000100"
	m := answered(t, h, ch, ts)
	const next = "How many games were released per year?"
	buttons := askButtons(t, m)
	require.Contains(t, buttons, next, "follow-up buttons of %s", m.Blocks)

	h.press(m, buttons[next], next)
	asked := h.answerIn(ch, ts, "asked: "+next)
	assert.Contains(t, asked.Text, "<@"+user+">", "who asked it")
	h.answerIn(ch, ts, "years from 1997 on")
	var n int
	require.NoError(t, h.bot.DB().Pool().QueryRow(context.Background(),
		`SELECT count(*) FROM conversation_turns WHERE thread_id = $1 AND user_message = $2 AND user_id = $3`,
		threadID(ch, ts), next, user).Scan(&n))
	assert.Equal(t, 1, n, "the follow-up is a turn of the thread, by the presser")

	// The demo's questions under its "I only know these" reply are buttons too.
	h.mention(ch, "1700000050.000900", ts, "Which developer has the most reviews?")
	unknown := h.answerIn(ch, ts, "offline demo")
	assert.Contains(t, askButtons(t, unknown), "How many games are free?")
}

// A result longer than Slack's simple table comfortably shows reaches Slack
// as a data_table the fake Slack accepts: numbers as raw_number, so they
// sort as numbers, shown with their unit.
func TestDataTableReachesSlack(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch, ts := channelID("CDATATAB1"), "1700000060.000100"
	h.mention(ch, ts, "", "What is the average price of paid games by genre?")
	m := h.answerIn(ch, ts, "Game Development")
	var blocks []struct {
		Type     string             `json:"type"`
		Caption  string             `json:"caption"`
		PageSize int                `json:"page_size"`
		Rows     [][]map[string]any `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(m.Blocks, &blocks))
	for _, b := range blocks {
		if b.Type != "data_table" {
			continue
		}
		assert.Equal(t, "What is the average price of paid games by genre?", b.Caption)
		assert.Equal(t, 10, b.PageSize)
		require.Len(t, b.Rows, 30, "the header and 29 genres")
		assert.Equal(t, map[string]any{"type": "raw_text", "text": "avg_price_gbp"}, b.Rows[0][1])
		assert.Equal(t, map[string]any{"type": "raw_number", "value": 74.9, "text": "£74.90"}, b.Rows[1][1])
		return
	}
	t.Fatalf("no data_table block in %s", m.Blocks)
}

// The demo's links file reaches Slack: publishers in the table and in the
// answer's text link to their games on the Steam store.
func TestEntityLinksReachSlack(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch, ts := channelID("CLINKS001"), "1700000070.000100"
	h.mention(ch, ts, "", "Which publishers released the most games?")
	m := h.answerIn(ch, ts, "Big Fish Games")
	const bigFish = "https://store.steampowered.com/search/?publisher=Big+Fish+Games"
	assert.Contains(t, string(m.Blocks), `{"type":"link","url":"`+bigFish+`","text":"Big Fish Games"}`, "a linked table cell")
	assert.Contains(t, strings.Join(m.BlockTexts(), "\n"), "<"+bigFish+"|Big Fish Games> released the most games", "the name in the answer links too")
}
