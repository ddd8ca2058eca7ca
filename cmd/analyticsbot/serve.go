package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"

	"github.com/analyticsbot/analyticsbot/slackapp"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/telemetry"
)

// serve runs the Slack app until a signal stops it.
func serve(ctx context.Context, out io.Writer, tel *telemetry.Telemetry) error {
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
	if err := serveMetrics(ctx, tel); err != nil {
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

// defaultMetricsAddr is where serve exposes /metrics unless METRICS_ADDR
// says otherwise ("off" disables it): the port OpenTelemetry's Prometheus
// exporters conventionally use, on loopback.
const defaultMetricsAddr = "127.0.0.1:9464"

// serveMetrics serves Prometheus metrics at METRICS_ADDR/metrics until ctx
// ends.
func serveMetrics(ctx context.Context, tel *telemetry.Telemetry) error {
	addr := cmp.Or(os.Getenv("METRICS_ADDR"), defaultMetricsAddr)
	if addr == "off" || tel == nil {
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on METRICS_ADDR %s (set METRICS_ADDR=off to disable): %w", addr, err)
	}
	go func() {
		if err := tel.ServeMetrics(ctx, ln); err != nil {
			slog.ErrorContext(ctx, "metrics server stopped", "err", err)
		}
	}()
	slog.InfoContext(ctx, "serving Prometheus metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	return nil
}
