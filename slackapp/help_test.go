package slackapp

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
	"github.com/analyticsbot/analyticsbot/store"
)

// `/ask help` (docs/slack.md) gives the usage and the questions the bot
// knows: the demo's in the demo, the verified examples elsewhere; without
// any it lists none, and neither its usage line nor its follow-up hint
// names the demo's data, as the bot may serve any. Under access rules it lists none: what someone may ask can
// take Slack's listing of a user group, which the reply must not wait on.
func TestSlashCommandHelpExamples(t *testing.T) {
	t.Parallel()
	const verified = "Which publisher released the most games?"
	tests := []struct {
		name     string
		opts     func(t *testing.T) []harnessOption
		examples []string // verified examples stored instead of the examples file's
		want     []string
		wantNot  []string
	}{
		{name: "demo", opts: func(*testing.T) []harnessOption { return nil },
			want: []string{"/ask " + q2018, "Try asking", q2018}},
		{name: "no verified examples", opts: func(t *testing.T) []harnessOption {
			return []harnessOption{withScript(bottest.DemoScript("")), ownState(t)}
		}, want: []string{"/ask your question", "/ask help", "ask a follow-up"}, wantNot: []string{"Try asking", "2018", "2017"}},
		{name: "a verified example", opts: func(t *testing.T) []harnessOption {
			return []harnessOption{withScript(bottest.DemoScript("")), ownState(t)}
		}, examples: []string{verified}, want: []string{"/ask " + verified, "Try asking", "“" + verified + "”"}, wantNot: []string{"2018", "2017"}},
		{name: "access rules", opts: func(t *testing.T) []harnessOption {
			return []harnessOption{withScript(bottest.DemoScript("")), ownState(t), withAccess(t, "CHELP0001")}
		}, examples: []string{verified}, want: []string{"/ask your question"}, wantNot: []string{"Try asking", verified}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := start(t, tt.opts(t)...)
			if !h.bot.Demo {
				rejectExamples(t, h.bot.DB())
			}
			for _, q := range tt.examples {
				_, added, err := h.bot.DB().AddExample(context.Background(), store.Example{Backend: "postgres", Question: q,
					Query: "SELECT 1", Fingerprint: "help-" + q, Source: store.SourceAdmin, Status: store.StatusVerified})
				require.NoError(t, err)
				require.True(t, added)
			}
			id := h.slack.Send(t, fakeslack.Envelope{Type: "slash_commands", Payload: mustJSON(t, h.slack.SlashCommand("/ask", "help", user, "CHELP0001"))})
			got := string(h.slack.WaitAck(t, id).Payload)
			assert.Contains(t, got, `"response_type":"ephemeral"`)
			for _, w := range tt.want {
				assert.Contains(t, got, w)
			}
			for _, w := range tt.wantNot {
				assert.NotContains(t, got, w)
			}
			// docs/slack.md: "/ask help (or /ask)": nothing, "?" or any
			// case of help shows the same, and so does text of which
			// nothing shows (a zero-width space, a BOM, an escape).
			for _, text := range []string{"", "  ", "?", "HELP", "\u200b", "\ufeff \u200d", "\x1b[2J"} {
				id := h.slack.Send(t, fakeslack.Envelope{Type: "slash_commands", Payload: mustJSON(t, h.slack.SlashCommand("/ask", text, user, "CHELP0001"))})
				assert.Equal(t, got, string(h.slack.WaitAck(t, id).Payload), "/ask %q", text)
			}
		})
	}
}

// rejectExamples rejects the verified examples the bot stored from its
// examples file (the demo's, by default): the bot then knows none.
func rejectExamples(t *testing.T, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	list, err := db.ListExamples(ctx, store.ExampleFilter{Status: store.StatusVerified})
	require.NoError(t, err)
	for _, e := range list {
		_, err := db.SetExampleStatus(ctx, e.ID, store.StatusRejected, "test")
		require.NoError(t, err)
	}
}
