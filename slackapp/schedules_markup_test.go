package slackapp

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
	"github.com/analyticsbot/analyticsbot/store"
)

// A schedule's question is what its owner typed. Wherever the bot shows it
// (the list, a channel admin's list of the channel's schedules, Save,
// Pause, Resume, Delete, "Nothing changed") it shows the characters typed:
// a link in Slack's syntax is not a link under a made-up label, and stars
// are not the bot's bold.
func TestScheduleQuestionIsShownAsTyped(t *testing.T) {
	t.Parallel()
	const (
		question = "revenue <https://evil.example/login|Re-authenticate the bot here> *now*"
		shown    = "“revenue &lt;https://evil.example/login|Re-authenticate the bot here&gt; *now*”"
	)
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clk := bottest.NewClock(due.Add(-time.Hour))
	h, _ := scheduled(t, clk, "replica-1", ownState(t), withBotConfig(func(c *bot.Config) { c.ScheduleAdmins = []string{"UADMIN01"} }))
	ch := channelID("CMARKUP")
	answered(t, h, ch, "1700001801.000100")
	typed := func(s *store.Schedule) { s.Question = question }
	active := storedSchedules(t, h, threadID(ch, "1700001801.000100"), ch, due, 1, typed)[0]
	pending := storedSchedules(t, h, threadID(ch, "1700001801.000100"), ch, due, 1, typed,
		func(s *store.Schedule) { s.State, s.NextRunAt = store.SchedulePending, nil })[0]

	// check asserts on the text Slack gets in a reply's blocks.
	check := func(what, got string) {
		t.Helper()
		assert.Contains(t, got, shown, "%s: the question as typed", what)
		assert.NotContains(t, got, "<https://", "%s: a link Slack would draw", what)
		assert.NotContains(t, got, "<http", "%s", what)
	}
	slash := func(who, text string) string {
		id := h.slack.Send(t, fakeslack.Envelope{Type: "slash_commands", Payload: mustJSON(t, h.slack.SlashCommand("/ask", text, who, ch))})
		return strings.Join(fakeslack.Message{Blocks: h.slack.WaitAck(t, id).Payload}.BlockTexts(), "\n")
	}
	check("the owner's list", slash(user, "schedules"))
	check("the channel's list", slash("UADMIN01", "schedules here"))

	press := func(action, id string) string {
		before := len(h.slack.Messages())
		h.send(fakeslack.Envelope{Type: "interactive", Payload: h.slack.BlockAction(user, ch, "1700001801.000100", "", action, id)})
		m := h.slack.WaitMessage(t, "a reply about "+action, func(m fakeslack.Message) bool {
			return m.Ephemeral && m.User == user && slices.IndexFunc(h.slack.Messages()[before:], func(n fakeslack.Message) bool { return n.TS == m.TS }) >= 0
		})
		return strings.Join(m.BlockTexts(), "\n")
	}
	saved := press(nodes.ActionScheduleSave, pending.ID)
	assert.Contains(t, saved, "Saved: I'll post "+shown+" in <#"+ch+">", "Save names the channel as a mention")
	check("Save", saved)
	paused := press(nodes.ActionSchedulePause, active.ID)
	assert.Contains(t, paused, "Paused "+shown+". Resume it from `/ask schedules`.")
	check("Pause", paused)
	again := press(nodes.ActionSchedulePause, active.ID)
	assert.Contains(t, again, "Nothing changed: "+shown+" is paused.")
	check("Nothing changed", again)
	check("Resume", press(nodes.ActionScheduleResume, active.ID))
	check("Delete", press(nodes.ActionScheduleDelete, active.ID))
}
