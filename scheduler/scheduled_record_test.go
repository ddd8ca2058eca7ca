package scheduler_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/pgpool"
	"github.com/analyticsbot/analyticsbot/scheduler"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// sql2018 is the stored query of the schedules the tests run.
const sql2018 = "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018"

// testDB is a database with the demo data loaded, shared by the tests of
// one function.
func testDB(t *testing.T) string {
	t.Helper()
	db, url := storetest.NewWithURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, bottest.LoadDemo(ctx, db), "load the demo data")
	return url
}

// cuttingDeliverer stands for Slack refusing a post at the moment the
// bot's database goes away: its first Deliver calls cut and fails; later
// ones post.
type cuttingDeliverer struct {
	cut   func()
	mu    sync.Mutex
	calls int
}

func (d *cuttingDeliverer) Deliver(_ context.Context, sch store.Schedule, _ bot.Reply) (bot.Delivered, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls++
	if d.calls == 1 {
		d.cut()
		return bot.Delivered{}, errors.New("slack: service unavailable")
	}
	return bot.Delivered{ThreadID: sch.DestThread, Channel: sch.DestChannel, TS: "1700000000.000901"}, nil
}

func (d *cuttingDeliverer) Tell(context.Context, store.Schedule, answer.Text) error { return nil }

