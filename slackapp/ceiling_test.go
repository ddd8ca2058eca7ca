package slackapp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
	"github.com/analyticsbot/analyticsbot/store"
)

// withCeiling answers with the matrix's access file and policies, plus a
// fresh channel (returned) whose ceiling is the everyone policy.
func withCeiling(t *testing.T) (harnessOption, string) {
	t.Helper()
	ch := channelID("CGEN")
	return withAccessFile(t, bottest.CeilingAccessFile("everyone", ch)), ch
}

// withDefaultCeiling answers with the matrix's policies in every channel
// and group DM, whose ceiling is the everyone policy (default_ceiling),
// but CDATA (bottest.DefaultCeilingAccessFile), plus a fresh group DM's id
// (returned).
func withDefaultCeiling(t *testing.T) (harnessOption, string) {
	t.Helper()
	return withAccessFile(t, bottest.DefaultCeilingAccessFile("everyone")), channelID("GMPIM")
}

// withAccessFile answers with the access file file, the ceiling's
// questions and the matrix's schemas.
func withAccessFile(t *testing.T, file string) harnessOption {
	t.Helper()
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(file), 0o600))
	return func(o *harnessOptions) {
		withScript(bottest.DemoScript(bottest.AccessRules() + bottest.CeilingRules()))(o)
		withBotConfig(func(c *bot.Config) { c.AccessFile, c.Postgres.Schemas = path, bottest.AccessSchemas })(o)
	}
}

// askAs mentions the bot in channel as asker.
func (h *harness) askAs(asker, channel, ts, threadTS, text string) {
	h.t.Helper()
	ev := fakeslack.EventCallback("Ev"+channel+asker+strings.ReplaceAll(ts, ".", ""),
		fakeslack.AppMention(channel, asker, "<@"+fakeslack.BotUserID+"> "+text, ts, threadTS))
	h.send(fakeslack.Envelope{Type: "events_api", Payload: ev})
}

// pressAs clicks a button of the bot's message m as presser.
func (h *harness) pressAs(presser string, m fakeslack.Message, actionID, value string) {
	h.t.Helper()
	h.send(fakeslack.Envelope{Type: "interactive", Payload: h.slack.BlockAction(presser, m.Channel, m.TS, m.ThreadTS, actionID, value)})
}

// privateTo waits for a message only who sees, in channel's thread, with want.
func (h *harness) privateTo(who, channel, threadTS, want string) fakeslack.Message {
	h.t.Helper()
	return h.slack.WaitMessage(h.t, "a message to "+who+" alone in "+channel+"/"+threadTS+" with "+want, func(m fakeslack.Message) bool {
		return m.Ephemeral && m.User == who && m.Channel == channel && m.ThreadTS == threadTS && strings.Contains(says(m), want)
	})
}

// channelSees is everything the members of channel read there.
func (h *harness) channelSees(channel string) string {
	var b strings.Builder
	for _, m := range h.slack.Messages() {
		if m.Channel == channel && !m.Ephemeral && !m.Deleted {
			b.WriteString(says(m) + "\n")
		}
	}
	for _, f := range h.slack.Files() {
		if f.Channel == channel {
			b.WriteString(f.InitialComment + "\n" + string(f.Content) + "\n")
		}
	}
	return b.String()
}

