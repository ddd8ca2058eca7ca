package slackapp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/slack-go/slack"
	"golang.org/x/sync/singleflight"
)

// cachedGroup is what usergroups.users.list told of a user group.
type cachedGroup struct {
	members []string
	// at is when members were read; zero when they never were.
	at time.Time
	// failed is when Slack last failed to list them, zero after an
	// answer: Slack is not asked again before retry() has passed.
	failed time.Time
	// failures counts the listings failed in a row while no members
	// counted (never listed, or listed groupStale ago or more), 0 after
	// an answer.
	failures int
}

// retry is how long Slack is not asked about the group after its last
// failed listing: groupRetry while the members read before still count
// (through the first hour after their reading); once none count (never
// listed, or listed an hour ago or more through a long outage), whose
// askers are refused meanwhile, groupRetryFirst, doubled after each
// failure in a row up to groupRetry.
func (c cachedGroup) retry() time.Duration {
	if _, err := c.counting(c.failed); err == nil {
		return groupRetry
	}
	d := groupRetryFirst
	for i := 1; i < c.failures && d < groupRetry; i++ {
		d *= 2
	}
	return min(d, groupRetry)
}

// groupTTL is how long a Slack user group's members are kept.
const groupTTL = 10 * time.Minute

// groupStale is how long members read before still count: past groupTTL
// while they are listed again in the background, and while Slack cannot
// be asked (an error, a timeout): long enough to ride out an outage of
// Slack's, short enough that someone taken out of the group is not
// admitted for ever.
const groupStale = time.Hour

// groupRetry is how long a user group listed before whose listing failed
// is not asked about again (a group never listed waits less at first:
// groupRetryFirst). Through an outage of Slack's, every question whose group
// has no members that count would otherwise wait up to slackLookupTimeout
// for a call that fails, and every question whose group expired would
// send a call of its own; a minute is short next to groupTTL, so Slack is
// asked again soon after it is back.
const groupRetry = time.Minute

// groupRetryFirst is how long a user group never listed (or whose members
// were read an hour ago or more) is not asked about after its first failed
// listing (at start, say): its members are unknown meanwhile, and whoever's
// access hangs on it is refused, so it is asked again sooner than
// groupRetry; the wait doubles after each failure in a row (5 s, 10 s,
// 20 s, 40 s), up to groupRetry.
const groupRetryFirst = 5 * time.Second

// errNoMembers is a user group's membership unknown: Slack did not list
// it, and nothing read before counts.
var errNoMembers = errors.New("slack did not list the user group's members, and none read before count")

// counting is what counts of c's members at now while Slack is not asked:
// the members read before, within groupStale of their reading; else
// errNoMembers.
func (c cachedGroup) counting(now time.Time) ([]string, error) {
	if c.at.IsZero() || now.Sub(c.at) >= groupStale {
		return nil, errNoMembers
	}
	return c.members, nil
}

// members returns the members of the Slack user group group
// (usergroups.users.list, scope usergroups:read), cached for groupTTL: the
// access file's groups may list them. It fails (errNoMembers) when Slack
// does not say and nothing read before counts: unknown, which the access
// file refuses on, unlike no members. Without the scope a group has none.
// Members past groupTTL but within groupStale are returned at once while
// one listing in the background reads them again: a question waits for
// Slack only for a group with no members that count, and it does so in
// its job, never before Slack is acknowledged. After a failed listing
// Slack is not asked about group for a while (cachedGroup.retry);
// members waits for Slack no longer than ctx and slackLookupTimeout
// allow.
func (p *people) members(ctx context.Context, group string) ([]string, error) {
	m, state, err := p.groupCached(group)
	switch state {
	case serveCached:
		return m, err
	case serveAndRefresh:
		p.refreshGroup(ctx, group)
		return m, nil
	}
	select {
	case r := <-p.counted(p.listing(ctx, group)):
		return r.Val.(listed).members, r.Val.(listed).err
	case <-ctx.Done():
		// The listing goes on for whoever else waits, and is kept.
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.groups[group].counting(p.now())
	}
}

// listed is a listing's result: members, or why there are none to use.
type listed struct {
	members []string
	err     error
}

// warm lists groups in the background, so that the first question whose
// access hangs on one does not wait for Slack.
func (p *people) warm(ctx context.Context, groups []string) {
	for _, g := range groups {
		if _, state, _ := p.groupCached(g); state != serveCached {
			p.refreshGroup(ctx, g)
		}
	}
}

// listing starts a listing of group's members, or joins the one under
// way, and returns the channel its result comes on.
func (p *people) listing(ctx context.Context, group string) <-chan singleflight.Result {
	// Users are asked about by their ids (U…, W…), groups under "group:":
	// the two kinds of lookup share lookups without sharing a key.
	return p.lookups.DoChan("group:"+group, func() (any, error) {
		// A listing that ended since the look above has been kept.
		if m, state, err := p.groupCached(group); state == serveCached {
			return listed{m, err}, nil
		}
		m, err := p.listGroup(ctx, group)
		return listed{m, err}, nil
	})
}

