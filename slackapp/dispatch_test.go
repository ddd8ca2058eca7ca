package slackapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
)

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestDispatcherKeepsThreadOrderAndBoundsWorkers(t *testing.T) {
	t.Parallel()
	const workers, threads, perThread = 3, 12, 5
	d := newDispatcher(bot.NewTurns(workers, 0, 0), 1000, quietLog())

	var mu sync.Mutex
	got := map[string][]int{}
	running, peak := 0, 0
	var wg sync.WaitGroup
	for i := range perThread {
		for th := range threads {
			wg.Add(1)
			thread := fmt.Sprintf("C1:%d", th)
			require.NoError(t, d.submit(job{thread: thread, kind: "test", run: func(context.Context) {
				defer wg.Done()
				mu.Lock()
				running++
				peak = max(peak, running)
				got[thread] = append(got[thread], i)
				mu.Unlock()
				// Yield so that jobs of other threads overlap with this one.
				for range 100 {
					runtime.Gosched()
				}
				mu.Lock()
				running--
				mu.Unlock()
			}}))
		}
	}
	wg.Wait()
	d.shutdown(time.Minute)
	for th := range threads {
		assert.Equal(t, []int{0, 1, 2, 3, 4}, got[fmt.Sprintf("C1:%d", th)], "jobs of thread %d ran out of order", th)
	}
	assert.LessOrEqual(t, peak, workers, "never more jobs at once than workers")
}

func TestDispatcherRefusesBeyondTheQueueLimit(t *testing.T) {
	t.Parallel()
	d := newDispatcher(bot.NewTurns(1, 0, 0), 2, quietLog())
	release := make(chan struct{})
	started := make(chan struct{})
	require.NoError(t, d.submit(job{thread: "a", run: func(context.Context) { close(started); <-release }}))
	<-started // the running job no longer counts as waiting
	require.NoError(t, d.submit(job{thread: "a", run: func(context.Context) {}}))
	require.NoError(t, d.submit(job{thread: "b", run: func(context.Context) {}}))
	err := d.submit(job{thread: "c", run: func(context.Context) {}})
	assert.ErrorIs(t, err, errBusy, "a third waiting job is refused")
	close(release)
	d.shutdown(time.Minute)
	assert.ErrorIs(t, d.submit(job{thread: "d"}), errStopping, "no jobs after shutdown")
}

func TestDispatcherShutdownFinishesOrReportsWork(t *testing.T) {
	t.Parallel()
	// README: SLACK_SHUTDOWN_GRACE at 0 or below gives work in flight no
	// grace.
	for _, grace := range []time.Duration{0, -time.Second} {
		t.Run(grace.String(), func(t *testing.T) {
			t.Parallel()
			d := newDispatcher(bot.NewTurns(1, 0, 0), 10, quietLog())
			started := make(chan struct{})
			var mu sync.Mutex
			var reported []string
			var runErr error
			report := func(name string) func(context.Context, error) {
				return func(_ context.Context, why error) {
					mu.Lock()
					defer mu.Unlock()
					reported = append(reported, name+": "+why.Error())
				}
			}
			// The running job only ends when its context is canceled, as a stuck
			// model call would.
			require.NoError(t, d.submit(job{thread: "a", report: report("running"), run: func(ctx context.Context) {
				close(started)
				<-ctx.Done()
				mu.Lock()
				runErr = ctx.Err()
				mu.Unlock()
			}}))
			<-started
			require.NoError(t, d.submit(job{thread: "b", report: report("waiting-b"), run: func(context.Context) { t.Error("a waiting job ran after the grace period") }}))
			require.NoError(t, d.submit(job{thread: "a", report: report("waiting-a"), run: func(context.Context) { t.Error("a waiting job ran after the grace period") }}))

			d.shutdown(grace)
			assert.ErrorIs(t, runErr, context.Canceled, "the running job's context is canceled after the grace period")
			assert.ElementsMatch(t, []string{"waiting-a: " + errStopping.Error(), "waiting-b: " + errStopping.Error()}, reported,
				"every job that did not run is reported, none silently dropped")
		})
	}
}

