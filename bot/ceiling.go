package bot

import (
	"context"
	"errors"
	"strings"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// A shared channel's ceiling (ACCESS_FILE's channel_ceilings, package
// access): what is posted in such a channel holds only what both its
// asker's policy and the ceiling allow. The workflow decides per answer
// whether it stays within (nodes.State.Audience); here the run learns the
// ceiling, a press on a private answer finds its thread, and the audit
// names the policy the posted answer ran under.

// HasCeiling reports whether the access file caps what is posted in the
// channel: a surface then shows nothing of an answer to the channel before
// the workflow has decided who it is for (Slack streams no text there).
func (b *Bot) HasCeiling(channelID string) bool {
	return b.access != nil && b.access.Ceiling(whoOf(&nodes.State{ChannelID: channelID})) != nil
}

// ceilingWho is where s's reply is seen, for the channel's ceiling: where
// it was asked, or for a schedule's run where it posts.
func ceilingWho(s *nodes.State) access.Who {
	w := whoOf(s)
	if s.Scheduled != nil && postsPrivately(s.Scheduled.Schedule) {
		w.DM = true
	}
	return w
}

// postsPrivately reports a schedule whose runs its owner alone reads: a
// direct message, the web chat, the terminal. No ceiling applies to them.
func postsPrivately(sch store.Schedule) bool {
	return sch.DestKind == string(schedule.DestDM) || sch.Surface != nodes.SurfaceSlack
}

// scheduleAccess is what a schedule's runs may read: its owner's policy p
// for the channel it posts to, within that channel's ceiling when it has
// one over p (capped).
func (b *Bot) scheduleAccess(sch store.Schedule, p *access.Policy) (a *access.Policy, capped bool) {
	if postsPrivately(sch) {
		return p, false
	}
	if shared := b.access.Shared(access.Who{UserID: sch.OwnerID, ChannelID: policyChannel(sch)}, p); shared != nil {
		return shared, true
	}
	return p, false
}

// underCeiling caps caller's policy with the ceiling of the channel s's
// reply is seen in, when it has one over that policy: a schedule's run
// runs within it or not at all (nothing of it is for its owner alone);
// anything else is answered as the asker's policy allows and posted only
// within the ceiling (warehouse.Caller.Shared, the workflow's
// chooseAudience).
func (b *Bot) underCeiling(s *nodes.State, caller warehouse.Caller) warehouse.Caller {
	p, ok := caller.Access.(*access.Policy)
	if !ok {
		return caller
	}
	w := ceilingWho(s)
	shared := b.access.Shared(w, p)
	if shared == nil {
		return caller
	}
	s.Ceiling = b.access.Ceiling(w).Policy()
	if s.Intent == nodes.IntentScheduledRun {
		caller.Access, s.Policy = shared, shared.Policy()
		return caller
	}
	caller.Shared = shared
	return caller
}

// auditShared names, for the query log, the policy and role of a reply
// posted under the channel's ceiling: its queries ran as the policy within
// it.
func (b *Bot) auditShared(ctx context.Context, s *nodes.State) {
	shared := warehouse.CallerOf(ctx).Shared
	if shared == nil || s.Private() {
		return
	}
	s.Policy = shared.Policy()
	if rt, ok := b.backend.(warehouse.RoleTeller); ok {
		s.Role = rt.RoleFor(warehouse.SharedCaller(ctx))
	}
}

// pressedWhere finds the thread of a press on a message its presser alone
// sees, in a channel with a ceiling: their private thread
// (nodes.PrivateThread) when it holds the answer pressed, and then the
// press's reply is theirs alone too. Any other press acts in the thread it
// came from. The private thread is the presser's own: a press made up to
// name someone else's answer finds nothing.
func (b *Bot) pressedWhere(ctx context.Context, m Message, value string) (Message, bool) {
	if !m.Private || !b.HasCeiling(m.ChannelID) {
		return m, false
	}
	id, _, _ := strings.Cut(value, " ") // a preset's value is "<query id> <spec>"
	if !queryIDPattern.MatchString(id) {
		return m, false
	}
	thread := nodes.PrivateThread(m.ChannelID, m.UserID)
	if _, err := b.db.TurnByQueryID(ctx, thread, id); err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			b.log.WarnContext(ctx, "look for a private answer", "channel", m.ChannelID, "err", err)
		}
		return m, false
	}
	m.ThreadID = thread
	return m, true
}
