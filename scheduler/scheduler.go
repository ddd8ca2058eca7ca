// Package scheduler runs the schedules that are due, on every replica at
// once without running one twice: it claims due runs in the bot's database,
// answers each through the bot as its owner (bot.RunScheduled), posts it
// through the surface's Deliverer and records how it ended. It sits above
// package bot, which never imports it; `serve` and `schedules run-now`
// start it.
package scheduler

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/store"
)

// Deliverer posts scheduled runs on one surface (Slack; the web chat and
// the command line share the local one).
type Deliverer interface {
	// Deliver posts a run's reply (and its CSV) where the schedule says
	// and returns where it went: the thread the message is in, as the bot
	// names threads, which keeps the run as a turn so its buttons work.
	Deliver(ctx context.Context, sch store.Schedule, r bot.Reply) (bot.Delivered, error)
	// Tell sends a schedule's owner a note: it was stopped, or a run
	// failed for good. The note is spans, its question quoted as a plain
	// one (answer.Quote), never read as markup.
	Tell(ctx context.Context, sch store.Schedule, text answer.Text) error
}

// Finder is a Deliverer that can tell whether a run was posted. A
// replica taking over a run whose runner died while posting it asks
// before posting again; without a Finder it posts, and a post the dead
// runner had made shows twice.
type Finder interface {
	// Find looks for the post of sch's run due at due.
	Find(ctx context.Context, sch store.Schedule, due time.Time) (bot.Delivered, bool, error)
}

// Options change a Scheduler; zero fields take the bot's configuration.
type Options struct {
	// Runner names this replica in claims and run records; default the
	// host name and a random suffix.
	Runner string
	// Now is the clock (tests move it by hand); default time.Now.
	Now func() time.Time
	// Poll, Lease, Retries and RetryDelay default to SCHEDULE_POLL,
	// SCHEDULE_LEASE, SCHEDULE_RETRIES and SCHEDULE_RETRY_DELAY.
	Poll, Lease, RetryDelay time.Duration
	Retries                 int
	// RecordDelay is the first wait before recording a run's end again
	// when the database refused it (default 1s), doubling up to a third
	// of the lease.
	RecordDelay time.Duration
	// Batch is the most runs under way at once (default 8).
	Batch int
	// Only, when set, runs that schedule alone (`schedules run-now`).
	Only string
}

// Scheduler runs the schedules that are due: it claims them in Postgres
// (so replicas never run one twice), runs each stored query without the
// model under its owner's policy, checks an alert's condition, posts
// through the surface's Deliverer, and records the run. A failed run is
// tried again with a doubling delay; its owner is told when it fails for
// good, and when a policy change stops it.
type Scheduler struct {
	b          *bot.Bot
	db         *store.DB
	o          Options
	deliverers map[string]Deliverer
	log        *slog.Logger
	// places holds a token per run under way, up to Batch.
	places chan struct{}
	// under are the schedules whose runs this scheduler has under way,
	// their end perhaps not yet recorded: a poll never claims them again,
	// even once their lease lapsed while the database was away.
	mu    sync.Mutex
	under map[string]bool
}

