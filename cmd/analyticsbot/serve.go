package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/analyticsbot/analyticsbot/slackapp"
	"github.com/analyticsbot/analyticsbot/store"
)

// serve runs the Slack app until a signal stops it.
func serve(ctx context.Context, out io.Writer) error {
	scfg, err := slackapp.ConfigFromEnv()
	if err != nil {
		return err
	}
	if _, err := scfg.Mode(); err != nil {
		return fmt.Errorf("%w (see README.md, \"Add it to Slack\")", err)
	}
	b, err := openBot(ctx)
	if err != nil {
		return err
	}
	defer b.Close()
	cfg := b.Config()
	// Deferred after Close, so it runs first: retention stops before the pool closes.
	defer b.DB().StartRetention(ctx, store.RetentionPolicy{
		QueryLogs: cfg.QueryLogRetention, Turns: cfg.TurnRetention, Results: cfg.ResultRetention,
	}, slog.Default())()
	app, err := slackapp.New(ctx, scfg, b, slog.Default())
	if err != nil {
		return err
	}
	where := "over Socket Mode"
	if app.Mode() == slackapp.ModeHTTP {
		where = "on http://" + scfg.HTTPAddr + "/slack/{events,interactions,commands}"
	}
	fmt.Fprintf(out, "analyticsbot is answering in Slack %s as <@%s> (model %s). Ctrl-C stops it.\n", where, app.BotUserID(), b.ModelName)
	if err := app.Run(ctx); err != nil {
		return err
	}
	fmt.Fprintln(out, "stopped")
	return nil
}
