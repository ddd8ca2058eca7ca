package slackapp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/analyticsbot/analyticsbot/bot"
)

// Why a job did not run, as the user is told.
var (
	errBusy = bot.ErrBusy

	errStopping = errors.New("the bot is shutting down")
)

// job is one piece of work for a thread: answering a message, pressing a
// button. Jobs of one thread run in the order they were submitted.
type job struct {
	// thread orders jobs: those with the same key never run at once.
	thread string
	// kind names the job in logs ("message", "button", …).
	kind string
	// prepare, optional, runs as soon as the job is next in its thread,
	// before it waits for a worker: quick checks and a first sign of life
	// for the user. false drops the job.
	prepare func(ctx context.Context) bool
	// run does the work in a worker slot. ctx is canceled only when the
	// shutdown grace period ends.
	run func(ctx context.Context)
	// report tells the user the job will not run, or stopped, and why. It
	// gets a fresh context of its own.
	report func(ctx context.Context, why error)
}

// dispatcher runs jobs through a bounded pool of workers, one thread at a
// time: a thread with queued jobs has one runner goroutine that waits for
// a worker slot before each job, so a busy thread cannot starve the others
// for longer than one job and never runs two jobs at once.
type dispatcher struct {
	// turns bounds the jobs running at once, and how long one waits.
	turns *bot.Turns
	limit int
	log   *slog.Logger

	// workCtx is the context jobs run in; cancelWork ends it when the
	// shutdown grace period is over.
	workCtx    context.Context
	cancelWork context.CancelFunc

	mu      sync.Mutex
	queues  map[string][]job // waiting jobs; a key is present while its runner lives
	waiting int
	closed  bool
	runners sync.WaitGroup
}

func newDispatcher(turns *bot.Turns, limit int, log *slog.Logger) *dispatcher {
	ctx, cancel := context.WithCancel(context.Background())
	return &dispatcher{
		turns: turns, limit: limit, log: log,
		workCtx: ctx, cancelWork: cancel, queues: map[string][]job{},
	}
}

// submit queues j behind the earlier jobs of its thread. It never blocks;
// it fails with errBusy when the queue is full and errStopping after
// shutdown began, and the caller tells the user.
func (d *dispatcher) submit(j job) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errStopping
	}
	if d.waiting >= d.limit {
		return errBusy
	}
	q, running := d.queues[j.thread]
	d.queues[j.thread] = append(q, j)
	d.waiting++
	if !running {
		d.runners.Add(1)
		go d.runThread(j.thread)
	}
	return nil
}

// runThread runs the jobs of one thread until its queue is empty.
func (d *dispatcher) runThread(thread string) {
	defer d.runners.Done()
	for {
		j, ok := d.next(thread)
		if !ok {
			return
		}
		if j.prepare != nil && d.workCtx.Err() == nil && !d.prepareJob(j) {
			d.started()
			continue
		}
		release, err := d.turns.Admit(d.workCtx, nil)
		if err != nil {
			// Too many waiting, waited too long, or the grace period is
			// over: the user is told which.
			d.started()
			if !errors.Is(err, errBusy) {
				err = errStopping
			}
			d.reportJob(j, err)
			continue
		}
		d.started()
		d.runJob(j)
		release()
	}
}

// next pops the thread's next job; false when the queue is empty, which
// also ends the thread's runner.
func (d *dispatcher) next(thread string) (job, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	q := d.queues[thread]
	if len(q) == 0 {
		delete(d.queues, thread)
		return job{}, false
	}
	j := q[0]
	q[0] = job{}
	d.queues[thread] = q[1:]
	return j, true
}

// started counts a job out of the waiting ones: it runs, or never will.
func (d *dispatcher) started() {
	d.mu.Lock()
	d.waiting--
	d.mu.Unlock()
}

// survive runs fn, the handling of one envelope of Slack's, and reports
// whether it returned: a panic (a bug) is logged with its stack instead
// of taking the process down (Socket Mode reads every envelope in one
// loop) and the envelope is acknowledged all the same.
func (a *App) survive(kind string, fn func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			a.log.Error("slack "+kind+" panicked", "panic", r, "stack", string(debug.Stack()))
			ok = false
		}
	}()
	fn()
	return true
}

// prepareJob runs j.prepare; a panic counts as false and is reported.
func (d *dispatcher) prepareJob(j job) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			d.log.Error("slack job panicked while preparing", "kind", j.kind, "thread", j.thread, "panic", r, "stack", string(debug.Stack()))
			d.reportJob(j, fmt.Errorf("internal error: %v", r))
			ok = false
		}
	}()
	// Shutdown must not cut a prepare in half (a progress message posted
	// but unknown, a claim taken but unanswered): it gets a context of its
	// own, bounded in time.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(d.workCtx), prepareTimeout)
	defer cancel()
	return j.prepare(ctx)
}

// prepareTimeout bounds the quick first step of a job.
const prepareTimeout = 15 * time.Second

// runJob runs j; a panic is logged with its stack and reported to the
// user instead of taking the process down.
func (d *dispatcher) runJob(j job) {
	defer func() {
		if r := recover(); r != nil {
			d.log.Error("slack job panicked", "kind", j.kind, "thread", j.thread, "panic", r, "stack", string(debug.Stack()))
			d.reportJob(j, fmt.Errorf("internal error: %v", r))
		}
	}()
	j.run(d.workCtx)
}

// reportTimeout bounds telling a user their job did not run.
const reportTimeout = 10 * time.Second

func (d *dispatcher) reportJob(j job, why error) {
	if j.report == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), reportTimeout)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			d.log.Error("slack job report panicked", "kind", j.kind, "panic", r)
		}
	}()
	j.report(ctx, why)
}

// shutdown stops taking jobs and waits for the queued and running ones.
// After grace, running jobs see their context canceled and jobs that have
// not started are reported; shutdown returns when every runner is done.
func (d *dispatcher) shutdown(grace time.Duration) {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	done := make(chan struct{})
	go func() {
		d.runners.Wait()
		close(done)
	}()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		d.log.Warn("shutdown grace period over: stopping work in flight", "grace", grace)
		d.cancelWork()
		<-done
	}
	d.cancelWork()
}