func TestDispatcherSurvivesPanics(t *testing.T) {
	t.Parallel()
	d := newDispatcher(bot.NewTurns(2, 0, 0), 10, quietLog())
	reported := make(chan error, 1)
	require.NoError(t, d.submit(job{thread: "a", run: func(context.Context) { panic("boom") },
		report: func(_ context.Context, why error) { reported <- why }}))
	ran := make(chan struct{})
	require.NoError(t, d.submit(job{thread: "a", run: func(context.Context) { close(ran) }}))
	<-ran
	why := <-reported
	assert.Contains(t, why.Error(), "boom", "the panic is reported to the user as an internal error")
	assert.False(t, errors.Is(why, errStopping))
	d.shutdown(time.Minute)
}

func TestDispatcherPreparesWhileWorkersAreBusy(t *testing.T) {
	t.Parallel()
	d := newDispatcher(bot.NewTurns(1, 0, 0), 10, quietLog())
	release, started := make(chan struct{}), make(chan struct{})
	require.NoError(t, d.submit(job{thread: "a", run: func(context.Context) { close(started); <-release }}))
	<-started

	prepared := make(chan struct{})
	ran := make(chan struct{})
	require.NoError(t, d.submit(job{thread: "b",
		prepare: func(context.Context) bool { close(prepared); return true },
		run:     func(context.Context) { close(ran) }}))
	<-prepared // while the only worker is busy with thread a
	select {
	case <-ran:
		t.Fatal("run must wait for a worker")
	default:
	}
	require.NoError(t, d.submit(job{thread: "c",
		prepare: func(context.Context) bool { return false },
		run:     func(context.Context) { t.Error("a job whose prepare said false ran") }}))
	close(release)
	<-ran
	d.shutdown(time.Minute)
}

// A job that waits for a place longer than the turns' wait limit is not
// run: its user is told the bot is busy, and the thread goes on.
func TestDispatcherWaitDeadline(t *testing.T) {
	t.Parallel()
	d := newDispatcher(bot.NewTurns(1, 10, 30*time.Millisecond), 10, quietLog())
	hold := make(chan struct{})
	running := make(chan struct{})
	require.NoError(t, d.submit(job{thread: "C1:a", kind: "test", run: func(context.Context) {
		close(running)
		<-hold
	}}))
	<-running
	reported := make(chan error, 1)
	ran := false
	require.NoError(t, d.submit(job{thread: "C1:b", kind: "test",
		run:    func(context.Context) { ran = true },
		report: func(_ context.Context, why error) { reported <- why }}))
	assert.ErrorIs(t, <-reported, errBusy, "told the bot is busy once the wait ran out")
	close(hold)
	done := make(chan struct{})
	require.NoError(t, d.submit(job{thread: "C1:b", kind: "test", run: func(context.Context) { close(done) }}))
	<-done
	d.shutdown(time.Minute)
	assert.False(t, ran, "the job that waited too long never ran")
}

// Progress updates are spaced out as more answers are under way.
func TestProgressIntervalStretchesUnderLoad(t *testing.T) {
	t.Parallel()
	turns := bot.NewTurns(100, 0, 0)
	a := &App{cfg: Config{ProgressInterval: time.Second}, disp: newDispatcher(turns, 10, quietLog())}
	var releases []func()
	for _, tt := range []struct {
		running int
		want    time.Duration
	}{{0, time.Second}, {16, time.Second}, {17, 2 * time.Second}, {32, 2 * time.Second}, {50, 4 * time.Second}} {
		for turns.Running() < tt.running {
			release, err := turns.Admit(context.Background(), nil)
			require.NoError(t, err)
			releases = append(releases, release)
		}
		assert.Equal(t, tt.want, a.progressInterval(), "%d answers under way", tt.running)
	}
	for _, r := range releases {
		r()
	}
}
