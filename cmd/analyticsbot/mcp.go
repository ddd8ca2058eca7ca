package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/mcpserver"
)

// mcpCommand serves the bot over MCP on stdin and stdout, for desktop and
// IDE assistants that start it (docs/mcp.md), until the client
// disconnects.
func mcpCommand(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	const form = "mcp [--as IDENTITY]"
	fs := newFlagSet("mcp")
	as := fs.String("as", "", "who every call asks as: a user the access file names (a Slack user ID, token:<name>); required with ACCESS_FILE")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return fmt.Errorf("%w: %s", errUsage, form)
	}
	user := *as
	if user == "" {
		if os.Getenv("ACCESS_FILE") != "" {
			return fmt.Errorf("%w: %s: --as is required when ACCESS_FILE is set: the identity whose policy every call reads under", errUsage, form)
		}
		user = mcpserver.DefaultUser
	}
	cfg, err := mcpserver.ConfigFromEnv()
	if err != nil {
		return err
	}
	b, err := openBot(ctx)
	if err != nil {
		return err
	}
	defer b.Close()
	stop, err := readSlackGroups(ctx, b, user)
	if err != nil {
		return err
	}
	defer stop()
	// Every call checks again and says so too; the operator reads it here
	// first. Only a refusal of the file's means it does not admit the
	// identity: a Slack user group that could not be read, or another error
	// (the database's), says nothing of the calls to come, but for a user
	// group with no bot token to read it.
	var ref *access.Refusal
	switch err := b.Admit(ctx, bot.Message{UserID: user, ChannelID: mcpserver.Channel}); {
	case errors.As(err, &ref) && errors.Is(ref.Unknown, access.ErrNoDirectory):
		slog.WarnContext(ctx, "the MCP server's identity's access depends on a Slack user group, and SLACK_BOT_TOKEN is not set to read it: every call will be refused", "as", user, "err", ref.Unknown)
	case errors.As(err, &ref) && ref.Unknown != nil:
		slog.WarnContext(ctx, "could not check whether the access file admits the MCP server's identity: each call will check again", "as", user, "err", ref.Unknown)
	case errors.As(err, &ref):
		slog.WarnContext(ctx, "the access file does not admit the MCP server's identity: every call will be refused", "as", user, "reason", ref.Reason)
	case err != nil:
		slog.WarnContext(ctx, "could not check whether the access file admits the MCP server's identity: each call will check again", "as", user, "err", err)
	}
	defer b.StartValueIndex(ctx)()
	// A desktop assistant keeps this process for its whole session, as
	// long as a replica serves: the examples of an earlier form are
	// brought forward as serve brings them.
	defer b.StartRefingerprint(ctx)()
	return mcpserver.New(b, cfg, user, slog.Default()).Run(ctx, io.NopCloser(stdin), nopWriteCloser{stdout})
}

// nopWriteCloser leaves stdout open when the session ends.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
