package bot_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/llm"
)

// testHistoryTurns: a follow-up sees the thread's last HISTORY_TURNS turns,
// 5 by default (README, docs/slack.md); the model is shown those and not
// the one before them.
func testHistoryTurns(t *testing.T, e *testEnv) {
	tests := []struct {
		name   string
		adjust func(*bot.Config)
		want   int
	}{
		{name: "the default", adjust: func(*bot.Config) {}, want: 5},
		{name: "HISTORY_TURNS=2", adjust: func(c *bot.Config) { c.HistoryTurns = 2 }, want: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBot(t, e, script(), tt.adjust)
			thread := bot.NewThreadID()
			const first, asked = 2010, 6
			for y := first; y < first+asked; y++ {
				s, _ := ask(t, b, thread, fmt.Sprintf("How many games were released in %d?", y))
				require.Empty(t, s.ErrorKind, "%d: %s", y, s.ErrorDetail)
			}
			b.Scripted.Reset()
			ask(t, b, thread, "How many games were released in 2018?")
			calls := b.Scripted.Calls()
			require.NotEmpty(t, calls)
			require.Equal(t, llm.StepClassify, calls[0].Step)
			for y := first; y < first+asked; y++ {
				line := fmt.Sprintf("User: How many games were released in %d?", y)
				if y >= first+asked-tt.want {
					assert.Contains(t, calls[0].Prompt, line, "one of the last %d turns", tt.want)
				} else {
					assert.NotContains(t, calls[0].Prompt, line, "older than the last %d turns", tt.want)
				}
			}
		})
	}
}
