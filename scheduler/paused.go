package scheduler

import (
	"context"
	"errors"

	"github.com/analyticsbot/analyticsbot/store"
)

// A schedule may be paused (`schedules pause`, the Pause button) while a
// run of it is under way: the run posts nothing, tells its owner nothing,
// and its end is recorded (store.RunPaused when it would have posted) so
// that its claim is released for a resume.

// pausedWhileHeld reports whether schedule id is no longer active (paused)
// while this runner still holds its claim.
func (sc *Scheduler) pausedWhileHeld(ctx context.Context, id string) bool {
	cur, err := sc.db.ScheduleByID(ctx, id)
	return err == nil && cur.State != store.ScheduleActive && cur.ClaimedBy == sc.o.Runner
}

// stillActive reports whether schedule id is still active; true when the
// database cannot say in time (a note told rather than lost).
func (sc *Scheduler) stillActive(ctx context.Context, id string) bool {
	ctx, cancel := context.WithTimeout(ctx, recordTimeout)
	defer cancel()
	cur, err := sc.db.ScheduleByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return false
	}
	return err != nil || cur.State == store.ScheduleActive
}
