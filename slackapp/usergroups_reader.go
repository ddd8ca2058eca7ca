package slackapp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/slack-go/slack"
)

// UserGroups reads the members of Slack user groups with the bot token as
// the Slack app does (kept groupTTL, read again in the background, asked
// again after a failure only once retry() has passed), for a process that
// asks as a Slack user without serving Slack: the MCP server over stdio
// (`mcp --as U…`) and `analyticsbot context --user U…`. Without it such a
// process cannot tell who is in a user group, and the access file refuses
// a Slack user whose policy hangs on one (access.ErrNoDirectory).
type UserGroups struct{ people *people }

// NewUserGroups reads user groups with cfg's bot token (and API URL,
// retries), logging to log, and starts listing groups in the background,
// so that the first question that hangs on one need not wait. It checks
// the token first (auth.test), as the Slack app does: a token Slack
// refuses would otherwise read as one without the usergroups:read scope,
// whose user groups have no members.
func NewUserGroups(ctx context.Context, cfg Config, groups []string, log *slog.Logger) (*UserGroups, error) {
	switch {
	case cfg.BotToken == "":
		return nil, errors.New("SLACK_BOT_TOKEN (xoxb-…) is required to read Slack user groups")
	case !strings.HasPrefix(cfg.BotToken, "xoxb-"):
		return nil, errors.New("SLACK_BOT_TOKEN must be a bot token (xoxb-…)")
	}
	log = log.With("component", "slack")
	api := slack.New(cfg.BotToken, apiOptions(cfg, log, nil)...)
	if _, err := api.AuthTestContext(ctx); err != nil {
		return nil, fmt.Errorf("slack auth.test with SLACK_BOT_TOKEN, to read the access file's Slack user groups: %w", err)
	}
	u := &UserGroups{people: newPeople(api, log)}
	u.people.warm(ctx, groups)
	return u, nil
}

// Members is the members of a Slack user group, an access.Directory.
func (u *UserGroups) Members(ctx context.Context, group string) ([]string, error) {
	return u.people.members(ctx, group)
}

// Stop waits for the listings under way, which end within
// slackLookupTimeout, and starts no more.
func (u *UserGroups) Stop() { u.people.stop() }

// UnknownUserGroups lists each of groups with cfg's bot token and returns
// those Slack knows no user group for (no_such_subteam: a mistyped id, a
// group deleted), which the app reads as having no members: for doctor.
// It fails on any other refusal (a missing scope, marked ErrMissingScope;
// a token Slack refuses) or an outage, naming the group.
func UnknownUserGroups(ctx context.Context, cfg Config, groups []string) ([]string, error) {
	api := slack.New(cfg.BotToken, apiOptions(cfg, slog.New(slog.DiscardHandler), nil)...)
	var unknown []string
	for _, g := range groups {
		lctx, cancel := context.WithTimeout(ctx, slackLookupTimeout)
		_, err := api.GetUserGroupMembersContext(lctx, g)
		cancel()
		switch {
		case isNoSuchGroup(err):
			unknown = append(unknown, g)
		case isMissingScope(err):
			return unknown, fmt.Errorf("usergroups.users.list %s: %w: %w", g, ErrMissingScope, err)
		case err != nil:
			return unknown, fmt.Errorf("usergroups.users.list %s: %w", g, err)
		}
	}
	return unknown, nil
}

// ErrMissingScope marks a call Slack refused because the bot token lacks
// the scope it needs (missing_scope). MissingScopes names the scopes the
// token lacks, so doctor reports them there, once.
var ErrMissingScope = errors.New("the bot token lacks a scope")

// isMissingScope reports Slack refusing a call for a scope the token lacks.
func isMissingScope(err error) bool {
	var se slack.SlackErrorResponse
	return errors.As(err, &se) && se.Err == "missing_scope"
}
