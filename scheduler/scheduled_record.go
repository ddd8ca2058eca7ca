package scheduler

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/analyticsbot/analyticsbot/store"
)

// recordTimeout bounds one attempt at recording a run's end, so a
// database that hangs is tried again rather than waited on.
const recordTimeout = 5 * time.Second

// keepClaim renews the claim every third of the lease until ctx ends: while
// the run is under way and until its end is recorded.
func (sc *Scheduler) keepClaim(ctx context.Context, log *slog.Logger, id string) {
	t := time.NewTicker(sc.o.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if ok, err := sc.db.ExtendClaim(ctx, id, sc.o.Runner, sc.o.Now().Add(sc.o.Lease)); err != nil || !ok {
				log.WarnContext(ctx, "renew the claim", "held", ok, "err", err)
			}
		}
	}
}

// end records how a run ended and releases its claim. A database that
// refuses the record does not lose it: it is tried again after a delay
// that doubles up to a third of the lease, while keepClaim renews the
// claim, so the run stays this runner's (no replica takes it over as
// abandoned) and the retry the end plans happens once it is recorded. It
// gives up only when the process stops (the claim then lapses and another
// replica takes the run over) or another runner took the run over while
// the database was away; the log says which.
func (sc *Scheduler) end(ctx context.Context, log *slog.Logger, end store.RunEnd) {
	end.Runner, end.At = sc.o.Runner, sc.o.Now()
	wait := newRecordBackoff(sc.o.RecordDelay, sc.o.Lease)
	for tries := 1; ; tries++ {
		err := sc.finishRun(ctx, end)
		switch {
		case err == nil:
			log.InfoContext(ctx, "scheduled run", "outcome", end.Outcome, "next", end.Next, "record_tries", tries)
			return
		case errors.Is(err, store.ErrClaimLost):
			log.WarnContext(ctx, "scheduled run not recorded: another runner took it over while its end could not be recorded",
				"outcome", end.Outcome, "record_tries", tries, "err", err)
			return
		case ctx.Err() != nil:
			log.ErrorContext(ctx, "scheduled run not recorded: the process is stopping; its claim lapses and another runner takes the run over",
				"outcome", end.Outcome, "record_tries", tries, "err", err)
			return
		}
		delay := wait.next()
		log.WarnContext(ctx, "record the scheduled run: trying again", "outcome", end.Outcome, "record_tries", tries,
			"retry_in", delay, "err", err)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done(): // stopping: one last try
		case <-t.C:
		}
		t.Stop()
	}
}

// firstRecordDelay is the first wait before recording a run's end again
// (Options.RecordDelay unset).
const firstRecordDelay = time.Second

// recordBackoff spaces the tries at recording a run's end: first, then
// doubling up to a third of the lease, so that once the database is back
// the end is recorded within about a third of a lease, as keepClaim renews
// the claim. A lease shorter than three firsts keeps the first.
type recordBackoff struct {
	delay, limit time.Duration
}

// newRecordBackoff starts the waits at first (firstRecordDelay when not
// positive) for a claim of lease.
func newRecordBackoff(first, lease time.Duration) *recordBackoff {
	if first <= 0 {
		first = firstRecordDelay
	}
	return &recordBackoff{delay: first, limit: max(lease/3, first)}
}

// next is the wait before the next try.
func (b *recordBackoff) next() time.Duration {
	d := b.delay
	b.delay = min(2*b.delay, b.limit)
	return d
}

// finishRun is one bounded attempt at recording a run's end, made even
// when the process is stopping: a run that posted must say so.
func (sc *Scheduler) finishRun(ctx context.Context, end store.RunEnd) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	return sc.db.FinishRun(ctx, end)
}

// underWay lists the schedules this scheduler is running.
func (sc *Scheduler) underWay() []string {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	out := make([]string, 0, len(sc.under))
	for id := range sc.under {
		out = append(out, id)
	}
	return out
}

func (sc *Scheduler) setUnderWay(id string, on bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if on {
		sc.under[id] = true
	} else {
		delete(sc.under, id)
	}
}
