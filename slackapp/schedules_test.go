package slackapp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/scheduler"
	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
	"github.com/analyticsbot/analyticsbot/store"
)

// ownState keeps the bot's state (turns, schedules) in a schema of the
// test's own (BOT_SCHEMA), as a deployment of its own would: the
// schedulers of tests running in parallel on the package database then
// see only their test's schedules. Replicas of one test share it.
func ownState(t *testing.T) harnessOption {
	t.Helper()
	ctx := context.Background()
	schema := strings.ToLower(channelID("sched_"))
	db, err := store.Open(ctx, needDB(t), store.WithSchema(schema))
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Migrate(ctx))
	t.Cleanup(func() {
		db, err := store.Open(context.Background(), needDB(t))
		if err == nil {
			_, _ = db.Pool().Exec(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
			db.Close()
		}
	})
	return withBotConfig(func(c *bot.Config) { c.BotSchema = schema })
}

// scheduled starts a harness whose bot and scheduler run on clk, and the
// scheduler posting to the harness's Slack app.
func scheduled(t *testing.T, clk *bottest.Clock, runner string, opts ...harnessOption) (*harness, *scheduler.Scheduler) {
	t.Helper()
	h := start(t, opts...)
	h.bot.SetClock(clk.Now)
	sc := scheduler.New(h.bot, scheduler.Options{Now: clk.Now, Runner: runner, Lease: time.Minute, RetryDelay: time.Minute})
	sc.Handle(nodes.SurfaceSlack, h.app)
	return h, sc
}

// tick runs one poll of sc and fails the test on an error.
func tick(t *testing.T, sc *scheduler.Scheduler) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := sc.Tick(ctx)
	require.NoError(t, err)
	return n
}

// ownerNote waits for the direct message to owner (a user id) that holds
// words, as the scheduler tells a schedule's owner what became of it.
func ownerNote(t *testing.T, h *harness, owner, words string) fakeslack.Message {
	t.Helper()
	return h.slack.WaitMessage(t, "a DM to the owner", func(m fakeslack.Message) bool {
		return m.Channel == "D"+owner && strings.Contains(says(m), words)
	})
}

// noRetries checks that sc runs nothing where SCHEDULE_RETRIES' retries
// of a run due at due would be.
func noRetries(t *testing.T, clk *bottest.Clock, sc *scheduler.Scheduler, due time.Time) {
	t.Helper()
	for _, at := range []time.Duration{time.Minute, 3 * time.Minute} {
		clk.Set(due.Add(at + time.Second))
		assert.Zero(t, tick(t, sc), "no retry at +%s", at)
	}
}

// buttonValue is the value of the button actionID in m.
func buttonValue(t *testing.T, m fakeslack.Message, actionID string) string {
	t.Helper()
	var blocks []struct {
		Type     string `json:"type"`
		Elements []struct {
			ActionID string `json:"action_id"`
			Value    string `json:"value"`
		} `json:"elements"`
	}
	require.NoError(t, json.Unmarshal(m.Blocks, &blocks), "blocks")
	for _, b := range blocks {
		for _, e := range b.Elements {
			if b.Type == "actions" && e.ActionID == actionID {
				return e.Value
			}
		}
	}
	t.Fatalf("no %s button in %s", actionID, m.Blocks)
	return ""
}

// ephemeralTo waits for a message only user sees, with want in it.
func (h *harness) ephemeralTo(who, want string) fakeslack.Message {
	h.t.Helper()
	return h.slack.WaitMessage(h.t, "an ephemeral message to "+who+" with "+want, func(m fakeslack.Message) bool {
		return m.Ephemeral && m.User == who && strings.Contains(says(m), want)
	})
}

// posts are the messages in channel (top level or not) whose text has want.
func (h *harness) posts(channel, want string) []fakeslack.Message {
	var out []fakeslack.Message
	for _, m := range h.slack.Messages() {
		if m.Channel == channel && !m.Ephemeral && !m.Deleted && strings.Contains(says(m), want) {
			out = append(out, m)
		}
	}
	return out
}

