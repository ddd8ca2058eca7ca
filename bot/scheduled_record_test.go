package bot_test

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// logWatch keeps the messages a bot logs and tells the test when one
// holding want first appears.
type logWatch struct {
	want string
	seen chan struct{}

	mu   sync.Mutex
	recs []slog.Record
	once sync.Once
}

func newLogWatch(want string) *logWatch { return &logWatch{want: want, seen: make(chan struct{})} }

func (w *logWatch) Enabled(context.Context, slog.Level) bool { return true }
func (w *logWatch) WithAttrs([]slog.Attr) slog.Handler       { return w }
func (w *logWatch) WithGroup(string) slog.Handler            { return w }

func (w *logWatch) Handle(_ context.Context, r slog.Record) error {
	w.mu.Lock()
	w.recs = append(w.recs, r.Clone())
	w.mu.Unlock()
	if strings.Contains(r.Message, w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return nil
}

// records are the records logged so far.
func (w *logWatch) records() []slog.Record {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]slog.Record(nil), w.recs...)
}

// messages are the messages logged so far.
func (w *logWatch) messages() []string {
	var out []string
	for _, r := range w.records() {
		out = append(out, r.Message)
	}
	return out
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

func (d *cuttingDeliverer) Tell(context.Context, store.Schedule, string) error { return nil }

// testScheduleRecordRetried: a scheduled run fails and its end cannot be
// recorded, as the bot's database refuses for a moment (a proxy the test
// stops and starts). The runner records it once the database is back,
// keeping the run its own, so the retry it planned a minute later happens
// then, as its second attempt; no attempt is recorded as abandoned, and
// the log never says the runner stopped. A runner stopped before the
// database is back says it did not record the run.
func testScheduleRecordRetried(t *testing.T, e *testEnv) {
	t.Run("the database comes back", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		f := failRecording(t, e, ctx)
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
		for _, m := range f.watch.messages() {
			assert.NotContains(t, m, "taking over", "the runner was alive throughout")
		}
	})

	t.Run("the process stops first", func(t *testing.T) {
		t.Parallel()
		ctx, stop := context.WithCancel(context.Background())
		f := failRecording(t, e, ctx)
		stop()
		r := <-f.done
		require.NoError(t, r.err)
		assert.Contains(t, f.watch.messages(),
			"scheduled run not recorded: the process is stopping; its claim lapses and another runner takes the run over")
	})
}

// recording is a scheduled run whose end the bot's database refuses to
// record, with a Tick under way that tries again.
type recording struct {
	b     *bot.Bot
	p     *storetest.Proxy
	watch *logWatch
	sc    *bot.Scheduler
	sch   store.Schedule
	clk   *testClock
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
func failRecording(t *testing.T, e *testEnv, ctx context.Context) *recording {
	t.Helper()
	p := storetest.NewProxy(t, e.url)
	watch := newLogWatch("record the scheduled run: trying again")
	cfg := testConfig(t, e, script())
	cfg.DatabaseURL = p.URL()
	// The bot's own database goes away; the analytics it reads stay (the
	// reader logs in around the proxy), so the planned retry can post.
	reader, err := url.Parse(e.url)
	require.NoError(t, err)
	reader.User = url.User(pgwarehouse.DefaultReaderRole)
	cfg.ReaderURL = reader.String()
	b := bottest.Start(t, cfg, slog.New(watch))
	thread := bot.NewThreadID()
	first, _ := ask(t, b, thread, "How many games were released in 2018?")
	require.Empty(t, first.ErrorKind, "question: %s", first.ErrorDetail)
	turn, err := b.DB().MostRecentQuery(context.Background(), thread)
	require.NoError(t, err)

	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	sch, err := b.DB().AddSchedule(context.Background(), store.Schedule{State: store.ScheduleActive, OwnerID: "U1",
		Surface: nodes.SurfaceSlack, SourceThread: thread, SourceChannel: "C1", Query: turn.Query, QueryID: turn.QueryID,
		Question: "Games of 2018, retried", Spec: "0 9 * * *", TimeZone: "UTC", DestKind: "channel", DestChannel: "C1",
		Format: "answer", NextRunAt: &due})
	require.NoError(t, err)
	f := &recording{b: b, p: p, watch: watch, sch: sch, clk: &testClock{t: due.Add(time.Second)},
		slack: &cuttingDeliverer{cut: p.Stop}, done: make(chan tickResult, 1)}
	b.SetClock(f.clk.Now)
	f.sc = b.NewScheduler(bot.SchedulerOptions{Now: f.clk.Now, Runner: "alive", Lease: 2 * time.Minute, RetryDelay: time.Minute,
		RecordDelay: 10 * time.Millisecond, Only: sch.ID})
	f.sc.Handle(nodes.SurfaceSlack, f.slack)
	go func() {
		n, err := f.sc.Tick(ctx)
		f.done <- tickResult{n, err}
	}()
	select {
	case <-watch.seen:
	case r := <-f.done:
		t.Fatalf("the run's end was not recorded and not tried again: Tick returned %d, %v; the log said %q", r.n, r.err, watch.messages())
	}
	return f
}

// testClock is a time the test moves by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}