// In a channel whose ceiling is the everyone policy, through the fake
// Slack: an analyst's question within the ceiling is answered there, as
// the policy within it, and nothing is streamed; one beyond the ceiling
// but within the analysts' reaches its asker alone, and the thread reads a
// note; so do the full policy's salaries question (without the questions
// it suggests) and the analysts' refusal of it. Another member's follow-up
// in that thread sees the note, never the private answer, in its prompts.
// The private answer's Export CSV goes to its asker's direct messages, its
// Show SQL to them alone; another member pressing its query id finds
// nothing; a public answer's Export CSV lands in the thread, run for the
// full policy as the policy within the ceiling. An asker Slack shows no
// ephemeral message gets the private answer in a direct message, without
// buttons. Nothing in the channel holds the data, the SQL or the tables
// beyond the ceiling.
func TestChannelCeiling(t *testing.T) {
	t.Parallel()
	opt, ch := withCeiling(t)
	h := start(t, opt, streaming())
	ctx := context.Background()

	within := "1700003001.000100"
	h.askAs("UANA", ch, within, "", bottest.CeilingWithin.Question)
	public := h.answerIn(ch, within, bottest.CeilingWithin.Answer)

	beyond := "1700003002.000100"
	h.askAs("UANA", ch, beyond, "", bottest.CeilingBeyond.Question)
	h.answerIn(ch, beyond, "privately: what they asked reaches beyond what this channel may see")
	h.privateTo("UANA", ch, beyond, bottest.CeilingBeyond.Answer)

	salaries := "1700003003.000100"
	h.askAs("UADMIN", ch, salaries, "", bottest.CeilingSalaries.Question)
	note := h.answerIn(ch, salaries, "privately")
	private := h.privateTo("UADMIN", ch, salaries, bottest.CeilingSalaries.Answer)
	assert.NotContains(t, says(private), bottest.CeilingSalaries.FollowUps[0], "no button that would ask in the channel")

	refused := "1700003005.000100"
	h.askAs("UANA", ch, refused, "", bottest.CeilingSalaries.Question)
	h.answerIn(ch, refused, "privately")
	h.privateTo("UANA", ch, refused, "I can't answer that: you may not read hr.salaries")

	logs, err := h.bot.DB().QueryLogs(ctx, store.QueryLogFilter{ThreadID: threadID(ch, within)})
	require.NoError(t, err)
	require.Len(t, logs, 1)
	assert.Equal(t, "analysts∩everyone", logs[0].Policy, "posted in the channel: answered as the policy within its ceiling")
	logs, err = h.bot.DB().QueryLogs(ctx, store.QueryLogFilter{ThreadID: threadID(ch, beyond)})
	require.NoError(t, err)
	require.Len(t, logs, 1)
	assert.Equal(t, "analysts", logs[0].Policy, "for the asker alone: answered as their own policy")

	// Another member follows up in the thread of the private answer.
	calls := len(h.bot.Scripted.Calls())
	h.askAs("UZED", ch, "1700003004.000100", salaries, bottest.CeilingFollowUp.Question)
	h.answerIn(ch, salaries, bottest.CeilingFollowUp.Answer)
	plain, grouped := bottest.SalaryTotal()
	sawNote := false
	for _, c := range h.bot.Scripted.Calls()[calls:] {
		sawNote = sawNote || strings.Contains(c.Prompt, "I replied to")
		for _, secret := range []string{bottest.CeilingSalaries.Answer, plain, grouped, "hr.salaries"} {
			assert.NotContains(t, c.Prompt, secret, "a follow-up by another member never sees the private answer (%s prompt)", c.Step)
		}
	}
	assert.True(t, sawNote, "the thread as the channel saw it is in the prompts")

	// The private answer's buttons: for its asker alone. When Slack will
	// not take the direct message, the presser is told so where they
	// pressed, and nothing is posted in the channel; pressed again, it is
	// tried again (a press not delivered is no double click's first).
	qid := queryID(t, private)
	files := len(h.slack.Files())
	h.slack.ErrorNext("chat.postMessage", 1, "cannot_dm_bot")
	h.pressAs("UADMIN", private, "export_csv", qid)
	h.privateTo("UADMIN", ch, salaries, "I couldn't send you the CSV in a direct message. Please try again in a moment.")
	assert.Len(t, h.slack.Files(), files, "no file shared anywhere")
	h.pressAs("UADMIN", private, "export_csv", qid)
	file := h.slack.WaitFile(t, func(f fakeslack.File) bool { return f.Channel == "DUADMIN" })
	assert.Contains(t, string(file.Content), plain, "the whole export, in a direct message")
	h.privateTo("UADMIN", ch, salaries, "I sent you the CSV in a direct message")
	// docs/slack.md: after a line saying which channel it comes from, in
	// that line's thread.
	heading := h.slack.WaitMessage(t, "the line above the CSV", func(m fakeslack.Message) bool {
		return m.Channel == "DUADMIN" && strings.Contains(m.Text, "The CSV you asked for in")
	})
	assert.Contains(t, heading.Text, "<#"+ch+">", "names the channel it was asked in")
	assert.Equal(t, heading.TS, file.ThreadTS, "the file is in the line's thread")
	h.pressAs("UADMIN", private, "show_sql", qid)
	h.privateTo("UADMIN", ch, salaries, "hr.salaries")

	h.pressAs("UZED", note, "export_csv", qid)
	h.ephemeralTo("UZED", "I couldn't find an earlier result in this thread")

	// A public answer's buttons: in the thread, within the ceiling.
	h.pressAs("UADMIN", public, "export_csv", queryID(t, public))
	h.slack.WaitFile(t, func(f fakeslack.File) bool { return f.Channel == ch && f.ThreadTS == within })
	logs, err = h.bot.DB().QueryLogs(ctx, store.QueryLogFilter{ThreadID: threadID(ch, within), UserID: "UADMIN"})
	require.NoError(t, err)
	require.Len(t, logs, 1)
	assert.Equal(t, "full∩everyone", logs[0].Policy, "another member's export, for the channel: their policy within its ceiling")

	// Slack shows no ephemeral message to a non-member: a direct message.
	h.slack.SetMembers(ch, "UZED", "UADMIN")
	dm := "1700003006.000100"
	h.askAs("UANA", ch, dm, "", bottest.CeilingBeyond.Question)
	h.answerIn(ch, dm, "privately")
	inDM := h.slack.WaitMessage(t, "the private answer in a DM", func(m fakeslack.Message) bool {
		return m.Channel == "DUANA" && strings.Contains(says(m), bottest.CeilingBeyond.Answer)
	})
	assert.NotContains(t, says(inDM), "Export CSV", "no button in the direct message: it would act on the channel's thread")

	sees := h.channelSees(ch)
	for _, secret := range []string{bottest.CeilingSalaries.Answer, plain, grouped, "hr.salaries", "app_developers",
		bottest.CeilingBeyond.Answer, "links"} {
		assert.NotContains(t, sees, secret, "the channel never reads what is beyond its ceiling")
	}
	assert.Empty(t, h.slack.Calls("chat.startStream"), "nothing streamed into a channel with a ceiling")
}

