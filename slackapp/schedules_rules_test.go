package slackapp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
	"github.com/analyticsbot/analyticsbot/store"
)

// A schedule posts only into channels its owner is a member of: Save is
// refused for another channel they are not in, a channel named but not
// picked from Slack's list is not guessed, and a run after the owner left
// the channel is refused, stops the schedule and tells them; nothing is
// posted there. Nor does anything run more often than every 5 minutes.
func TestSchedulesPostOnlyWhereTheirOwnerIs(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clk := bottest.NewClock(due.Add(-time.Hour))
	h, sc := scheduled(t, clk, "replica-1", ownState(t))
	ch, exec, team := channelID("CRULES"), channelID("CEXEC"), channelID("CTEAM")
	h.slack.SetMembers(exec, "UBOB0001")
	h.slack.SetMembers(team, "UBOB0001", user)
	root := "1700002001.000100"
	answered(t, h, ch, root)

	h.mention(ch, "1700002002.000100", root, "post this to <#"+exec+"|exec> every day at 9")
	confirm := h.answerIn(ch, root, "in <#"+exec+"> every day")
	h.send(fakeslack.Envelope{Type: "interactive", Payload: h.slack.BlockAction(user, ch, confirm.TS, root,
		nodes.ActionScheduleSave, buttonValue(t, confirm, nodes.ActionScheduleSave))})
	h.ephemeralTo(user, "You are not a member of that channel, so I won't post there for you.")
	list, err := h.bot.DB().Schedules(context.Background(), store.ScheduleFilter{OwnerID: user})
	require.NoError(t, err)
	assert.Empty(t, list, "not saved")

	h.mention(ch, "1700002003.000100", root, "post this to #growth every day at 9")
	h.answerIn(ch, root, "I couldn't tell which channel “#growth” is: type # and pick it from Slack's list")
	h.mention(ch, "1700002004.000100", root, "send me this `*/2 * * * *`")
	h.answerIn(ch, root, "That would run more often than every 5 minutes")

	h.mention(ch, "1700002005.000100", root, "post this to <#"+team+"|team> every day at 9")
	confirm = h.answerIn(ch, root, "in <#"+team+"> every day")
	h.send(fakeslack.Envelope{Type: "interactive", Payload: h.slack.BlockAction(user, ch, confirm.TS, root,
		nodes.ActionScheduleSave, buttonValue(t, confirm, nodes.ActionScheduleSave))})
	h.ephemeralTo(user, "Saved: I'll post")
	id := buttonValue(t, confirm, nodes.ActionScheduleSave)

	h.slack.SetMembers(team, "UBOB0001") // the owner leaves #team
	clk.Set(due)
	require.Equal(t, 1, tick(t, sc))
	assert.Empty(t, h.posts(team, "📅"), "nothing posted in #team")
	h.slack.WaitMessage(t, "a DM to the owner", func(m fakeslack.Message) bool {
		return m.Channel == "D"+user && strings.Contains(says(m), "I stopped your schedule") &&
			strings.Contains(says(m), "you are no longer a member of the channel it posts to")
	})
	got, err := h.bot.DB().ScheduleByID(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, store.ScheduleStopped, got.State)
}

// accessFile starts the bot with an access file whose only policy reads
// the analytics schema except deny.
func accessFile(t *testing.T, deny string) harnessOption {
	t.Helper()
	path := filepath.Join(t.TempDir(), "access.yaml")
	file := "policies:\n  - name: analysts\n    tables: [\"analytics.*\"]\n"
	if deny != "" {
		file += "    deny_tables: [\"" + deny + "\"]\n"
	}
	require.NoError(t, os.WriteFile(path, []byte(file+"default: analysts\n"), 0o600))
	return withBotConfig(func(c *bot.Config) { c.AccessFile = path })
}

