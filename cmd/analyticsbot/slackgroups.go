package main

import (
	"context"
	"log/slog"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/slackapp"
)

// readSlackGroups lets b read the members of the access file's Slack user
// groups with SLACK_BOT_TOKEN, for a command that asks as the Slack user
// user without serving Slack (mcp --as, context --user, press --user), as
// serve does for Slack. For anyone else (cli, token:…), who is in no user
// group, or with no user group in the file, it asks Slack nothing; without
// the token, a Slack user whose policy hangs on a user group is refused,
// not placed under another policy (access.ErrNoDirectory). stop waits for
// the listings under way.
func readSlackGroups(ctx context.Context, b *bot.Bot, user string) (stop func(), err error) {
	groups := b.SlackGroups()
	if len(groups) == 0 || !access.IsSlackUser(user) {
		return func() {}, nil
	}
	cfg, err := slackapp.ConfigFromEnv()
	if err != nil || cfg.BotToken == "" {
		return func() {}, err
	}
	u, err := slackapp.NewUserGroups(ctx, cfg, groups, slog.Default())
	if err != nil {
		return nil, err
	}
	b.SetDirectory(u.Members)
	return u.Stop, nil
}