// Through the fake Slack, with real Postgres and a clock the test moves: a
// schedule made with the Schedule button and a preset, one made in words
// in the thread; each confirmed in plain words in the owner's time zone
// (users.info) and saved; then each posts at 09:00 New York time on both
// sides of the end of daylight saving time (13:00 UTC before, 14:00 UTC
// after), once per run, with no model call.
func TestSchedulesPostAtLocalTimesAcrossDST(t *testing.T) {
	t.Parallel()
	clk := bottest.NewClock(time.Date(2026, 10, 30, 12, 0, 0, 0, time.UTC)) // Friday, New York still on EDT
	h, sc := scheduled(t, clk, "replica-1", ownState(t))
	h.slack.SetUserTimeZone(user, "America/New_York")
	ch, growth := channelID("CSCHED"), channelID("CGROWTH")
	h.slack.SetMembers(growth, "UBOB0001", user)
	h.slack.SetMembers(ch, "UBOB0001", user) // the DM schedule's runs check they are still in it
	root := "1700001001.000100"
	ans := answered(t, h, ch, root)
	qid := queryID(t, ans)
	assert.Equal(t, qid, buttonValue(t, ans, "schedule"), "every answer has a Schedule button")

	// The button offers presets; a preset asks to confirm; Save saves.
	h.press(ans, "schedule", qid)
	presets := h.ephemeralTo(user, "When should I send you")
	preset := buttonValue(t, presets, nodes.ActionSchedulePreset)
	assert.Equal(t, qid+" 0 9 * * 1-5", preset)
	h.send(fakeslack.Envelope{Type: "interactive", Payload: h.slack.BlockAction(user, ch, presets.TS, root,
		nodes.ActionSchedulePreset, qid+" 0 9 * * 1")})
	confirm := h.ephemeralTo(user, "Shall I save it?")
	assert.Contains(t, says(confirm), "I'll send you “How many games were released in 2018?” in a direct message every Monday at 09:00 (America/New_York), first on Monday 2 November at 09:00.")
	h.send(fakeslack.Envelope{Type: "interactive", Payload: h.slack.BlockAction(user, ch, confirm.TS, root,
		nodes.ActionScheduleSave, buttonValue(t, confirm, nodes.ActionScheduleSave))})
	h.ephemeralTo(user, "Saved: I'll send you")

	// Words in the thread: read without the model, confirmed in the thread.
	calls := h.modelCalls()
	h.mention(ch, "1700001002.000100", root, "post this to <#"+growth+"|growth> every day at 9am")
	words := h.answerIn(ch, root, "Shall I save it?")
	assert.Contains(t, says(words), "I'll post “How many games were released in 2018?” in <#"+growth+"> every day at 09:00 (America/New_York), "+
		"first on Friday 30 October at 09:00.", "12:00 UTC is 08:00 in New York")
	assert.Equal(t, calls, h.modelCalls(), "schedules in words are read without the model")
	h.send(fakeslack.Envelope{Type: "interactive", Payload: h.slack.BlockAction(user, ch, words.TS, root,
		nodes.ActionScheduleSave, buttonValue(t, words, nodes.ActionScheduleSave))})
	h.ephemeralTo(user, "Saved: I'll post")

	// Three days, polled every 30 minutes: when did each post appear?
	postedAt := map[string][]string{}
	seen := map[string]bool{}
	for now := clk.Now(); now.Before(time.Date(2026, 11, 2, 15, 0, 0, 0, time.UTC)); now = now.Add(30 * time.Minute) {
		clk.Set(now)
		tick(t, sc)
		for _, m := range h.slack.Messages() {
			if seen[m.Channel+m.TS] || m.Ephemeral || !strings.Contains(says(m), "📅") {
				continue
			}
			seen[m.Channel+m.TS] = true
			where := "dm"
			if m.Channel == growth {
				where = "growth"
			}
			postedAt[where] = append(postedAt[where], now.Format("Mon 02 15:04Z"))
			assert.Contains(t, says(m), "8,160", "the run answers from the fresh result")
		}
	}
	assert.Equal(t, []string{"Fri 30 13:00Z", "Sat 31 13:00Z", "Sun 01 14:00Z", "Mon 02 14:00Z"}, postedAt["growth"],
		"every day at 09:00 New York time: 13:00 UTC on daylight time, 14:00 UTC after it ends")
	assert.Equal(t, []string{"Mon 02 14:00Z"}, postedAt["dm"], "Mondays at 09:00 New York time, in a DM")
	assert.Equal(t, calls, h.modelCalls(), "no run calls the model")
	dm := h.posts("D"+user, "📅")
	require.Len(t, dm, 1)
	assert.Empty(t, dm[0].ThreadTS, "a DM run is a message of its own, in the app's DM with its owner")
	assert.Contains(t, string(dm[0].Blocks), `"action_id":"export_csv"`, "a run has the answer's buttons")

	// The run's Export CSV works in its own thread, from the kept result.
	h.press(dm[0], "export_csv", queryID(t, dm[0]))
	file := h.slack.WaitFile(t, func(f fakeslack.File) bool { return f.Channel == "D"+user })
	assert.Contains(t, string(file.Content), "8160")

	// The runs are in the query logs, as the schedule's thread.
	logs, err := h.bot.DB().QueryLogs(context.Background(), store.QueryLogFilter{UserID: user, Limit: 100})
	require.NoError(t, err)
	runs := 0
	for _, l := range logs {
		if l.Intent == string(nodes.IntentScheduledRun) {
			runs++
			assert.Zero(t, l.ModelCalls)
			assert.True(t, strings.HasPrefix(l.ThreadID, "schedule-"), "thread %q", l.ThreadID)
		}
	}
	assert.Equal(t, 5, runs, "five runs logged")
}