// A schedule runs under its owner's policy: once the access file no longer
// lets them read its table, the run is refused, nothing is posted, the
// schedule stops, and its owner is told why in a direct message.
func TestPolicyChangeStopsASchedule(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clk := bottest.NewClock(due.Add(-time.Hour))
	state := ownState(t)
	h1, _ := scheduled(t, clk, "before", state, accessFile(t, ""))
	ch := channelID("CPOLICY")
	answered(t, h1, ch, "1700001401.000100")
	s := storedSchedules(t, h1, threadID(ch, "1700001401.000100"), ch, due, 1)[0]

	// The bot restarts with a policy that denies the table.
	h2, after := scheduled(t, clk, "after", state, accessFile(t, "analytics.apps"), sharing(h1.slack))
	clk.Set(due)
	require.Equal(t, 1, tick(t, after))
	assert.Empty(t, h1.posts(ch, s.Question), "nothing posted")
	note := ownerNote(t, h1, user, "I stopped your schedule “"+s.Question+"”")
	assert.Contains(t, says(note), "analytics.apps", "the note says what they may no longer read")

	got, err := h2.bot.DB().ScheduleByID(context.Background(), s.ID)
	require.NoError(t, err)
	assert.Equal(t, store.ScheduleStopped, got.State)
	assert.Contains(t, got.StopReason, "analytics.apps")
	clk.Set(due.Add(24 * time.Hour))
	assert.Zero(t, tick(t, after), "a stopped schedule does not run again")
	runs, err := h2.bot.DB().ScheduleRuns(context.Background(), s.ID, 10)
	require.NoError(t, err)
	require.Len(t, runs, 1)
	assert.Equal(t, store.RunRefused, runs[0].Outcome)
	assert.Equal(t, string(nodes.ErrAccessDenied), runs[0].ErrorKind)
}

// "/ask schedules" lists the asker's schedules, to them alone, with
// buttons that pause, resume and delete; someone else's cannot be listed,
// paused, resumed or deleted by them; "/ask schedules here" is the
// channel's view, for schedule admins only, who may change anyone's.
func TestManageSchedulesInSlack(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clk := bottest.NewClock(due.Add(-time.Hour))
	h, sc := scheduled(t, clk, "replica-1", ownState(t), withBotConfig(func(c *bot.Config) { c.ScheduleAdmins = []string{"UADMIN01"} }))
	ch := channelID("CMANAGE")
	answered(t, h, ch, "1700001501.000100")
	list := storedSchedules(t, h, threadID(ch, "1700001501.000100"), ch, due, 2)

	slash := func(who, text string) string {
		id := h.slack.Send(t, fakeslack.Envelope{Type: "slash_commands", Payload: mustJSON(t, h.slack.SlashCommand("/ask", text, who, ch))})
		return string(h.slack.WaitAck(t, id).Payload)
	}
	mine := slash(user, "schedules")
	assert.Contains(t, mine, `"response_type":"ephemeral"`)
	assert.Contains(t, mine, list[0].Question)
	assert.Contains(t, mine, list[1].Question)
	assert.Contains(t, mine, "next Monday 30 November at 09:00")
	assert.Contains(t, mine, `"action_id":"schedule_pause"`)
	assert.Contains(t, mine, `"action_id":"schedule_pause~2"`, "one Pause per schedule, each its own action id")
	assert.Contains(t, slash("UOTHER01", "schedules"), "You have no schedules")
	assert.Contains(t, slash("UOTHER01", "schedules here"), "Only schedule admins")
	assert.Contains(t, slash("UADMIN01", "schedules here"), `made by \u003c@`+user+`\u003e`, "a mention, which Slack shows as the name")

	press := func(who, action, id string) fakeslack.Message {
		before := len(h.slack.Messages())
		h.send(fakeslack.Envelope{Type: "interactive", Payload: h.slack.BlockAction(who, ch, "1700001501.000100", "", action, id)})
		return h.slack.WaitMessage(t, "a reply to "+who+" about "+action, func(m fakeslack.Message) bool {
			return m.Ephemeral && m.User == who && slices.IndexFunc(h.slack.Messages()[before:], func(n fakeslack.Message) bool { return n.TS == m.TS }) >= 0
		})
	}
	assert.Contains(t, says(press("UOTHER01", nodes.ActionSchedulePause, list[0].ID)), "Only the person who made this schedule")
	assert.Contains(t, says(press(user, nodes.ActionSchedulePause+"~2", list[0].ID)), "Paused “"+list[0].Question+"”")
	assert.Contains(t, says(press("UOTHER01", nodes.ActionScheduleResume, list[0].ID)), "Only the person who made this schedule")
	assert.Contains(t, says(press("UOTHER01", nodes.ActionScheduleDelete, list[1].ID)), "Only the person who made this schedule")
	clk.Set(due)
	assert.Equal(t, 1, tick(t, sc), "the paused one does not run; the other does")
	assert.Empty(t, h.posts(ch, list[0].Question))
	assert.Len(t, h.posts(ch, list[1].Question), 1)

	assert.Contains(t, says(press(user, nodes.ActionScheduleResume, list[0].ID)), "Resumed “"+list[0].Question+"”: the next run is Tuesday 1 December at 09:00.")
	assert.Contains(t, says(press("UADMIN01", nodes.ActionScheduleDelete, list[0].ID)), "Deleted “"+list[0].Question+"”", "an admin may delete anyone's")
	_, err := h.bot.DB().ScheduleByID(context.Background(), list[0].ID)
	assert.ErrorIs(t, err, store.ErrNotFound)
}