// counted returns the result of ch on a channel of its own, counted in
// refreshes until it comes, whether or not anyone still reads it (a caller
// whose ctx ended does not): stop waits for it. Once stopping it is ch.
func (p *people) counted(ch <-chan singleflight.Result) <-chan singleflight.Result {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return ch
	}
	p.refreshes.Add(1)
	out := make(chan singleflight.Result, 1)
	go func() {
		defer p.refreshes.Done()
		out <- <-ch
	}()
	return out
}

// refreshGroup lists group's members again in the background; whoever
// asked for them does not wait. The listing ends within
// slackLookupTimeout, and Run waits for it at a clean stop.
func (p *people) refreshGroup(ctx context.Context, group string) {
	p.mu.Lock()
	stopped := p.stopped
	p.mu.Unlock()
	if !stopped { // stopping, the members read before serve until the end
		p.counted(p.listing(ctx, group))
	}
}

// wait returns once the listings under way have ended.
func (p *people) wait() { p.refreshes.Wait() }

// stop starts no more listings in the background and waits for every
// listing under way, waited on or not: a clean stop leaves none behind
// that started before it. A question still coming in (over HTTP, say)
// may start one after, which is not waited for; it ends within
// slackLookupTimeout.
func (p *people) stop() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
	p.wait()
}

// groupState says whether a user group's cached members may be used, and
// whether Slack is to be asked for them.
type groupState int

const (
	// serveCached: use what is cached, Slack is not asked.
	serveCached groupState = iota
	// serveAndRefresh: use what is cached and list the members again in the
	// background.
	serveAndRefresh
	// waitForListing: nothing cached counts; wait for Slack.
	waitForListing
)

// groupCached returns group's members and what to do about them. Slack
// is not asked without the scope (no members), within groupTTL of their
// reading, or within retry() of a failure (what counts then). Up to
// groupStale after their reading the members count while they are listed
// again; after that, or when they never were read, there are none to use.
func (p *people) groupCached(group string) ([]string, groupState, error) {
	p.mu.Lock()
	c := p.groups[group]
	off := p.noGroups
	p.mu.Unlock()
	now := p.now()
	switch {
	case off:
		// Without the scope a group has no members, the ones read before
		// it went included: they could never be taken away.
		return nil, serveCached, nil
	case !c.at.IsZero() && now.Sub(c.at) < groupTTL:
		return c.members, serveCached, nil
	case !c.failed.IsZero() && now.Sub(c.failed) < c.retry():
		m, err := c.counting(now)
		return m, serveCached, err
	case !c.at.IsZero() && now.Sub(c.at) < groupStale:
		return c.members, serveAndRefresh, nil
	}
	return nil, waitForListing, nil
}

// listGroup asks Slack for group's members and keeps them, or the
// failure; it returns what counts, errNoMembers when nothing does.
func (p *people) listGroup(ctx context.Context, group string) ([]string, error) {
	// Whoever waits on this listing shares it: one caller's end must not
	// fail the others'.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.callTimeout())
	defer cancel()
	users, err := p.api.GetUserGroupMembersContext(ctx, group)
	p.mu.Lock()
	defer p.mu.Unlock()
	c, now := p.groups[group], p.now()
	switch {
	case err == nil:
		p.groups[group] = cachedGroup{members: users, at: now}
		return users, nil
	case isScopeError(err):
		p.log("slack: usergroups.users.list refused; Slack user groups in ACCESS_FILE have no members (add the usergroups:read scope and reinstall)", "err", err)
		p.noGroups = true
		return nil, nil
	case isNoSuchGroup(err):
		// Not an outage: the group does not exist (a mistyped id, a group
		// deleted), so it has no members; kept, like an answer, groupTTL.
		p.log("slack: no user group has this id; it has no members (check the id in ACCESS_FILE)", "group", group, "err", err)
		p.groups[group] = cachedGroup{at: now}
		return nil, nil
	}
	c.failed = now
	m, known := c.counting(now)
	if known != nil {
		c.failures++
	}
	p.groups[group] = c
	if known == nil {
		p.log("slack: list a user group's members; the members read before still count", "group", group, "retry_in", c.retry(), "err", err)
		return m, nil
	}
	p.log("slack: list a user group's members; whoever's access hangs on the group is refused until Slack answers", "group", group, "retry_in", c.retry(), "err", err)
	return nil, fmt.Errorf("%w: %w", known, err)
}

// isNoSuchGroup reports Slack saying no user group has the id asked about
// (usergroups.users.list: no_such_subteam).
func isNoSuchGroup(err error) bool {
	var se slack.SlackErrorResponse
	return errors.As(err, &se) && se.Err == "no_such_subteam"
}