// storedSchedules saves n active schedules of the thread's answer, due at
// due, posting to channel, each with its own question so posts tell them
// apart.
func storedSchedules(t *testing.T, h *harness, thread, channel string, due time.Time, n int, adjust ...func(*store.Schedule)) []store.Schedule {
	t.Helper()
	ctx := context.Background()
	turn, err := h.bot.DB().MostRecentQuery(ctx, thread)
	require.NoError(t, err)
	var out []store.Schedule
	for i := range n {
		s := store.Schedule{State: store.ScheduleActive, OwnerID: user, Surface: nodes.SurfaceSlack, SourceThread: thread,
			SourceChannel: channel, Query: turn.Query, QueryID: turn.QueryID, Question: "Report " + string(rune('A'+i)) + " " + channel,
			Spec: "0 9 * * *", TimeZone: "UTC", DestKind: "channel", DestChannel: channel, Format: "answer", NextRunAt: &due}
		for _, f := range adjust {
			f(&s)
		}
		// Its owner is a member of where it posts, as Save checks and
		// every run checks again.
		switch s.DestKind {
		case "channel":
			h.slack.Join(s.DestChannel, s.OwnerID)
		case "thread":
			in, _, _ := strings.Cut(s.DestThread, ":")
			h.slack.Join(in, s.OwnerID)
		}
		s, err := h.bot.DB().AddSchedule(ctx, s)
		require.NoError(t, err)
		out = append(out, s)
	}
	return out
}

// Two replicas on one database and one Slack, polling at the same moments:
// each run of each schedule is posted once.
func TestTwoReplicasPostEachRunOnce(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clk := bottest.NewClock(due.Add(-time.Hour))
	state := ownState(t)
	h1, sc1 := scheduled(t, clk, "replica-1", state)
	h2 := start(t, sharing(h1.slack), state)
	h2.bot.SetClock(clk.Now)
	sc2 := scheduler.New(h2.bot, scheduler.Options{Now: clk.Now, Runner: "replica-2", Lease: time.Minute})
	sc2.Handle(nodes.SurfaceSlack, h2.app)
	ch := channelID("CREPLICA")
	answered(t, h1, ch, "1700001101.000100")
	schedules := storedSchedules(t, h1, threadID(ch, "1700001101.000100"), ch, due, 6)

	for _, at := range []time.Time{due, due.Add(24 * time.Hour)} {
		clk.Set(at)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() { tick(t, sc1) })
			wg.Go(func() { tick(t, sc2) })
		}
		wg.Wait()
	}
	runners := map[string]bool{}
	for _, s := range schedules {
		assert.Len(t, h1.posts(ch, s.Question), 2, "%s: two days, two posts", s.Question)
		runs, err := h1.bot.DB().ScheduleRuns(context.Background(), s.ID, 10)
		require.NoError(t, err)
		require.Len(t, runs, 2)
		for _, r := range runs {
			assert.Equal(t, store.RunPosted, r.Outcome)
			assert.Equal(t, 1, r.Attempt)
			runners[r.Runner] = true
		}
	}
	t.Logf("runs were posted by %v", runners)
}

// blockingDeliverer stands for a replica that dies while posting: it
// never posts, and tells the test it got that far.
type blockingDeliverer struct {
	scheduler.Deliverer
	reached chan struct{}
}