// After downtime a schedule runs once, saying when it was due, not once
// per missed time; then it keeps its regular times.
func TestMissedRunsRunOnceOnRecovery(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clk := bottest.NewClock(due.Add(3*24*time.Hour + 3*time.Hour)) // no replica ran for three days
	h, sc := scheduled(t, clk, "replica-1", ownState(t))
	ch := channelID("CMISSED")
	answered(t, h, ch, "1700001601.000100")
	s := storedSchedules(t, h, threadID(ch, "1700001601.000100"), ch, due, 1)[0]

	require.Equal(t, 1, tick(t, sc))
	assert.Zero(t, tick(t, sc), "the missed times do not run one after another")
	posts := h.posts(ch, s.Question)
	require.Len(t, posts, 1)
	assert.Contains(t, says(posts[0]), "This run was due Monday 30 November at 09:00; the bot was not running then.")
	got, err := h.bot.DB().ScheduleByID(context.Background(), s.ID)
	require.NoError(t, err)
	assert.Equal(t, time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC), got.NextRunAt.UTC(), "next: the regular time after now")
}

// A run whose post Slack refuses because the bot is not in the channel
// is not tried again within the run (no retry can pass until someone
// invites the bot): its owner is told at once why and what to do, and when
// it runs next; once the bot is back in the channel the next run posts as
// usual.
func TestFailingRunIsRetriedThenTheOwnerIsTold(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clk := bottest.NewClock(due)
	h, sc := scheduled(t, clk, "replica-1", ownState(t))
	ch := channelID("CFAILING")
	answered(t, h, ch, "1700001701.000100")
	s := storedSchedules(t, h, threadID(ch, "1700001701.000100"), ch, due, 1)[0]

	h.slack.SetNotInChannel(ch)
	require.Equal(t, 1, tick(t, sc), "the attempt at 09:00")
	noRetries(t, clk, sc, due)
	note := ownerNote(t, h, user, "I couldn't run your schedule “"+s.Question+"”")
	assert.Contains(t, says(note), "that was due Monday 30 November at 09:00 (I couldn't post it: I'm not in that channel: "+
		"invite me with /invite @"+h.app.botName()+"). I'll try again at the next time, Tuesday 1 December at 09:00.")
	runs, err := h.bot.DB().ScheduleRuns(context.Background(), s.ID, 10)
	require.NoError(t, err)
	require.Len(t, runs, 1, "one attempt")
	assert.Equal(t, store.RunFailed, runs[0].Outcome)
	assert.Equal(t, "undeliverable", runs[0].ErrorKind)

	h.slack.SetInChannel(ch)
	clk.Set(due.Add(24 * time.Hour))
	require.Equal(t, 1, tick(t, sc))
	assert.Len(t, h.posts(ch, s.Question), 1, "the next run posts")
	got, err := h.bot.DB().ScheduleByID(context.Background(), s.ID)
	require.NoError(t, err)
	assert.Zero(t, got.Failures, "a run that posts clears the failures")
}