// TestScheduleRecordRetried: a scheduled run fails and its end cannot be
// recorded, as the bot's database refuses for a moment (a proxy the test
// stops and starts). The runner records it once the database is back,
// keeping the run its own, so the retry it planned a minute later happens
// then, as its second attempt; no attempt is recorded as abandoned, and
// the log never says the runner stopped. A runner that loses the database
// for a whole lease has the run taken over: the taker logs that it takes
// over a lapsed claim, and the runner, once the database is back, that
// another took the run over, recording nothing over the taker's attempt. A
// runner stopped before the database is back says it did not record the
// run.
func TestScheduleRecordRetried(t *testing.T) {
	dbURL := testDB(t)
	t.Run("the database comes back", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		f := failRecording(t, dbURL, ctx)
		f.p.Restart(t)
		r := <-f.done
		require.NoError(t, r.err)
		require.Equal(t, 1, r.n, "the run claimed")

		got, err := f.b.DB().ScheduleByID(ctx, f.sch.ID)
		require.NoError(t, err)
		assert.Empty(t, got.ClaimedBy, "the claim released once the end was recorded")
		require.NotNil(t, got.NextRunAt)
		assert.Equal(t, f.sch.NextRunAt.UTC().Add(time.Second+time.Minute), got.NextRunAt.UTC(), "the retry planned a minute later")

		f.clk.Set(got.NextRunAt.Add(time.Second))
		n, err := f.sc.Tick(ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, n, "the planned retry runs at its time")
		assert.Equal(t, 2, f.slack.calls, "and posts")

		runs, err := f.b.DB().ScheduleRuns(ctx, f.sch.ID, 10)
		require.NoError(t, err)
		var outcomes []string
		for _, r := range runs {
			outcomes = append(outcomes, r.Outcome+" by "+r.Runner)
		}
		assert.Equal(t, []string{store.RunPosted + " by alive", store.RunFailed + " by alive"}, outcomes,
			"the retry, then the failed attempt; none abandoned")
		for _, m := range f.watch.Messages() {
			assert.NotContains(t, m, "taking over", "the runner was alive throughout")
		}
	})

	t.Run("another replica takes the run over meanwhile", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		// A lease of 300ms on the test's clock; the tries at recording,
		// 10ms doubling to 100ms, are real time.
		f := failRecording(t, dbURL, ctx, func(o *scheduler.Options) { o.Lease = 300 * time.Millisecond })

		// The runner cannot renew its claim: once its lease has passed on
		// the clock, a replica that reaches the database takes the run over.
		watch := bottest.NewLogWatch("taking over")
		taker := bottest.Start(t, bottest.Config(t, dbURL, ""), slog.New(watch))
		taker.SetClock(f.clk.Now)
		tsc := scheduler.New(taker, scheduler.Options{Now: f.clk.Now, Runner: "taker", Lease: 2 * time.Minute,
			RetryDelay: time.Minute, Only: f.sch.ID})
		slack := &slackStandIn{}
		tsc.Handle(nodes.SurfaceSlack, slack)
		f.clk.Set(f.sch.NextRunAt.Add(time.Minute))
		n, err := tsc.Tick(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n, "the lapsed claim is taken over")
		assert.Len(t, slack.posts, 1, "and the run posted")
		assert.Contains(t, watch.Messages(),
			"taking over a run whose claim lapsed: its runner stopped or lost the database for longer than the lease",
			"the taker cannot tell a runner that stopped from one that lost the database, and says so")

		// The database is back: the runner that lost it says another took
		// the run over, and records nothing over the taker's attempt.
		f.p.Restart(t)
		r := <-f.done
		require.NoError(t, r.err)
		assert.Contains(t, f.watch.Messages(),
			"scheduled run not recorded: another runner took it over while its end could not be recorded")
		runs, err := taker.DB().ScheduleRuns(ctx, f.sch.ID, 10)
		require.NoError(t, err)
		var outcomes []string
		for _, r := range runs {
			outcomes = append(outcomes, fmt.Sprintf("%d %s by %s", r.Attempt, r.Outcome, r.Runner))
		}
		assert.Equal(t, []string{"2 " + store.RunPosted + " by taker", "1 " + store.RunAbandoned + " by alive"}, outcomes,
			"the taker's attempt as it recorded it; the lost runner's, abandoned, not failed")
		got, err := taker.DB().ScheduleByID(ctx, f.sch.ID)
		require.NoError(t, err)
		assert.Empty(t, got.ClaimedBy, "no claim left")
		assert.Equal(t, store.RunPosted, got.LastOutcome, "the schedule's last outcome is the taker's")
		require.NotNil(t, got.NextRunAt)
		assert.Equal(t, f.sch.NextRunAt.UTC().Add(24*time.Hour), got.NextRunAt.UTC(),
			"the next regular run, not the retry the lost runner planned")
	})

	t.Run("the database hangs", func(t *testing.T) {
		// docs/schedules.md: each try is given up after 5 s, and a
		// database that answers nothing holds it the 2 s more its
		// connection takes to be cut (pgpool.Overrun): 7 s, no sooner (a
		// deadline never ends early), and well before a round trip's own
		// deadline (DATABASE_TIMEOUT, 10 s, + 2 s) would end it. The runner
		// then tries again. The try is timed between the log lines before
		// and after it.
		t.Parallel()
		ctx := context.Background()
		f := loseRecording(t, dbURL, ctx, (*storetest.Proxy).BlackHole)
		var began, ended time.Time
		for _, r := range f.watch.Records() {
			switch r.Message {
			case "scheduled run failed: trying again":
				began = r.Time
			case "record the scheduled run: trying again":
				if ended.IsZero() {
					ended = r.Time
				}
			}
		}
		require.False(t, began.IsZero(), "the run failed and its end is being recorded: %q", f.watch.Messages())
		took := ended.Sub(began)
		assert.GreaterOrEqual(t, took, 5*time.Second+pgpool.Overrun, "the try waited its 5 seconds, and the cut its 2")
		assert.Less(t, took, f.b.Config().DatabaseTimeout, "ended by its own bound, not a round trip's")

		f.p.Restore()
		r := <-f.done
		require.NoError(t, r.err)
		got, err := f.b.DB().ScheduleByID(ctx, f.sch.ID)
		require.NoError(t, err)
		assert.Empty(t, got.ClaimedBy, "recorded once the database answers again")
		assert.Equal(t, store.RunFailed, got.LastOutcome)
	})

	t.Run("the process stops first", func(t *testing.T) {
		t.Parallel()
		ctx, stop := context.WithCancel(context.Background())
		f := failRecording(t, dbURL, ctx)
		stop()
		r := <-f.done
		require.NoError(t, r.err)
		assert.Contains(t, f.watch.Messages(),
			"scheduled run not recorded: the process is stopping; its claim lapses and another runner takes the run over")
	})
}