// With the guard taken out, the policy within the channel's ceiling holds
// alone as its database role: the full policy's salaries question, which
// the workflow then cannot tell is beyond the ceiling, is refused by
// PostgreSQL, and the channel reads the refusal, never the salaries; a
// question within the ceiling is answered.
func TestChannelCeilingWithoutGuard(t *testing.T) {
	// Not parallel: its roles' GRANT CONNECT ON DATABASE and the
	// migrations of the tests with a schema of their own (ownState) update
	// the same pg_database row, and PostgreSQL fails one of two at once
	// ("tuple concurrently updated").
	opt, ch := withCeiling(t)
	h := start(t, opt, withoutGuard())

	h.askAs("UANA", ch, "1700003101.000100", "", bottest.CeilingWithin.Question)
	h.answerIn(ch, "1700003101.000100", bottest.CeilingWithin.Answer)

	h.askAs("UADMIN", ch, "1700003102.000100", "", bottest.CeilingSalaries.Question)
	h.answerIn(ch, "1700003102.000100", "I can't answer that in this channel: what is posted here may not show hr.salaries.")
	plain, grouped := bottest.SalaryTotal()
	for _, m := range h.slack.Messages() {
		assert.NotContains(t, says(m), plain, "no one reads the salaries")
		assert.NotContains(t, says(m), grouped, "no one reads the salaries")
	}
}

// A schedule posting into a channel with a ceiling runs within it: Save
// refuses a salaries report there made from another channel; one stored
// anyway (the file changed since) is refused at its run, nothing is
// posted, the schedule stops and its owner is told in a direct message;
// the same report sent to the owner's direct messages, which have no
// ceiling, posts. So it goes in a channel channel_ceilings lists and in a
// group DM under default_ceiling.
func TestChannelCeilingSchedules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		ceiling func(*testing.T) (harnessOption, string)
	}{
		{"a listed channel", withCeiling},
		{"a group DM under default_ceiling", withDefaultCeiling},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opt, ch := tt.ceiling(t)
			testCeilingSchedules(t, opt, ch)
		})
	}
}

// testCeilingSchedules is TestChannelCeilingSchedules with opt's access
// file, in ch, whose ceiling is the everyone policy; CDATA's caps no one.
func testCeilingSchedules(t *testing.T, opt harnessOption, ch string) {
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clk := bottest.NewClock(due.Add(-time.Hour))
	h, sc := scheduled(t, clk, "ceiling", ownState(t), opt)
	root := "1700003201.000100"
	h.askAs("UADMIN", ch, root, "", bottest.CeilingSalaries.Question)
	h.privateTo("UADMIN", ch, root, bottest.CeilingSalaries.Answer)

	// Made in a channel without a ceiling, to post in the one with.
	elsewhere := "1700003202.000100"
	h.slack.SetMembers(ch, "UADMIN")
	h.askAs("UADMIN", "CDATA", elsewhere, "", bottest.CeilingSalaries.Question)
	h.answerIn("CDATA", elsewhere, bottest.CeilingSalaries.Answer)
	h.askAs("UADMIN", "CDATA", "1700003203.000100", elsewhere, "post this to <#"+ch+"|general> every day at 9")
	confirm := h.answerIn("CDATA", elsewhere, "Shall I save it?")
	h.pressAs("UADMIN", confirm, nodes.ActionScheduleSave, buttonValue(t, confirm, nodes.ActionScheduleSave))
	h.ephemeralTo("UADMIN", "I can't post that there: what is posted in that channel may not show hr.salaries.")

	plain, grouped := bottest.SalaryTotal()
	kept := nodes.PrivateThread(ch, "UADMIN")
	toChannel := storedSchedules(t, h, kept, ch, due, 1, func(s *store.Schedule) {
		s.OwnerID, s.Question = "UADMIN", "Salaries in the channel"
	})[0]
	storedSchedules(t, h, kept, ch, due, 1, func(s *store.Schedule) {
		s.OwnerID, s.Question, s.DestKind, s.DestChannel = "UADMIN", "Salaries to me", "dm", "UADMIN"
	})
	clk.Set(due)
	require.Equal(t, 2, tick(t, sc))

	h.slack.WaitMessage(t, "the DM run", func(m fakeslack.Message) bool {
		return m.Channel == "DUADMIN" && strings.Contains(says(m), "Salaries to me") && strings.Contains(says(m), grouped)
	})
	told := ownerNote(t, h, "UADMIN", "I stopped your schedule “Salaries in the channel”")
	assert.Contains(t, says(told), "what is posted here may not show hr.salaries")
	assert.NotContains(t, h.channelSees(ch), plain, "nothing posted in the channel")
	assert.NotContains(t, h.channelSees(ch), grouped, "nothing posted in the channel")
	assert.Empty(t, h.posts(ch, "Salaries in the channel"))
	got, err := h.bot.DB().ScheduleByID(context.Background(), toChannel.ID)
	require.NoError(t, err)
	assert.Equal(t, store.ScheduleStopped, got.State)
}

