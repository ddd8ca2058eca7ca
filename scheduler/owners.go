package scheduler

import (
	"context"
	"log/slog"

	"github.com/analyticsbot/analyticsbot/store"
)

// Owners is a Deliverer that can say who a schedule's owner is now.
// Before each run reads, the scheduler asks it, and the run reads as the
// address it gives (for row-level security), not the one saved with the
// schedule; without Owners (the web chat, the command line) the saved one
// stands.
type Owners interface {
	// Owner returns the address of sch's owner now. A *bot.Refusal says
	// they may no longer run it (the schedule stops and they are told);
	// a *bot.Undeliverable, that a channel the run depends on is gone for
	// the surface (the run fails at once, its owner told Reason); an error
	// wrapping bot.ErrMembershipUnknown, that the surface cannot tell now
	// whether they are still in it; any other error, that it cannot tell
	// who they are now (either way the run reads nothing, fails and is
	// tried again).
	Owner(ctx context.Context, sch store.Schedule) (email string, err error)
}

// ownerUnknown is the error kind of a run whose owner's surface could not
// say who they are now: nothing is read or posted.
const ownerUnknown = "owner_unknown"

// membershipUnknown is the error kind of a run whose owner's surface could
// not say whether they are still in a channel the run depends on: nothing
// is read or posted.
const membershipUnknown = "membership_unknown"

// asOwnerNow is c with its owner's address as their surface gives it now
// (Owners); c as it is for a surface that does not say. An address that
// changed is saved with the schedule, so what shows the owner's address
// (schedules list --json) shows the one runs read as; a failure to save it
// is logged and the run goes on as the owner is now.
func (sc *Scheduler) asOwnerNow(ctx context.Context, log *slog.Logger, c store.Claim) (store.Claim, error) {
	o, ok := sc.deliverers[c.Schedule.Surface].(Owners)
	if !ok {
		return c, nil
	}
	email, err := o.Owner(ctx, c.Schedule)
	if err != nil {
		return c, err
	}
	if email != "" && email != c.Schedule.OwnerEmail {
		if _, err := sc.db.SetOwnerEmail(ctx, c.Schedule.ID, email); err != nil {
			log.WarnContext(ctx, "save the owner's address as it is now", "err", err)
		}
	}
	c.Schedule.OwnerEmail = email
	return c, nil
}
