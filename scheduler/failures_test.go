package scheduler_test

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/scheduler"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// slackStandIn stands for Slack: it keeps what each run posted (and the
// CSV it carried, read while the file still exists) and what the owners
// were told; with refuse set, every post fails as Slack being down does,
// a failure that may pass; with panics set, every post panics, as a bug
// in rendering or posting would.
type slackStandIn struct {
	refuse bool
	panics bool
	mu     sync.Mutex
	posts  []bot.Reply
	csvs   []string
	tells  []string      // the notes to the owners, as plain text
	notes  []answer.Text // the same, as the spans Slack renders
}

func (d *slackStandIn) Deliver(_ context.Context, sch store.Schedule, r bot.Reply) (bot.Delivered, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.refuse {
		return bot.Delivered{}, errors.New("chat.postMessage: service_unavailable")
	}
	if d.panics {
		var blocks map[string]int
		blocks["section"]++ // assignment to entry in nil map
	}
	d.posts = append(d.posts, r)
	if r.File != nil {
		f, _, err := r.File.Open()
		if err != nil {
			return bot.Delivered{}, err
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		if err != nil {
			return bot.Delivered{}, err
		}
		d.csvs = append(d.csvs, string(b))
	}
	return bot.Delivered{ThreadID: sch.DestThread, Channel: sch.DestChannel, TS: "1700000000.000902"}, nil
}

func (d *slackStandIn) Tell(_ context.Context, _ store.Schedule, text answer.Text) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.tells = append(d.tells, text.Plain())
	d.notes = append(d.notes, text)
	return nil
}

// runsSetup is a bot on the package's demo data with one active Slack
// schedule due at due, and a scheduler of that schedule alone on a clock
// the test moves.
type runsSetup struct {
	b     *bot.Bot
	sch   store.Schedule
	clk   *bottest.Clock
	sc    *scheduler.Scheduler
	slack *slackStandIn
}

func newRuns(t *testing.T, b *bot.Bot, due time.Time, o scheduler.Options, adjust func(*store.Schedule)) *runsSetup {
	t.Helper()
	query := warehouse.Query{Backend: b.Backend().Name(), Text: sql2018}
	s := store.Schedule{State: store.ScheduleActive, OwnerID: "U1", Surface: nodes.SurfaceSlack, SourceThread: bot.NewThreadID(),
		SourceChannel: "C1", Question: "Games of 2018", Spec: "0 9 * * *", TimeZone: "UTC", DestKind: "channel",
		DestChannel: "C1", Format: "answer", NextRunAt: &due}
	adjust(&s)
	if s.Query.Text != "" {
		query.Text = s.Query.Text
	}
	s.Query, s.QueryID = query, warehouse.IDOf(b.Backend(), query)
	sch, err := b.DB().AddSchedule(context.Background(), s)
	require.NoError(t, err)
	r := &runsSetup{b: b, sch: sch, clk: bottest.NewClock(due.Add(time.Second)), slack: &slackStandIn{}}
	b.SetClock(r.clk.Now)
	o.Now, o.Only, o.Runner = r.clk.Now, sch.ID, "runs-test"
	r.sc = scheduler.New(b, o)
	r.sc.Handle(nodes.SurfaceSlack, r.slack)
	return r
}

// tick runs one poll at the clock's time.
func (r *runsSetup) tick(t *testing.T) int {
	t.Helper()
	n, err := r.sc.Tick(context.Background())
	require.NoError(t, err)
	return n
}

// runs are the attempts of the schedule, oldest first, as "outcome kind".
func (r *runsSetup) runs(t *testing.T) []string {
	t.Helper()
	list, err := r.b.DB().ScheduleRuns(context.Background(), r.sch.ID, 10)
	require.NoError(t, err)
	var out []string
	for i := len(list) - 1; i >= 0; i-- {
		out = append(out, list[i].Outcome+" "+list[i].ErrorKind)
	}
	return out
}

