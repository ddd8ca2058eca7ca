package slackapp

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/slack-go/slack"
	"golang.org/x/sync/singleflight"
)

// emailTTL is how long a user's address is kept before users.info is
// asked again; an address changes rarely, and the cache spares every
// question a Web API call.
const emailTTL = time.Hour

// emailStale is how long an address read before still counts while
// users.info fails: long enough to ride out an outage of Slack's without
// every scoped question matching no rows, short enough that a changed
// address does not stand for ever. (Someone removed from the workspace
// asks nothing: Slack sends no more of their messages.)
const emailStale = 24 * time.Hour

// emailRetry is how long users.info is not asked about a user after it
// failed for them: through an outage every question would otherwise wait
// up to slackLookupTimeout for a call that fails.
const emailRetry = time.Minute

// slackLookupTimeout bounds one call to Slack's Web API for people:
// users.info (an answer does not wait long for an address; the query then
// runs with the one read before, within emailStale, or none, and scoped
// rows match none) and usergroups.users.list
// (a question whose user group has no members that count waits no longer,
// nor does a listing in the background outlive it).
const slackLookupTimeout = 3 * time.Second

// people looks up the email addresses of Slack users (users.info, scopes
// users:read and users:read.email), for the database's row-level security
// (analyticsbot.user_email). A workspace that refuses the lookup is not
// asked again until the app restarts.
type people struct {
	api interface {
		GetUserInfoContext(ctx context.Context, user string, opts ...slack.GetUserInfoOption) (*slack.User, error)
		GetUserGroupMembersContext(ctx context.Context, group string, opts ...slack.GetUserGroupMembersOption) ([]string, error)
	}
	now func() time.Time
	log func(msg string, args ...any)
	// lookupTimeout, when set, replaces slackLookupTimeout: a test that
	// holds a call in the fake Slack sets it past the test's own end, so
	// that the call ends when the test releases it, however slow the
	// machine, never because the real bound ran out first.
	lookupTimeout time.Duration

	// lookups runs one users.info per user, and one
	// usergroups.users.list per user group, at a time: a burst of
	// messages asks Slack once, not once each.
	lookups singleflight.Group

	// refreshes counts the listings of user groups under way, waited on
	// or not; Run waits for them at a clean stop.
	refreshes sync.WaitGroup
	// stopped: no more listings start in the background (stop), and
	// none is added to refreshes while it is waited on.
	stopped bool

	mu       sync.Mutex
	emails   map[string]cachedEmail
	disabled bool
	groups   map[string]cachedGroup
	noGroups bool
}

// cachedEmail is what users.info told of a user: their address and their
// time zone (an IANA name, for the schedules they make).
type cachedEmail struct {
	email, tz string
	// deactivated: Slack says the account is deactivated ("deleted").
	deactivated bool
	// at is when users.info told them; zero when it never did.
	at time.Time
	// failed is when users.info last failed for the user; zero since it
	// last answered.
	failed time.Time
}

// counting is what counts of c at now while Slack is not asked: what was
// read before, within emailStale of its reading, else nothing.
func (c cachedEmail) counting(now time.Time) cachedEmail {
	if c.at.IsZero() || now.Sub(c.at) >= emailStale {
		return cachedEmail{}
	}
	return cachedEmail{email: c.email, tz: c.tz, deactivated: c.deactivated, at: c.at}
}

// email returns user's address, "" when Slack does not say.
func (p *people) email(ctx context.Context, user string) string { return p.person(ctx, user).email }

// timeZone returns user's time zone, "" when Slack does not say.
func (p *people) timeZone(ctx context.Context, user string) string { return p.person(ctx, user).tz }