// recording is a scheduled run whose end the bot's database refuses to
// record, with a Tick under way that tries again.
type recording struct {
	b     *bot.Bot
	p     *storetest.Proxy
	watch *bottest.LogWatch
	sc    *scheduler.Scheduler
	sch   store.Schedule
	clk   *bottest.Clock
	slack *cuttingDeliverer
	done  chan tickResult
}

type tickResult struct {
	n   int
	err error
}

// failRecording runs a schedule of a bot whose database, behind a proxy,
// goes away as the run's post fails, and returns once the scheduler has
// tried to record the run's end and failed; the Tick runs on under ctx.
// adjust changes the scheduler's options.
func failRecording(t *testing.T, dbURL string, ctx context.Context, adjust ...func(*scheduler.Options)) *recording {
	t.Helper()
	return loseRecording(t, dbURL, ctx, (*storetest.Proxy).Stop, adjust...)
}

// loseRecording is failRecording with the database lost as cut does it:
// refused (Stop) or hanging (BlackHole).
func loseRecording(t *testing.T, dbURL string, ctx context.Context, cut func(*storetest.Proxy), adjust ...func(*scheduler.Options)) *recording {
	t.Helper()
	p := storetest.NewProxy(t, dbURL)
	watch := bottest.NewLogWatch("record the scheduled run: trying again")
	cfg := bottest.Config(t, dbURL, "")
	cfg.DatabaseURL = p.URL()
	// The bot's own database goes away; the analytics it reads stay (the
	// reader logs in around the proxy), so the planned retry can post.
	reader, err := url.Parse(dbURL)
	require.NoError(t, err)
	reader.User = url.User(pgwarehouse.DefaultReaderRole)
	cfg.Postgres.ReaderURL = reader.String()
	b := bottest.Start(t, cfg, slog.New(watch))
	thread := bot.NewThreadID()
	query := warehouse.Query{Backend: b.Backend().Name(), Text: sql2018}

	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	sch, err := b.DB().AddSchedule(context.Background(), store.Schedule{State: store.ScheduleActive, OwnerID: "U1",
		Surface: nodes.SurfaceSlack, SourceThread: thread, SourceChannel: "C1", Query: query, QueryID: warehouse.IDOf(b.Backend(), query),
		Question: "Games of 2018, retried", Spec: "0 9 * * *", TimeZone: "UTC", DestKind: "channel", DestChannel: "C1",
		Format: "answer", NextRunAt: &due})
	require.NoError(t, err)
	f := &recording{b: b, p: p, watch: watch, sch: sch, clk: bottest.NewClock(due.Add(time.Second)),
		slack: &cuttingDeliverer{cut: func() { cut(p) }}, done: make(chan tickResult, 1)}
	b.SetClock(f.clk.Now)
	o := scheduler.Options{Now: f.clk.Now, Runner: "alive", Lease: 2 * time.Minute, RetryDelay: time.Minute,
		RecordDelay: 10 * time.Millisecond, Only: sch.ID}
	for _, f := range adjust {
		f(&o)
	}
	f.sc = scheduler.New(b, o)
	f.sc.Handle(nodes.SurfaceSlack, f.slack)
	go func() {
		n, err := f.sc.Tick(ctx)
		f.done <- tickResult{n, err}
	}()
	select {
	case <-watch.Seen():
	case r := <-f.done:
		t.Fatalf("the run's end was not recorded and not tried again: Tick returned %d, %v; the log said %q", r.n, r.err, watch.Messages())
	}
	return f
}