func (b blockingDeliverer) Deliver(ctx context.Context, _ bot.Schedule, _ bot.Reply) (bot.Delivered, error) {
	close(b.reached)
	<-ctx.Done()
	return bot.Delivered{}, ctx.Err()
}

// A replica killed mid-run leaves its claim; once its lease has passed, the
// other replica runs the schedule and posts it, once.
func TestKilledReplicaIsTakenOver(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clk := bottest.NewClock(due)
	state := ownState(t)
	h1, _ := scheduled(t, clk, "replica-1", state)
	dying := scheduler.New(h1.bot, scheduler.Options{Now: clk.Now, Runner: "dying", Lease: time.Minute})
	blocked := blockingDeliverer{Deliverer: h1.app, reached: make(chan struct{})}
	dying.Handle(nodes.SurfaceSlack, blocked)
	_, survivor := scheduled(t, clk, "survivor", sharing(h1.slack), state)
	ch := channelID("CKILLED")
	answered(t, h1, ch, "1700001201.000100")
	s := storedSchedules(t, h1, threadID(ch, "1700001201.000100"), ch, due, 1)[0]

	ctx, kill := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = dying.Tick(ctx)
	}()
	<-blocked.reached
	kill()
	<-done

	clk.Set(due.Add(30 * time.Second))
	assert.Zero(t, tick(t, survivor), "within the lease the run is still the dead replica's")
	clk.Set(due.Add(90 * time.Second))
	assert.Equal(t, 1, tick(t, survivor), "after it, the survivor takes it over")
	assert.Len(t, h1.posts(ch, s.Question), 1, "posted once")
	runs, err := h1.bot.DB().ScheduleRuns(context.Background(), s.ID, 10)
	require.NoError(t, err)
	require.Len(t, runs, 2)
	assert.Equal(t, "survivor", runs[0].Runner)
	assert.Equal(t, store.RunPosted, runs[0].Outcome)
	assert.Equal(t, 2, runs[0].Attempt)
	assert.Equal(t, "dying", runs[1].Runner)
	assert.Equal(t, store.RunAbandoned, runs[1].Outcome)
}