// person returns what users.info says of user, asked again once emailTTL
// has passed, and waited for then. Unlike a user group's members it is
// not served past its time while read again in the background: nothing
// looks it up before a slash command is acknowledged (answers and button
// presses run after), and row-level security is to see a changed address
// within emailTTL, not one question later. After a failed lookup Slack is
// not asked about user for emailRetry, and what was read before counts
// for up to emailStale.
func (p *people) person(ctx context.Context, user string) cachedEmail {
	if user == "" {
		return cachedEmail{}
	}
	p.mu.Lock()
	c := p.emails[user]
	disabled := p.disabled
	p.mu.Unlock()
	now := p.now()
	switch {
	case disabled:
		// Without the scope nobody has an address, the ones read before
		// it went included.
		return cachedEmail{}
	case !c.at.IsZero() && now.Sub(c.at) < emailTTL:
		return c
	case !c.failed.IsZero() && now.Sub(c.failed) < emailRetry:
		return c.counting(now)
	}
	v, _, _ := p.lookups.Do(user, func() (any, error) { return p.lookUp(ctx, user), nil })
	return v.(cachedEmail)
}

// errNotCurrent: users.info did not answer for a user, and nothing it
// said of them within emailTTL is at hand.
var errNotCurrent = errors.New("users.info did not answer, and the address read before is over an hour old")

// current is what users.info says of user now, for a run no one is there
// to ask: as a question's (person), read within emailTTL, but never the
// reading before a failed lookup, which a question would take for up to
// emailStale. A workspace that refuses users.info tells no one's
// address, and a run then reads as a question does, without one.
func (p *people) current(ctx context.Context, user string) (cachedEmail, error) {
	c := p.person(ctx, user)
	p.mu.Lock()
	disabled := p.disabled
	p.mu.Unlock()
	if disabled || !c.at.IsZero() && p.now().Sub(c.at) < emailTTL {
		return c, nil
	}
	return cachedEmail{}, errNotCurrent
}

// lookUp asks Slack for user's address and time zone and caches them.
func (p *people) lookUp(ctx context.Context, user string) cachedEmail {
	// Whoever waits on this lookup shares it: one caller's end must not
	// fail the others'.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.callTimeout())
	defer cancel()
	u, err := p.api.GetUserInfoContext(ctx, user)
	switch {
	case err == nil:
	case isScopeError(err):
		p.log("slack: users.info refused; row-level security sees no addresses and schedules run in TZ (add the users:read and users:read.email scopes and reinstall)", "err", err)
		p.mu.Lock()
		p.disabled = true
		p.mu.Unlock()
		return cachedEmail{}
	default:
		// A passing failure: what was read before counts (counting), and
		// Slack is asked again after emailRetry.
		p.log("slack: look up a user's email; the address read before counts for up to a day", "user", user, "err", err, "retry_in", emailRetry)
		p.mu.Lock()
		c := p.emails[user]
		c.failed = p.now()
		p.emails[user] = c
		p.mu.Unlock()
		return c.counting(p.now())
	}
	c := cachedEmail{email: strings.ToLower(strings.TrimSpace(u.Profile.Email)), tz: strings.TrimSpace(u.TZ),
		deactivated: u.Deleted, at: p.now()}
	p.mu.Lock()
	p.emails[user] = c
	p.mu.Unlock()
	return c
}

// isScopeError reports a Slack error that will not go away by asking
// again: the app lacks the scope, or the workspace forbids the method.
func isScopeError(err error) bool {
	s := err.Error()
	for _, e := range []string{"missing_scope", "not_allowed_token_type", "no_permission", "invalid_auth", "not_authed"} {
		if strings.Contains(s, e) {
			return true
		}
	}
	return false
}

// callTimeout bounds one call of p's to Slack: slackLookupTimeout, unless
// a test set lookupTimeout.
func (p *people) callTimeout() time.Duration {
	if p.lookupTimeout > 0 {
		return p.lookupTimeout
	}
	return slackLookupTimeout
}

// newPeople looks people and user groups up through api, logging what
// fails to log.
func newPeople(api *slack.Client, log *slog.Logger) *people {
	return &people{api: api, now: time.Now, log: log.Warn, emails: map[string]cachedEmail{}, groups: map[string]cachedGroup{}}
}