// docs/schedules.md, "When runs fail": a run that fails in a way that may
// pass is tried again, up to SCHEDULE_RETRIES more times and never past
// the next regular run; a query that no longer runs on the data is not
// tried again. Either way the owner is told why and when it runs next.
func TestFailedRunsRetries(t *testing.T) {
	dbURL := testDB(t)
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

	t.Run("a query that no longer runs on the data is tried once", func(t *testing.T) {
		t.Parallel()
		b := bottest.New(t, dbURL, "")
		// A column renamed since the schedule was saved.
		r := newRuns(t, b, due, scheduler.Options{RetryDelay: time.Minute, Retries: 2}, func(s *store.Schedule) {
			s.Query.Text = "SELECT count(*) AS games FROM analytics.apps WHERE year_of_release = 2018"
		})
		require.Equal(t, 1, r.tick(t))
		assert.Equal(t, []string{store.RunFailed + " " + string(nodes.ErrInvalidQuery)}, r.runs(t), "one attempt")
		got, err := b.DB().ScheduleByID(context.Background(), r.sch.ID)
		require.NoError(t, err)
		require.NotNil(t, got.NextRunAt)
		assert.Equal(t, due.Add(24*time.Hour), got.NextRunAt.UTC(), "no retry planned: the next regular run")
		for _, at := range []time.Duration{time.Minute, 3 * time.Minute} { // where retries would be
			r.clk.Set(due.Add(at + time.Second))
			assert.Zero(t, r.tick(t), "no attempt at +%s", at)
		}
		require.Len(t, r.slack.tells, 1, "the owner is told at once")
		assert.Equal(t, "I couldn't run your schedule “Games of 2018” that was due Monday 30 November at 09:00 "+
			"(the query no longer runs on the data as it is now). I'll try again at the next time, Tuesday 1 December at 09:00.",
			r.slack.tells[0])
		assert.Empty(t, r.slack.posts, "nothing posted")
	})

	t.Run("retries stop before the next regular run", func(t *testing.T) {
		t.Parallel()
		b := bottest.New(t, dbURL, "")
		// Every 5 minutes, retried after 2 then 4 minutes: the second
		// retry would be at +6m, past the next run at +5m, so the owner
		// is told after two attempts, not SCHEDULE_RETRIES+1 = 3.
		r := newRuns(t, b, due, scheduler.Options{RetryDelay: 2 * time.Minute, Retries: 2}, func(s *store.Schedule) {
			s.Spec, s.Question = "*/5 * * * *", "Games of 2018, often"
		})
		r.slack.refuse = true
		require.Equal(t, 1, r.tick(t), "the first attempt")
		assert.Empty(t, r.slack.tells, "a retry is planned before the next run: nobody told yet")
		r.clk.Set(due.Add(2*time.Minute + time.Second))
		require.Equal(t, 1, r.tick(t), "the retry 2 minutes later")
		want := store.RunFailed + " delivery_failed"
		assert.Equal(t, []string{want, want}, r.runs(t))
		require.Len(t, r.slack.tells, 1, "told after the second attempt")
		assert.Equal(t, "I couldn't run your schedule “Games of 2018, often” that was due Monday 30 November at 09:00 "+
			"(I couldn't post the message, 2 tries). I'll try again at the next time, Monday 30 November at 09:05.",
			r.slack.tells[0])
		got, err := b.DB().ScheduleByID(context.Background(), r.sch.ID)
		require.NoError(t, err)
		require.NotNil(t, got.NextRunAt)
		assert.Equal(t, due.Add(5*time.Minute), got.NextRunAt.UTC(), "the next regular run, not a retry at +6m")
		r.clk.Set(due.Add(4*time.Minute + 59*time.Second))
		assert.Zero(t, r.tick(t), "no third attempt before the next run")
	})
	// A bug is no failure that may pass: the run that panicked is
	// recorded as failed, not retried, and its owner told, and the
	// process (which serves Slack, the web and MCP too) goes on.
	t.Run("a run that panics", func(t *testing.T) {
		t.Parallel()
		b := bottest.New(t, dbURL, "")
		r := newRuns(t, b, due, scheduler.Options{RetryDelay: time.Minute, Retries: 2}, func(*store.Schedule) {})
		r.slack.panics = true
		require.Equal(t, 1, r.tick(t))
		assert.Equal(t, []string{store.RunFailed + " " + string(nodes.ErrInternal)}, r.runs(t))
		require.Len(t, r.slack.tells, 1, "the owner is told")
		assert.Equal(t, "I couldn't run your schedule “Games of 2018” that was due Monday 30 November at 09:00 "+
			"(something went wrong on my side). I'll try again at the next time, Tuesday 1 December at 09:00.",
			r.slack.tells[0])
		got, err := b.DB().ScheduleByID(context.Background(), r.sch.ID)
		require.NoError(t, err)
		require.NotNil(t, got.NextRunAt)
		assert.Equal(t, due.Add(24*time.Hour), got.NextRunAt.UTC(), "no retry planned: the next regular run")
	})
}