// An alert made in words posts only when its condition holds, with the
// value and the last run's.
func TestAlertPostsOnlyWhenItsConditionHolds(t *testing.T) {
	t.Parallel()
	clk := bottest.NewClock(time.Date(2026, 11, 30, 8, 30, 0, 0, time.UTC))
	h, sc := scheduled(t, clk, "replica-1", ownState(t))
	ch, root := channelID("CALERT"), "1700001301.000100"
	h.slack.SetMembers(ch, user)
	answered(t, h, ch, root)
	calls := h.modelCalls()
	h.mention(ch, "1700001302.000100", root, "alert me here when the count is above 9,000, checked every hour")
	h.answerIn(ch, root, "The answer has no number column “count”: its columns are games.")
	h.mention(ch, "1700001303.000100", root, "alert me here when games is above 9,000, checked every hour")
	confirm := h.answerIn(ch, root, "Shall I save it?")
	assert.Contains(t, says(confirm), "every hour", "the recurrence, in words")
	assert.Contains(t, says(confirm), "only when games is above 9,000", "the condition, in words")
	h.mention(ch, "1700001304.000100", root, "alert me here when it is above 9,000, checked every hour")
	unnamed := h.slack.WaitMessage(t, "a second confirmation", func(m fakeslack.Message) bool {
		return m.Channel == ch && m.ThreadTS == root && m.TS != confirm.TS && strings.Contains(says(m), "Shall I save it?")
	})
	assert.Contains(t, says(unnamed), "only when games is above 9,000", "no column named: the answer's one number, named")
	h.send(fakeslack.Envelope{Type: "interactive", Payload: h.slack.BlockAction(user, ch, confirm.TS, root,
		nodes.ActionScheduleSave, buttonValue(t, confirm, nodes.ActionScheduleSave))})
	h.ephemeralTo(user, "Saved: I'll post")
	id := buttonValue(t, confirm, nodes.ActionScheduleSave)

	clk.Set(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	require.Equal(t, 1, tick(t, sc))
	assert.Empty(t, h.posts(ch, "🔔"), "8,160 is not above 9,000: nothing posted")

	// The team lowers the bar: the next run finds the condition holds.
	_, err := h.bot.DB().Pool().Exec(context.Background(), `UPDATE schedules SET cond_threshold = 8000 WHERE id = $1`, id)
	require.NoError(t, err)
	clk.Set(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	require.Equal(t, 1, tick(t, sc))
	alerts := h.posts(ch, "🔔")
	require.Len(t, alerts, 1)
	assert.Contains(t, says(alerts[0]), "games is 8,160 (was 8,160): when games is above 8,000.")
	assert.Equal(t, root, alerts[0].ThreadTS, "“here” is the thread")
	assert.Equal(t, calls, h.modelCalls(), "no model call")

	runs, err := h.bot.DB().ScheduleRuns(context.Background(), id, 10)
	require.NoError(t, err)
	require.Len(t, runs, 2)
	assert.Equal(t, store.RunPosted, runs[0].Outcome)
	assert.Equal(t, store.RunQuiet, runs[1].Outcome)
	require.NotNil(t, runs[1].Value)
	assert.Equal(t, 8160.0, *runs[1].Value)
}

// dyingAfterPost stands for a replica that dies right after Slack took its
// post, before it could record it.
type dyingAfterPost struct {
	*App
	posted chan struct{}
}

func (d dyingAfterPost) Deliver(ctx context.Context, sch bot.Schedule, r bot.Reply) (bot.Delivered, error) {
	if _, err := d.App.Deliver(ctx, sch, r); err != nil {
		return bot.Delivered{}, err
	}
	close(d.posted)
	<-ctx.Done()
	return bot.Delivered{}, ctx.Err()
}

// A replica that dies between Slack taking its post and recording it: the
// replica taking the run over finds the post by its metadata (the
// channel's history, the thread's replies) and does not post it again.
func TestTakeoverFindsAPostItsRunnerMadeBeforeDying(t *testing.T) {
	t.Parallel()
	for _, dest := range []string{"channel", "thread"} {
		t.Run(dest, func(t *testing.T) {
			t.Parallel()
			due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
			clk := bottest.NewClock(due)
			state := ownState(t)
			h1, _ := scheduled(t, clk, "replica-1", state)
			dying := scheduler.New(h1.bot, scheduler.Options{Now: clk.Now, Runner: "dying", Lease: time.Minute})
			d := dyingAfterPost{App: h1.app, posted: make(chan struct{})}
			dying.Handle(nodes.SurfaceSlack, d)
			_, survivor := scheduled(t, clk, "survivor", sharing(h1.slack), state)
			ch, root := channelID("CPOSTED"), "1700001901.000100"
			answered(t, h1, ch, root)
			s := storedSchedules(t, h1, threadID(ch, root), ch, due, 1, func(s *store.Schedule) {
				if dest == "thread" {
					s.DestKind, s.DestThread = "thread", threadID(ch, root)
				}
			})[0]

			ctx, kill := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = dying.Tick(ctx)
			}()
			select {
			case <-d.posted:
			case <-time.After(fakeslack.WaitTimeout):
				t.Fatal("the dying runner never posted the run")
			}
			kill()
			<-done

			clk.Set(due.Add(90 * time.Second))
			require.Equal(t, 1, tick(t, survivor))
			posts := h1.posts(ch, s.Question)
			assert.Len(t, posts, 1, "posted once")
			runs, err := h1.bot.DB().ScheduleRuns(context.Background(), s.ID, 10)
			require.NoError(t, err)
			require.Len(t, runs, 2)
			assert.Equal(t, store.RunPosted, runs[0].Outcome, "the survivor records the dead runner's post")
			assert.Equal(t, posts[0].TS, runs[0].PostedTS)
			assert.Equal(t, store.RunAbandoned, runs[1].Outcome)
			got, err := h1.bot.DB().ScheduleByID(context.Background(), s.ID)
			require.NoError(t, err)
			assert.Equal(t, due.Add(24*time.Hour), got.NextRunAt.UTC(), "and moves on to the next run")
		})
	}
}

// A replica that dies between Slack taking a DM schedule's post and
// recording it (docs/schedules.md): the replica taking the run over looks
// for the post in the DM. For the schedule's very first run it learns the
// DM's channel from conversations.open (scope im:write) and finds the post
// there; without the scope it cannot tell, and posts the run again (twice
// rather than never). A later run's DM is the one its earlier runs went
// to: Slack is not asked, scope or none.
func TestTakeoverFindsADirectMessagePost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		imWrite bool
		// earlier has a first run posted before the one the runner dies in.
		earlier bool
		// wantPosts are the DM's posts of the run that was taken over.
		wantPosts int
		wantOpen  int
	}{
		{name: "the first run, with im:write", imWrite: true, wantPosts: 1, wantOpen: 1},
		{name: "the first run, without im:write", imWrite: false, wantPosts: 2, wantOpen: 1},
		{name: "a later run, without im:write", imWrite: false, earlier: true, wantPosts: 1, wantOpen: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
			clk := bottest.NewClock(due)
			state := ownState(t)
			h1, _ := scheduled(t, clk, "replica-1", state)
			scopes := append([]string{}, fakeslack.Scopes...)
			if tt.imWrite {
				scopes = append(scopes, "im:write")
			}
			h1.slack.SetScopes(scopes...)
			dying := scheduler.New(h1.bot, scheduler.Options{Now: clk.Now, Runner: "dying", Lease: time.Minute})
			d := dyingAfterPost{App: h1.app, posted: make(chan struct{})}
			dying.Handle(nodes.SurfaceSlack, d)
			_, survivor := scheduled(t, clk, "survivor", sharing(h1.slack), state)
			ch, root := channelID("CDMPOST"), "1700002001.000100"
			answered(t, h1, ch, root)
			s := storedSchedules(t, h1, threadID(ch, root), ch, due, 1, func(s *store.Schedule) {
				s.DestKind, s.DestChannel = "dm", user
			})[0]
			// A DM schedule made in a channel posts only while its owner is
			// still in that channel (Deliver checks at each run).
			h1.slack.SetMembers(ch, user)
			dm := "D" + user // the fake's id of the app's DM with user
			if tt.earlier {
				require.Equal(t, 1, tick(t, survivor), "the first run")
				require.Len(t, h1.posts(dm, s.Question), 1, "posted in the DM")
				due = due.Add(24 * time.Hour)
				clk.Set(due)
			}
			before := len(h1.posts(dm, s.Question))

			ctx, kill := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = dying.Tick(ctx)
			}()
			select {
			case <-d.posted:
			case <-time.After(fakeslack.WaitTimeout):
				t.Fatal("the dying runner never posted the run")
			}
			kill()
			<-done

			clk.Set(due.Add(90 * time.Second))
			require.Equal(t, 1, tick(t, survivor), "the survivor takes the run over")
			posts := h1.posts(dm, s.Question)
			assert.Len(t, posts, before+tt.wantPosts, "the run's posts in the DM")
			opens := h1.slack.Calls("conversations.open")
			assert.Len(t, opens, tt.wantOpen, "conversations.open asked")
			for _, c := range opens {
				assert.Equal(t, user, c.Args.Get("users"), "for the DM with the schedule's owner")
			}
			if tt.wantPosts == 1 {
				var asked []string
				for _, c := range h1.slack.Calls("conversations.history") {
					asked = append(asked, c.Args.Get("channel"))
				}
				assert.Contains(t, asked, dm, "the DM's history is read")
			}
			runs, err := h1.bot.DB().ScheduleRuns(context.Background(), s.ID, 10)
			require.NoError(t, err)
			require.NotEmpty(t, runs)
			assert.Equal(t, store.RunPosted, runs[0].Outcome, "the taken-over run is recorded as posted")
			assert.Equal(t, posts[len(posts)-1].TS, runs[0].PostedTS, "with the post in the DM")
		})
	}
}

// README: assumptions are always shown. A scheduled run answers with the
// query of the answer it was made from, and says what that answer assumed.
func TestScheduledRunShowsItsAssumptions(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clk := bottest.NewClock(due.Add(-time.Hour))
	h, sc := scheduled(t, clk, "replica", ownState(t))
	ch, root := channelID("CASSUMES"), "1700002101.000100"
	original := answered(t, h, ch, root)
	const assumed = "A game counts in the year of its release date on the Steam store."
	require.Contains(t, strings.Join(original.BlockTexts(), "\n"), assumed, "the answer the schedule is made from")
	s := storedSchedules(t, h, threadID(ch, root), ch, due, 1)[0]

	clk.Set(due)
	require.Equal(t, 1, tick(t, sc))
	posts := h.posts(ch, s.Question)
	require.Len(t, posts, 1)
	assert.Contains(t, strings.Join(posts[0].BlockTexts(), "\n"), assumed, "the run says what its query assumes")
}
