package slackapp

import (
	"encoding/json"
	"fmt"
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

// withAccess starts the bot with an access file that admits user in the
// channels allowed, and no one else.
func withAccess(t *testing.T, allowed ...string) harnessOption {
	t.Helper()
	path := filepath.Join(t.TempDir(), "access.yaml")
	file := "access:\n  users: [" + user + "]\n  channels: [" + strings.Join(allowed, ", ") + "]\n  direct_messages: false\n" +
		"policies:\n  - name: everyone\n    tables: [\"analytics.*\"]\ndefault: everyone\n"
	require.NoError(t, os.WriteFile(path, []byte(file), 0o600))
	return withBotConfig(func(c *bot.Config) { c.AccessFile = path })
}

// With an access file, through the fake Slack: an allowed user in an
// allowed channel is answered; a slash command from someone else in a
// private channel is refused to them alone, before anything is posted
// for the channel to see; a mention in another channel is refused in its
// thread; no model call for any refusal.
func TestAccessFile(t *testing.T) {
	t.Parallel()
	data, private, other := channelID("CACCESS"), channelID("GACCESS"), channelID("CELSEWH")
	h := start(t, withAccess(t, data))

	h.mention(data, "1700000501.000100", "", q2018)
	h.answerIn(data, "1700000501.000100", answer18)
	calls := h.modelCalls()

	id := h.slack.Send(t, fakeslack.Envelope{Type: "slash_commands", Payload: mustJSON(t, h.slack.SlashCommand("/ask", q2018, "UMALLORY", private))})
	ack := h.slack.WaitAck(t, id)
	refused := h.waitRefusal(t, "UMALLORY", private, "You don't have access to this bot")
	h.waitJobs(2) // the mention's and the command's
	shown := shownTo(h, ack, private, "UMALLORY")
	assert.Equal(t, []string{"You don't have access to this bot. Ask whoever runs it to add you."}, shown,
		"one message, the refusal, reaches the one refused: no acknowledgement promising an answer beside it")
	assert.Equal(t, "You don't have access to this bot. Ask whoever runs it to add you.", refused.Text)

	h.mention(other, "1700000502.000100", "", q2018)
	refusal := h.answerIn(other, "1700000502.000100", "I don't answer in this channel")
	assert.NotContains(t, says(refusal), answer18)

	for _, m := range h.slack.Messages() {
		assert.False(t, m.Channel == private && !m.Ephemeral, "nothing posted in the private channel: %q", m.Text)
	}
	assert.Equal(t, calls, h.modelCalls(), "no model call for a refusal")
}

// shownTo is what the user read in channel after a slash command acked
// with ack: the acknowledgement's text, when it carried one, then every
// ephemeral message the user was sent there, as Slack shows them.
func shownTo(h *harness, ack fakeslack.Ack, channel, user string) []string {
	var shown []string
	if len(ack.Payload) > 0 {
		var reply struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(ack.Payload, &reply) == nil && reply.Text != "" {
			shown = append(shown, reply.Text)
		}
	}
	for _, m := range h.slack.Messages() {
		if m.Channel == channel && m.User == user && m.Ephemeral {
			shown = append(shown, m.Text)
		}
	}
	return shown
}

// waitRefusal waits for the refusal of a slash command, shown to who alone
// in channel (through the command's response URL), and returns it.
func (h *harness) waitRefusal(t *testing.T, who, channel, want string) fakeslack.Message {
	t.Helper()
	m := h.slack.WaitMessage(t, "the refusal of "+who, func(m fakeslack.Message) bool {
		return m.Channel == channel && strings.Contains(says(m), want)
	})
	assert.True(t, m.Ephemeral, "only the one who asked sees the refusal")
	assert.Equal(t, who, m.User)
	return m
}

// docs/access.md: refusals are logged too (not_admitted), in Slack both
// ways a question is refused: a mention in a channel the file leaves out,
// and a slash command from someone it does not admit, which is refused
// before the question is posted and so never reaches the workflow.
func TestAccessRefusalsAreLogged(t *testing.T) {
	t.Parallel()
	data, other := channelID("CLOGGED"), channelID("COUTSID")
	stranger := fmt.Sprintf("UREFUSED%04d", channelSeq.Add(1)) // this run's own: the database outlives -count
	h := start(t, withAccess(t, data))

	h.mention(other, "1700000511.000100", "", q2018)
	h.answerIn(other, "1700000511.000100", "I don't answer in this channel")
	id := h.slack.Send(t, fakeslack.Envelope{Type: "slash_commands", Payload: mustJSON(t, h.slack.SlashCommand("/ask", q2018, stranger, data))})
	h.slack.WaitAck(t, id)
	h.waitRefusal(t, stranger, data, "You don't have access to this bot")

	logs, err := h.bot.DB().QueryLogs(t.Context(), store.QueryLogFilter{UserID: user})
	require.NoError(t, err)
	var inOther []store.QueryLog
	for _, l := range logs {
		if l.ChannelID == other {
			inOther = append(inOther, l)
		}
	}
	require.NotEmpty(t, inOther, "the refused mention is in the query log")
	for _, l := range inOther {
		assert.Equal(t, "not_admitted", l.ErrorKind)
		assert.Equal(t, q2018, l.Question)
	}

	// The refusal of /ask is written after the refusal is sent, and
	// before the command's job ends: wait for the mention's and the
	// command's jobs, not for the row.
	h.waitJobs(2)
	logs, err = h.bot.DB().QueryLogs(t.Context(), store.QueryLogFilter{UserID: stranger})
	require.NoError(t, err)
	require.Len(t, logs, 1, "the refused /ask is in the query log")
	assert.Equal(t, "not_admitted", logs[0].ErrorKind)
	assert.Equal(t, data, logs[0].ChannelID)
	assert.Equal(t, q2018, logs[0].Question)
	assert.Contains(t, logs[0].ErrorDetail, "You don't have access to this bot")
}

// A group of the access file may name a Slack user group: its members are
// admitted under the group's policy (usergroups.users.list, listed when
// the app starts, then cached).
func TestAccessBySlackUserGroup(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
groups:
  data: [S0DATATEAM]
policies:
  - name: data
    groups: [data]
    tables: ["analytics.*"]
default: none
`), 0o600))
	fake := fakeslack.New(t)
	fake.SetUserGroup("S0DATATEAM", user)
	h := start(t, sharing(fake), withBotConfig(func(c *bot.Config) { c.AccessFile = path }))
	h.slack.WaitCalls(t, "usergroups.users.list", 1) // listed at start, before any question
	ch := channelID("CGROUPS")
	h.mention(ch, "1700000601.000100", "", q2018)
	h.answerIn(ch, "1700000601.000100", answer18)
	h.mention(ch, "1700000602.000100", "", q2018)
	h.answerIn(ch, "1700000602.000100", answer18)
	assert.Len(t, h.slack.Calls("usergroups.users.list"), 1, "the members are looked up once, then cached")

	h.slack.SetUserGroup("S0DATATEAM") // emptied, but cached for ten minutes
	ev := fakeslack.EventCallback("EvGroupOther", fakeslack.AppMention(ch, "UOUTSIDER", "<@"+fakeslack.BotUserID+"> "+q2018, "1700000603.000100", ""))
	h.slack.WaitAck(t, h.slack.Send(t, fakeslack.Envelope{Type: "events_api", Payload: ev}))
	h.answerIn(ch, "1700000603.000100", "You don't have access to any data here")
}

// slackGroupsFile is an access file whose contractors (a Slack user
// group) may not read what everyone else may.
const slackGroupsFile = `
groups:
  contractors: [S0CONTRACT]
policies:
  - name: contractors
    groups: [contractors]
    tables: ["analytics.none"]
  - name: everyone
    tables: ["analytics.*"]
default: everyone
`

// /ask is acknowledged without asking Slack who is in the user groups of
// the access file: when Slack cannot list a group never read whose policy
// is narrower than the default, the asker is refused afterwards, through
// the command's response URL, rather than answered under the default; and
// nothing is posted for the channel to see.
func TestSlashCommandAccessUnknownAfterTheAck(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(slackGroupsFile), 0o600))
	fake := fakeslack.New(t)
	fake.SetError("usergroups.users.list", "fatal_error") // from the listing at start on
	h := start(t, sharing(fake), withBotConfig(func(c *bot.Config) { c.AccessFile = path }))
	ch := channelID("CUNKNOWN")
	calls := h.modelCalls()

	id := h.slack.Send(t, fakeslack.Envelope{Type: "slash_commands", Payload: mustJSON(t, h.slack.SlashCommand("/ask", q2018, user, ch))})
	ack := h.slack.WaitAck(t, id)
	assert.Empty(t, ack.Payload, "acknowledged before the access check, with nothing shown")
	refusal := h.waitRefusal(t, user, ch, "I can't check your access right now: Slack didn't answer. Try again in a minute.")
	assert.NotContains(t, says(refusal), "fatal_error", "no internal error text")
	assert.NotEmpty(t, h.slack.Calls("usergroups.users.list"), "the group was asked about, after the ack")
	for _, m := range h.slack.Messages() {
		assert.False(t, m.Channel == ch && !m.Ephemeral, "nothing posted in the channel: %q", m.Text)
	}
	assert.Equal(t, calls, h.modelCalls(), "no model call for a refusal")
	// Written after the refusal is sent, so it may be a moment behind it.
	var here []store.QueryLog
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		logs, err := h.bot.DB().QueryLogs(t.Context(), store.QueryLogFilter{UserID: user})
		require.NoError(c, err)
		here = nil
		for _, l := range logs {
			if l.ChannelID == ch {
				here = append(here, l)
			}
		}
		require.Len(c, here, 1, "the refusal is in the query log")
	}, 30*time.Second, 20*time.Millisecond)
	assert.Equal(t, "access_unknown", here[0].ErrorKind, "a failure to check, not a refusal of the file's: a schedule is not stopped for it")
	assert.Contains(t, here[0].ErrorDetail, "S0CONTRACT", "the log says which group")
}

// The acknowledgement of /ask asks nothing of the access file's user
// groups: while Slack holds usergroups.users.list (the listing at start,
// which the command's check joins), the command is acknowledged, and
// the question is posted once Slack answers. The app's calls to Slack
// for people are given an hour here, not slackLookupTimeout: the held
// listing ends only when the test releases it, so an ack that waited on
// it would never come (WaitAck fails), however fast or slow the machine.
func TestSlashCommandAckDoesNotWaitOnUserGroups(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(slackGroupsFile), 0o600))
	fake := fakeslack.New(t)
	release := fake.HoldMethod("usergroups.users.list")
	defer release()
	h := start(t, sharing(fake), withBotConfig(func(c *bot.Config) { c.AccessFile = path }),
		withApp(func(a *App) { a.people.lookupTimeout = time.Hour }))
	fake.WaitHolding(t, "usergroups.users.list", 1) // the listing at start

	ch := channelID("CSLOWGRP")
	id := h.slack.SendSlashCommand(t, "/ask", q2018, user, ch)
	ack := h.slack.WaitAck(t, id)
	assert.Empty(t, ack.Payload, "acknowledged, with nothing shown")
	assert.Equal(t, 1, fake.Holding("usergroups.users.list"), "the ack came while Slack held the listing")
	assert.Empty(t, fake.Calls("usergroups.users.list"), "no listing answered before the ack")

	// Once Slack answers, the question is posted, the asker admitted
	// under the default: the first thing the channel shows is the
	// question, not a refusal.
	release()
	first := h.slack.WaitMessage(t, "the question posted, or the asker refused", func(m fakeslack.Message) bool {
		return m.Channel == ch && m.ThreadTS == ""
	})
	require.False(t, first.Ephemeral, "the asker refused: %q", says(first))
	h.answerIn(ch, first.TS, answer18)
}

// docs/access.md: without the usergroups:read scope a Slack user group has
// no members, which is known: whoever it would name is answered under the
// policy that applies without it.
func TestSlackUserGroupWithoutTheScope(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(slackGroupsFile), 0o600))
	fake := fakeslack.New(t)
	fake.SetError("usergroups.users.list", "missing_scope")
	h := start(t, sharing(fake), withBotConfig(func(c *bot.Config) { c.AccessFile = path }))
	ch := channelID("CNOSCOPE")
	id := h.slack.Send(t, fakeslack.Envelope{Type: "slash_commands", Payload: mustJSON(t, h.slack.SlashCommand("/ask", q2018, user, ch))})
	assert.Empty(t, h.slack.WaitAck(t, id).Payload, "acknowledged, with nothing shown")
	m := h.slack.WaitMessage(t, "the question posted", func(m fakeslack.Message) bool {
		return m.Channel == ch && !m.Ephemeral && m.ThreadTS == ""
	})
	h.answerIn(ch, m.TS, answer18)
}

// docs/access.md: a user group id Slack does not know (no_such_subteam)
// has no members, which is known: someone in no other group is answered
// under the policy that applies without it, not refused as though Slack
// had not answered.
func TestSlackUserGroupThatDoesNotExist(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(slackGroupsFile), 0o600)) // S0CONTRACT: no such group in the fake
	h := start(t, withBotConfig(func(c *bot.Config) { c.AccessFile = path }))
	ch := channelID("CNOGROUP")
	id := h.slack.SendSlashCommand(t, "/ask", q2018, user, ch)
	assert.Empty(t, h.slack.WaitAck(t, id).Payload, "acknowledged, with nothing shown")
	m := h.slack.WaitMessage(t, "the question posted", func(m fakeslack.Message) bool {
		return m.Channel == ch && !m.Ephemeral && m.ThreadTS == ""
	})
	h.answerIn(ch, m.TS, answer18)
	for _, m := range h.slack.Messages() {
		assert.NotContains(t, says(m), "Slack didn't answer", "not refused")
	}
}

// The access matrix through the fake Slack: a user of each policy
// mentions the bot with every case, and reads the answer or the refusal
// the policy calls for; with the guard, and again with the guard taken out
// and each policy's database role alone holding it.
func TestAccessMatrixInSlack(t *testing.T) {
	t.Parallel()
	for _, guard := range []bool{true, false} {
		name := "with the guard"
		if !guard {
			name = "without the guard"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "access.yaml")
			require.NoError(t, os.WriteFile(path, []byte(bottest.AccessFile("everyone")), 0o600))
			opts := []harnessOption{withScript(bottest.DemoScript(bottest.AccessRules())), withBotConfig(func(c *bot.Config) { c.AccessFile, c.Postgres.Schemas = path, bottest.AccessSchemas })}
			if !guard {
				opts = append(opts, withoutGuard())
			}
			h := start(t, opts...)
			says := map[nodes.ErrorKind]string{
				nodes.ErrAccessDenied: "I can't answer that: you may not read ",
				nodes.ErrInvalidQuery: "I couldn't write a query that works",
				nodes.ErrUnsafeQuery:  "Ask a question about the data instead.",
			}
			// The channel is the file's; event ids and timestamps are this
			// run's own (the package database outlives a run under -count).
			run, n := channelSeq.Add(1), 0
			for p, asker := range bottest.AccessUsers {
				for i, c := range bottest.AccessCases {
					n++
					ts := fmt.Sprintf("17%08d.%06d", run, n)
					ev := fakeslack.EventCallback(fmt.Sprintf("EvMatrix%d-%03d", run, n),
						fakeslack.AppMention("CDATA", asker, "<@"+fakeslack.BotUserID+"> "+c.Question(i), ts, ""))
					h.slack.WaitAck(t, h.slack.Send(t, fakeslack.Envelope{Type: "events_api", Payload: ev}))
					want, kind := "Here is "+c.Question(i)+".", c.Want[p]
					if !guard {
						kind = c.Alone[p]
					}
					if kind != "" {
						want = says[kind]
					}
					h.answerIn("CDATA", ts, want)
				}
			}
		})
	}
}