// A CSV schedule posts its answer with every row attached as a file;
// words that cannot be read get what to say instead, and nothing is
// saved.
func TestCSVScheduleAndUnclearWords(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clk := bottest.NewClock(due.Add(-time.Hour))
	h, sc := scheduled(t, clk, "replica-1", ownState(t))
	ch, root := channelID("CCSV"), "1700001801.000100"
	answered(t, h, ch, root)

	h.mention(ch, "1700001802.000100", root, "send me this at 9")
	unclear := h.answerIn(ch, root, "how often")
	assert.NotContains(t, says(unclear), "Shall I save it?")
	assert.Contains(t, says(unclear), "“post this to #growth every Friday at 5pm”", "it says how to say it")
	list, err := h.bot.DB().Schedules(context.Background(), store.ScheduleFilter{States: []store.ScheduleState{store.SchedulePending, store.ScheduleActive}})
	require.NoError(t, err)
	assert.Empty(t, list, "nothing saved")

	s := storedSchedules(t, h, threadID(ch, root), ch, due, 1, func(s *store.Schedule) { s.Format = "csv" })[0]
	clk.Set(due)
	require.Equal(t, 1, tick(t, sc))
	posts := h.posts(ch, s.Question)
	require.Len(t, posts, 1)
	file := h.slack.WaitFile(t, func(f fakeslack.File) bool { return f.Channel == ch && f.ThreadTS == posts[0].TS })
	assert.Equal(t, "games\n8160\n", string(file.Content))
	assert.Regexp(t, `^report-a-ccsv\d+-2026-11-30\.csv$`, file.Name)
	assert.Empty(t, file.InitialComment, "the post says it; the file under it does not say it again")
}