// New makes a Scheduler of b's schedules. The web chat's and the command
// line's schedules post in their threads (b.LocalDeliverer); Slack's need
// Handle(nodes.SurfaceSlack, …).
func New(b *bot.Bot, o Options) *Scheduler {
	c := b.Config()
	if o.Runner == "" {
		host, _ := os.Hostname()
		var r [3]byte
		_, _ = rand.Read(r[:])
		o.Runner = host + "-" + hex.EncodeToString(r[:])
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Poll <= 0 {
		o.Poll = c.SchedulePoll
	}
	if o.Lease <= 0 {
		o.Lease = c.ScheduleLease
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = c.ScheduleRetryDelay
	}
	if o.Retries == 0 {
		o.Retries = c.ScheduleRetries
	}
	if o.Batch <= 0 {
		o.Batch = 8
	}
	local := b.LocalDeliverer()
	return &Scheduler{b: b, db: b.DB(), o: o, log: b.Logger().With("component", "scheduler", "runner", o.Runner), places: make(chan struct{}, o.Batch),
		deliverers: map[string]Deliverer{nodes.SurfaceWeb: local, nodes.SurfaceCLI: local, nodes.SurfaceMCP: local}, under: map[string]bool{}}
}

// Handle makes d post the schedules of surface.
func (sc *Scheduler) Handle(surface string, d Deliverer) { sc.deliverers[surface] = d }

// Runner names this scheduler in claims and run records.
func (sc *Scheduler) Runner() string { return sc.o.Runner }

// Run polls for due runs every Poll until ctx ends, then waits for the
// runs under way. A slow run does not hold up the next poll: each poll
// claims as many runs as there are free places (Batch).
func (sc *Scheduler) Run(ctx context.Context) {
	sc.log.InfoContext(ctx, "scheduler running", "poll", sc.o.Poll, "surfaces", sc.surfaces())
	var wg sync.WaitGroup
	defer wg.Wait()
	t := time.NewTicker(sc.o.Poll)
	defer t.Stop()
	for {
		if _, err := sc.poll(ctx, &wg); err != nil && ctx.Err() == nil {
			sc.log.WarnContext(ctx, "scheduled runs", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Tick claims the runs due now, runs them, several at once, and returns
// how many it claimed once they are done.
func (sc *Scheduler) Tick(ctx context.Context) (int, error) {
	var wg sync.WaitGroup
	n, err := sc.poll(ctx, &wg)
	wg.Wait()
	return n, err
}

// pendingFor is how long a schedule waits for its owner's Save.
const pendingFor = 24 * time.Hour

// poll deletes the pending schedules never confirmed within a day, claims
// up to the free places' worth of due runs and starts them on wg.
func (sc *Scheduler) poll(ctx context.Context, wg *sync.WaitGroup) (int, error) {
	if n, err := sc.db.DeletePendingSchedules(ctx, pendingFor); err != nil {
		sc.log.WarnContext(ctx, "delete unconfirmed schedules", "err", err)
	} else if n > 0 {
		sc.log.InfoContext(ctx, "unconfirmed schedules deleted", "count", n)
	}
	free := cap(sc.places) - len(sc.places)
	if free == 0 {
		return 0, nil
	}
	claims, err := sc.db.ClaimDueSchedules(ctx, store.ClaimRequest{Runner: sc.o.Runner, Now: sc.o.Now(), Lease: sc.o.Lease,
		Surfaces: sc.surfaces(), Limit: free, Only: sc.o.Only, Except: sc.underWay()})
	if err != nil {
		return 0, err
	}
	for _, c := range claims {
		sc.places <- struct{}{}
		sc.setUnderWay(c.Schedule.ID, true)
		wg.Go(func() {
			defer func() { <-sc.places }()
			defer sc.setUnderWay(c.Schedule.ID, false)
			sc.runClaim(ctx, c)
		})
	}
	return len(claims), nil
}

func (sc *Scheduler) surfaces() []string {
	out := make([]string, 0, len(sc.deliverers))
	for s := range sc.deliverers {
		out = append(out, s)
	}
	return out
}

// runClaim runs one claimed run to its end, renewing the claim while it
// runs and until its end is recorded. When ctx ends first (the process
// stops), the claim is left to lapse and another replica takes the run
// over.
func (sc *Scheduler) runClaim(ctx context.Context, c store.Claim) {
	sch := c.Schedule
	log := sc.log.With("schedule", sch.ID, "due", c.Due, "attempt", c.Attempt)
	if c.TookOver {
		// Its runner stopped, or could not reach the database to renew
		// the claim for a whole lease: from here the two look alike.
		log.InfoContext(ctx, "taking over a run whose claim lapsed: its runner stopped or lost the database for longer than the lease")
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	go sc.keepClaim(runCtx, log, sch.ID)
	var (
		w         schedule.When
		delivered bool // the post is made: a panic after it ends the run as posted
	)
	// Deferred after stop, so it runs first: the claim is still renewed
	// while a panic's end is recorded.
	defer func() {
		if r := recover(); r != nil {
			sc.panicked(ctx, log, c, w, delivered, r)
		}
	}()
	w, err := schedule.ParseSpec(sch.Spec, sc.b.LocationOf(sch.TimeZone))
	if err != nil {
		reason := "its times (“" + sch.Spec + "”) cannot be read"
		sc.tell(ctx, log, sch, answer.Concat(answer.Words("I stopped your schedule "), answer.Quote(sch.Question),
			answer.Words(": its times ("), answer.Quote(sch.Spec), answer.Words(") cannot be read. Make it again from the answer.")))
		sc.finish(ctx, log, store.RunEnd{Claim: c, Outcome: store.RunRefused, ErrorKind: "bad_schedule", ErrorDetail: err.Error(),
			Stop: reason}, w)
		return
	}
	if c.Posted || c.Unsure && sc.postedBefore(ctx, log, c) {
		// An earlier runner posted it and stopped before recording that.
		sc.finish(ctx, log, store.RunEnd{Claim: c, Outcome: store.RunPosted}, w)
		return
	}
	c, err = sc.asOwnerNow(runCtx, log, c)
	var (
		refusal       *bot.Refusal
		undeliverable *bot.Undeliverable
	)
	switch {
	case ctx.Err() != nil:
		return // stopping: the claim lapses and is taken over
	case errors.As(err, &refusal):
		sc.refused(ctx, log, store.RunEnd{Claim: c}, w, refusal, err)
		return
	case errors.As(err, &undeliverable):
		// The channel it depends on is gone, archived or hidden from the
		// bot: as at post time, no retry within the run can pass.
		sc.failed(ctx, log, c, w, "undeliverable", err.Error(), false, "I couldn't post it: "+undeliverable.Reason)
		return
	case errors.Is(err, bot.ErrMembershipUnknown):
		sc.failed(ctx, log, c, w, membershipUnknown, err.Error(), true, "")
		return
	case err != nil:
		sc.failed(ctx, log, c, w, ownerUnknown, err.Error(), true, "")
		return
	}
	sch = c.Schedule
	s, err := sc.b.RunScheduled(runCtx, c, sc.lateAfter())
	if ctx.Err() != nil {
		return // stopping: the claim lapses and is taken over
	}
	end := store.RunEnd{Claim: c}
	switch kind := runFailure(s, err); {
	case kind == "":
	case refusedKinds[kind]:
		end.Outcome, end.ErrorKind, end.ErrorDetail = store.RunRefused, string(kind), s.ErrorDetail
		end.Stop = s.ResponseText
		sc.tell(ctx, log, sch, answer.Concat(answer.Words("I stopped your schedule "), answer.Quote(sch.Question),
			answer.Words(fmt.Sprintf(": %s Resume it from `%s` once you may read it again.", s.ResponseText, sc.b.ScheduleCommand(sch.Surface)))))
		sc.finish(ctx, log, end, w)
		return
	default:
		detail := ""
		if s != nil {
			detail = s.ErrorDetail
		}
		if err != nil {
			detail = err.Error()
		}
		sc.failed(ctx, log, c, w, string(kind), detail, !permanentKinds[kind], "")
		return
	}
	defer s.RemoveCSVFile()
	// A run that found no number (no rows, a NULL) keeps the last one
	// found, which the next change alert compares with.
	end.Rows, end.Value, end.Previous, end.KeepValue = &s.Result.RowCount, s.AlertValue, sch.LastValue, s.AlertValue != nil
	if s.Quiet {
		end.Outcome = store.RunQuiet
		sc.finish(ctx, log, end, w)
		return
	}
	if ok, err := sc.db.StartPosting(ctx, c, sc.o.Runner, sc.o.Now()); err != nil || !ok {
		// Another replica took the run over (this one stalled past its
		// lease) and posts it, or the schedule was paused or deleted
		// while the query ran.
		log.WarnContext(ctx, "not posted: the claim passed to another runner, or the schedule is no longer active", "err", err)
		if err == nil && sc.pausedWhileHeld(ctx, sch.ID) {
			// Its end is recorded and the claim released, so that a
			// resume can run it now and no attempt is left running.
			end.Outcome = store.RunPaused
			sc.finish(ctx, log, end, w)
		}
		return
	}
	where, err := sc.deliverers[sch.Surface].Deliver(ctx, sch, bot.ScheduledReply(s))
	switch {
	case err != nil && ctx.Err() != nil:
		return // stopping mid-post: the claim lapses and is taken over
	case errors.As(err, &refusal):
		sc.refused(ctx, log, end, w, refusal, err)
		return
	case errors.As(err, &undeliverable):
		// The channel archived, gone, or without the bot: no retry
		// within the run can pass, and the owner is told why.
		sc.failed(ctx, log, c, w, "undeliverable", err.Error(), false, "I couldn't post it: "+undeliverable.Reason)
		return
	case err != nil:
		sc.failed(ctx, log, c, w, "delivery_failed", err.Error(), true, "")
		return
	}
	delivered = true
	// Recorded even when the process is stopping: the post happened.
	kept := context.WithoutCancel(ctx)
	if err := sc.db.MarkPosted(kept, c.RunID, where.Channel, where.TS); err != nil {
		log.WarnContext(ctx, "record the post", "err", err)
	}
	sc.b.KeepScheduled(kept, s, where.ThreadID)
	end.Outcome = store.RunPosted
	sc.finish(ctx, log, end, w)
}

// panicked ends a run that panicked (r) rather than take the process
// down with it, and every surface it serves: logged with its stack, and
// recorded as failed without a retry (it would panic again) and told to
// its owner, as any failure is; or as posted, when the post was made
// before the panic. When the process is stopping, or a panic comes while
// recording it (logged), the claim lapses and the run is taken over.
func (sc *Scheduler) panicked(ctx context.Context, log *slog.Logger, c store.Claim, w schedule.When, delivered bool, r any) {
	log.ErrorContext(ctx, "scheduled run panicked", "panic", r, "stack", string(debug.Stack()))
	if ctx.Err() != nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			log.ErrorContext(ctx, "recording a panicked scheduled run panicked", "panic", r)
		}
	}()
	if delivered {
		sc.finish(ctx, log, store.RunEnd{Claim: c, Outcome: store.RunPosted}, w)
		return
	}
	sc.failed(ctx, log, c, w, string(nodes.ErrInternal), fmt.Sprint("panic: ", r), false, "")
}

// refused ends a run its surface will not make for the schedule's owner
// (refusal, err): the schedule stops, and its owner is told why.
func (sc *Scheduler) refused(ctx context.Context, log *slog.Logger, end store.RunEnd, w schedule.When, refusal *bot.Refusal, err error) {
	sch := end.Claim.Schedule
	end.Outcome, end.ErrorKind, end.ErrorDetail, end.Stop = store.RunRefused, "not_allowed", err.Error(), refusal.Reason
	sc.tell(ctx, log, sch, answer.Concat(answer.Words("I stopped your schedule "), answer.Quote(sch.Question), answer.Words(": "+refusal.Reason)))
	sc.finish(ctx, log, end, w)
}

// postedBefore asks the surface whether the runner c took over from had
// posted the run before it died; when it cannot tell, the run is posted
// (a post twice rather than none).
func (sc *Scheduler) postedBefore(ctx context.Context, log *slog.Logger, c store.Claim) bool {
	f, ok := sc.deliverers[c.Schedule.Surface].(Finder)
	if !ok {
		return false
	}
	log = log.With("posting_since", c.DeliveringSince)
	where, found, err := f.Find(ctx, c.Schedule, c.Due)
	switch {
	case err != nil:
		log.WarnContext(ctx, "cannot tell whether the stopped runner posted the run: posting it", "err", err)
		return false
	case !found:
		log.InfoContext(ctx, "the stopped runner had not posted the run")
		return false
	}
	log.InfoContext(ctx, "the stopped runner had posted the run: not posting it again", "channel", where.Channel, "ts", where.TS)
	if err := sc.db.MarkPosted(ctx, c.RunID, where.Channel, where.TS); err != nil {
		log.WarnContext(ctx, "record the post", "err", err)
	}
	// The stopped runner kept no turn behind its message: run the query
	// again (no post), as its owner is now, so that the message's buttons
	// work; when the surface cannot say who that is, they do not.
	c, err = sc.asOwnerNow(ctx, log, c)
	if err != nil {
		log.WarnContext(ctx, "the run's message is kept without its result: its owner could not be confirmed", "err", err)
		return true
	}
	if s, err := sc.b.RunScheduled(ctx, c, sc.lateAfter()); err == nil && s.ErrorKind == "" && !s.Quiet {
		s.RemoveCSVFile()
		sc.b.KeepScheduled(ctx, s, where.ThreadID)
	}
	return true
}

// failed ends an attempt that failed: tried again after a doubling delay
// when the error may pass and there is time before the next regular run;
// else the run is given up, counted, and its owner told why (in why's
// words, else those of its kind), so that no run is missed silently.
func (sc *Scheduler) failed(ctx context.Context, log *slog.Logger, c store.Claim, w schedule.When, kind, detail string, transient bool, why string) {
	if why == "" {
		why = failureWords(kind, c.Attempt)
	}
	now := sc.o.Now()
	end := store.RunEnd{Claim: c, Outcome: store.RunFailed, ErrorKind: kind, ErrorDetail: detail}
	retry := now.Add(sc.o.RetryDelay << (c.Attempt - 1))
	if transient && c.Attempt <= sc.o.Retries && retry.Before(w.Next(now)) {
		end.Due, end.Next, end.Failures = c.Due, retry, c.Schedule.Failures
		log.InfoContext(ctx, "scheduled run failed: trying again", "kind", kind, "retry_at", retry)
		sc.end(ctx, log, end)
		return
	}
	next := w.Next(now)
	end.Due, end.Next, end.Failures = next, next, c.Schedule.Failures+1
	log.WarnContext(ctx, "scheduled run failed", "kind", kind, "detail", detail, "failures", end.Failures)
	text := answer.Concat(answer.Words("I couldn't run your schedule "), answer.Quote(c.Schedule.Question),
		answer.Words(fmt.Sprintf(" that was due %s (%s). I'll try again at the next time, %s.", w.Words(c.Due), why, w.Words(next))))
	if end.Failures >= maxFailedRuns {
		// A schedule that keeps failing stops, rather than telling its
		// owner so at every run.
		end.Stop = fmt.Sprintf("its last %d runs failed", end.Failures)
		text = answer.Concat(answer.Words("I stopped your schedule "), answer.Quote(c.Schedule.Question),
			answer.Words(fmt.Sprintf(": its last %d runs failed (%s). Resume it from `%s` once it can run.",
				end.Failures, why, sc.b.ScheduleCommand(c.Schedule.Surface))))
	}
	sc.tell(ctx, log, c.Schedule, text)
	sc.end(ctx, log, end)
}

// maxFailedRuns stops a schedule whose runs failed this many times in a
// row (each after its retries), each failure told to its owner.
const maxFailedRuns = 5

// finish ends a run that is done (posted, quiet, refused): the next
// regular run is the first after now, so runs missed while no replica ran
// are one run on recovery, not one each.
func (sc *Scheduler) finish(ctx context.Context, log *slog.Logger, end store.RunEnd, w schedule.When) {
	if end.Claim.Schedule.Spec != "" && w.Location != nil {
		next := w.Next(sc.o.Now())
		end.Due, end.Next = next, next
	}
	if end.Outcome == store.RunPosted || end.Outcome == store.RunQuiet {
		end.Failures = 0
	} else {
		end.Failures = end.Claim.Schedule.Failures
	}
	sc.end(ctx, log, end)
}

// tell sends the owner a note; a note that cannot be sent is logged. A
// schedule paused or deleted while its run was under way says nothing:
// its owner is not told it runs again at its next time, or was stopped.
func (sc *Scheduler) tell(ctx context.Context, log *slog.Logger, sch store.Schedule, text answer.Text) {
	if !sc.stillActive(ctx, sch.ID) {
		log.InfoContext(ctx, "the schedule was paused or deleted while its run was under way: its owner is not told")
		return
	}
	if err := sc.deliverers[sch.Surface].Tell(ctx, sch, text); err != nil {
		log.ErrorContext(ctx, "tell the schedule's owner", "owner", sch.OwnerID, "err", err)
	}
}

// lateAfter is how long after its time a run says it is late: a run a
// poll or two behind is not.
func (sc *Scheduler) lateAfter() time.Duration { return max(5*time.Minute, 3*sc.o.Poll) }
