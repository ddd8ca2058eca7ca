package slackapp

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/slack-go/slack"
)

// emailTTL is how long a user's address is kept before users.info is
// asked again; an address changes rarely, and the cache spares every
// question a Web API call.
const emailTTL = time.Hour

// emailTimeout bounds one users.info call: an answer does not wait long
// for it (the query then runs with no address, and scoped rows match none).
const emailTimeout = 3 * time.Second

// people looks up the email addresses of Slack users (users.info, scopes
// users:read and users:read.email), for the database's row-level security
// (analyticsbot.user_email). A workspace that refuses the lookup is not
// asked again until the app restarts.
type people struct {
	api interface {
		GetUserInfoContext(ctx context.Context, user string, opts ...slack.GetUserInfoOption) (*slack.User, error)
	}
	now func() time.Time
	log func(msg string, args ...any)

	mu       sync.Mutex
	emails   map[string]cachedEmail
	disabled bool
}

type cachedEmail struct {
	email string
	at    time.Time
}

// email returns user's address, "" when Slack does not say.
func (p *people) email(ctx context.Context, user string) string {
	if user == "" {
		return ""
	}
	p.mu.Lock()
	c, ok := p.emails[user]
	disabled := p.disabled
	p.mu.Unlock()
	if disabled || ok && p.now().Sub(c.at) < emailTTL {
		return c.email
	}
	ctx, cancel := context.WithTimeout(ctx, emailTimeout)
	defer cancel()
	u, err := p.api.GetUserInfoContext(ctx, user)
	email := ""
	switch {
	case err == nil:
		email = strings.ToLower(strings.TrimSpace(u.Profile.Email))
	case isScopeError(err):
		p.log("slack: users.info refused; row-level security sees no addresses (add the users:read and users:read.email scopes and reinstall)", "err", err)
		p.mu.Lock()
		p.disabled = true
		p.mu.Unlock()
		return ""
	default:
		// A passing failure: answer without the address, ask next time.
		p.log("slack: look up a user's email", "user", user, "err", err)
		return c.email
	}
	p.mu.Lock()
	p.emails[user] = cachedEmail{email: email, at: p.now()}
	p.mu.Unlock()
	return email
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