// What the bot writes about schedules names the slash command as the app
// calls it (SLACK_SLASH_COMMAND).
func TestSchedulesNameTheSlashCommand(t *testing.T) {
	t.Parallel()
	clk := bottest.NewClock(time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
	h, _ := scheduled(t, clk, "replica-1", ownState(t), withConfig(func(c *Config) { c.SlashCommand = "/data" }))
	ch, root := channelID("CSLASH"), "1700002101.000100"
	answered(t, h, ch, root)
	h.mention(ch, "1700002102.000100", root, "send me this every day at 9")
	confirm := h.answerIn(ch, root, "Shall I save it?")
	h.send(fakeslack.Envelope{Type: "interactive", Payload: h.slack.BlockAction(user, ch, confirm.TS, root,
		nodes.ActionScheduleSave, buttonValue(t, confirm, nodes.ActionScheduleSave))})
	saved := h.ephemeralTo(user, "Saved: I'll send you")
	assert.Contains(t, says(saved), "`/data schedules` lists your schedules.")
	id := h.slack.Send(t, fakeslack.Envelope{Type: "slash_commands", Payload: mustJSON(t, h.slack.SlashCommand("/data", "schedules", user, ch))})
	assert.Contains(t, string(h.slack.WaitAck(t, id).Payload), "every day at 09:00 (UTC)")
}

// SCHEDULE_ADMINS defaults to EXAMPLE_ADMINS (README, docs/schedules.md):
// with only EXAMPLE_ADMINS set, its users see the channel's schedules and
// may delete anyone's.
func TestScheduleAdminsDefaultToExampleAdmins(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clk := bottest.NewClock(due.Add(-time.Hour))
	h, _ := scheduled(t, clk, "replica-1", ownState(t), withBotConfig(func(c *bot.Config) {
		c.ExampleAdmins, c.ScheduleAdmins = []string{"UEXAMPLE01"}, nil
	}))
	ch := channelID("CADMINDEF")
	answered(t, h, ch, "1700001601.000100")
	list := storedSchedules(t, h, threadID(ch, "1700001601.000100"), ch, due, 1)

	slash := func(who, text string) string {
		id := h.slack.Send(t, fakeslack.Envelope{Type: "slash_commands", Payload: mustJSON(t, h.slack.SlashCommand("/ask", text, who, ch))})
		return string(h.slack.WaitAck(t, id).Payload)
	}
	assert.Contains(t, slash("UOTHER01", "schedules here"), "Only schedule admins")
	assert.Contains(t, slash("UEXAMPLE01", "schedules here"), `made by \u003c@`+user+`\u003e`)

	h.send(fakeslack.Envelope{Type: "interactive", Payload: h.slack.BlockAction("UEXAMPLE01", ch, "1700001601.000100", "", nodes.ActionScheduleDelete, list[0].ID)})
	reply := h.slack.WaitMessage(t, "the admin's delete answered", func(m fakeslack.Message) bool {
		return m.Ephemeral && m.User == "UEXAMPLE01" && strings.Contains(says(m), "Deleted")
	})
	assert.Contains(t, says(reply), "Deleted “"+list[0].Question+"”")
	_, err := h.bot.DB().ScheduleByID(context.Background(), list[0].ID)
	assert.ErrorIs(t, err, store.ErrNotFound)
}

// A schedule sent to its owner's direct messages reads as their policy for
// the channel it was made in (docs/schedules.md): where the access file
// gives that channel a policy of its own, it is theirs while they are in
// the channel. Once they leave it, a run posts nothing to them, the
// schedule stops and they are told why.
func TestDirectMessageScheduleStopsOnceItsOwnerLeftItsChannel(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clk := bottest.NewClock(due.Add(-time.Hour))
	finance := channelID("CFINANCE")
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
policies:
  - name: finance
    channels: [`+finance+`]
    tables: ["analytics.*"]
  - name: everyone
    tables: ["analytics.genres"]
default: everyone
`), 0o600))
	h, sc := scheduled(t, clk, "replica-1", ownState(t), withBotConfig(func(c *bot.Config) { c.AccessFile = path }))
	h.slack.SetMembers(finance, "UBOB0001", user)
	root := "1700002201.000100"
	answered(t, h, finance, root)
	s := storedSchedules(t, h, threadID(finance, root), finance, due, 1, func(s *store.Schedule) {
		s.DestKind, s.DestChannel = "dm", user
	})[0]

	h.slack.SetMembers(finance, "UBOB0001") // the owner leaves #finance
	clk.Set(due)
	require.Equal(t, 1, tick(t, sc))
	assert.Empty(t, h.posts("D"+user, "📅"), "no run in their direct messages")
	assert.Empty(t, h.posts("D"+user, "8,160"), "nor the finance policy's figure")
	h.slack.WaitMessage(t, "a DM to the owner", func(m fakeslack.Message) bool {
		return m.Channel == "D"+user && strings.Contains(says(m), "I stopped your schedule") &&
			strings.Contains(says(m), "you are no longer a member of the channel it was made in")
	})
	got, err := h.bot.DB().ScheduleByID(context.Background(), s.ID)
	require.NoError(t, err)
	assert.Equal(t, store.ScheduleStopped, got.State)
}

// The Slack errors that no retry within a run can pass are told to the
// schedule's owner in words that say what to do; others are not.
func TestWhyCannotPost(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ err, want string }{
		{"is_archived", "the channel is archived"},
		{"not_in_channel", "I'm not in that channel: invite me with /invite @analyticsbot"},
		{"channel_not_found", "I can't find that channel: it was deleted, or it is private and I'm not in it (invite me with /invite @analyticsbot)"},
		{"restricted_action", "the channel's settings don't let me post there"},
		{"service_unavailable", ""},
	} {
		err := fmt.Errorf("post: %w", slack.SlackErrorResponse{Err: tt.err})
		assert.Equal(t, tt.want, whyCannotPost(err, "analyticsbot"), tt.err)
	}
	assert.Empty(t, whyCannotPost(nil, "analyticsbot"))
}