// In a group DM (Slack's mpim), which no file can list ahead, under
// default_ceiling (the everyone policy), through the fake Slack: an
// analyst's question within the ceiling is answered for all its members,
// as the policy within it; one beyond it reaches its asker alone, and the
// conversation reads a note, whether asked by a mention or by a reply in
// the thread (a message event of channel_type mpim, never a direct
// message's); nothing is streamed, and the group DM never reads what is
// beyond the ceiling.
func TestGroupDMDefaultCeiling(t *testing.T) {
	t.Parallel()
	opt, mpim := withDefaultCeiling(t)
	h := start(t, opt, streaming())
	ctx := context.Background()

	within := "1700003301.000100"
	h.askAs("UANA", mpim, within, "", bottest.CeilingWithin.Question)
	h.answerIn(mpim, within, bottest.CeilingWithin.Answer)

	beyond := "1700003302.000100"
	h.askAs("UANA", mpim, beyond, "", bottest.CeilingBeyond.Question)
	h.answerIn(mpim, beyond, "privately: what they asked reaches beyond what this channel may see")
	private := h.privateTo("UANA", mpim, beyond, bottest.CeilingBeyond.Answer)
	h.pressAs("UANA", private, "show_sql", queryID(t, private))
	h.privateTo("UANA", mpim, beyond, "app_developers")

	// A reply in the thread, without a mention: Slack's message event
	// says mpim.
	reply := "1700003303.000100"
	h.send(fakeslack.Envelope{Type: "events_api", Payload: fakeslack.EventCallback("Ev"+mpim+"reply",
		fakeslack.MessageEvent(mpim, "mpim", "UANA", bottest.CeilingBeyond.Question, reply, within))})
	h.answerIn(mpim, within, "privately: what they asked reaches beyond what this channel may see")
	h.privateTo("UANA", mpim, within, bottest.CeilingBeyond.Answer)

	logs, err := h.bot.DB().QueryLogs(ctx, store.QueryLogFilter{ThreadID: threadID(mpim, within)})
	require.NoError(t, err)
	policies := map[string]string{}
	for _, l := range logs {
		policies[l.Question] = l.Policy
	}
	assert.Equal(t, map[string]string{bottest.CeilingWithin.Question: "analysts∩everyone", bottest.CeilingBeyond.Question: "analysts"}, policies,
		"posted in the group DM: answered as the policy within the catch-all ceiling; for the asker alone: as their own")

	sees := h.channelSees(mpim)
	for _, secret := range []string{bottest.CeilingBeyond.Answer, "app_developers", "links"} {
		assert.NotContains(t, sees, secret, "the group DM never reads what is beyond its ceiling")
	}
	assert.Empty(t, h.slack.Calls("chat.startStream"), "nothing streamed into a group DM with a ceiling")
}

// In a channel listed with policy none under default_ceiling, through the
// fake Slack: nothing caps an answer, so an analyst's question beyond the
// catch-all ceiling is posted in the channel, as the analysts' own policy.
func TestDefaultCeilingLiftedChannel(t *testing.T) {
	t.Parallel()
	opt, _ := withDefaultCeiling(t)
	h := start(t, opt)

	ts := "1700003401.000100"
	h.askAs("UANA", "CDATA", ts, "", bottest.CeilingBeyond.Question)
	h.answerIn("CDATA", ts, bottest.CeilingBeyond.Answer)

	logs, err := h.bot.DB().QueryLogs(context.Background(), store.QueryLogFilter{ThreadID: threadID("CDATA", ts)})
	require.NoError(t, err)
	require.Len(t, logs, 1)
	assert.Equal(t, "analysts", logs[0].Policy, "posted in CDATA as the asker's own policy, within no ceiling")
}
