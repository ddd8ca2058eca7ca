package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/mcpserver"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/scheduler"
	"github.com/analyticsbot/analyticsbot/slackapp"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/telemetry"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
	"github.com/analyticsbot/analyticsbot/web"
)

// serve answers in the web chat on HTTP_ADDR, and in Slack too when Slack
// is configured, until a signal stops it.
func serve(ctx context.Context, out io.Writer, tel *telemetry.Telemetry) error {
	// Every setting is read before anything opens or listens, so a value
	// to fix stops serve with nothing left running.
	st, err := serveSettings()
	if err != nil {
		return err
	}
	scfg, mcfg, token := st.slack, st.mcp, st.token
	b, err := openBot(ctx)
	if err != nil {
		return err
	}
	defer b.Close()
	tokens, err := b.APITokens()
	if err != nil {
		return err
	}
	bearers, err := mcpTokens(token, tokens)
	if err != nil {
		return err
	}
	if err := web.CheckAddr(scfg.HTTPAddr, token != "" || len(tokens) > 0); err != nil {
		return err
	}
	cfg := b.Config()
	// Deferred after Close, so it runs first: retention stops before the pool closes.
	defer b.DB().StartRetention(ctx, store.RetentionPolicy{
		QueryLogs: cfg.QueryLogRetention, Turns: cfg.TurnRetention, Results: cfg.ResultRetention,
	}, slog.Default())()
	defer b.StartValueIndex(ctx)()
	defer b.StartRefingerprint(ctx)()
	defer startDriftWatch(ctx, b)()
	var app *slackapp.App
	if scfg.Configured() {
		if app, err = slackapp.New(ctx, scfg, b, slog.Default(), slackapp.WithMountedHandler()); err != nil {
			return err
		}
	}
	defer startScheduler(ctx, b, app)()
	if _, err := serveMetrics(ctx, tel); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", scfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen on HTTP_ADDR %s: %w", scfg.HTTPAddr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", web.New(b, web.Config{Token: token, Tokens: tokens}, slog.Default()))
	mux.Handle("/mcp", mcpserver.Handler(b, mcfg, bearers, slog.Default()))
	if app != nil && app.Mode() == slackapp.ModeHTTP {
		mux.Handle("/slack/", app.Handler())
	}
	fmt.Fprintf(out, "Web chat: %s\n", webURL(ln.Addr()))
	fmt.Fprintf(out, "MCP (streamable HTTP, bearer token): %s/mcp\n", webURL(ln.Addr()))
	model := b.ModelName
	if b.Demo {
		model += ", the offline demo: a scripted model that answers only its suggested questions; set LLM_PROVIDER and a key to ask anything"
	}
	if app == nil {
		fmt.Fprintf(out, "analyticsbot is answering in the web chat (model %s); Slack is not configured (see README.md, \"Add it to Slack\"). Ctrl-C stops it.\n", model)
	} else {
		where := "over Socket Mode"
		if app.Mode() == slackapp.ModeHTTP {
			where = "on " + webURL(ln.Addr()) + "/slack/{events,interactions,commands}"
		}
		fmt.Fprintf(out, "analyticsbot is answering in the web chat and in Slack %s as <@%s> (model %s). Ctrl-C stops it.\n", where, app.BotUserID(), model)
	}
	if err := runServers(ctx, ln, mux, app); err != nil {
		return err
	}
	fmt.Fprintln(out, "stopped")
	return nil
}

// settings are serve's settings of its own, read and checked before the
// bot opens: Slack's, MCP's and the web's.
type settings struct {
	slack slackapp.Config
	mcp   mcpserver.Config
	token string // HTTP_TOKEN
}

// serveSettings reads and checks serve's own settings as serve does
// before it opens anything; doctor checks them the same way, so that it
// fails on whatever would stop serve.
func serveSettings() (settings, error) {
	scfg, err := slackapp.ConfigFromEnv()
	if err != nil {
		return settings{}, err
	}
	mcfg, err := mcpserver.ConfigFromEnv()
	if err != nil {
		return settings{}, err
	}
	if scfg.Configured() {
		// Half-configured Slack is a mistake to report, not to skip.
		if _, err := scfg.Mode(); err != nil {
			return settings{}, fmt.Errorf("%w (see README.md, \"Add it to Slack\")", err)
		}
		if err := scfg.Check(); err != nil {
			return settings{}, err
		}
	}
	token := os.Getenv("HTTP_TOKEN")
	if err := checkHTTPToken(token); err != nil {
		return settings{}, err
	}
	if err := web.CheckAddr(scfg.HTTPAddr, token != "" || os.Getenv("ACCESS_FILE") != ""); err != nil {
		return settings{}, err
	}
	return settings{slack: scfg, mcp: mcfg, token: token}, nil
}

// checkHTTPToken refuses an HTTP_TOKEN shorter than a named token's
// secret may be (bot.MinTokenLength): it guards the web API and /mcp as
// they do. Unset is fine (loopback only, or named tokens). The secret is
// never in the error.
func checkHTTPToken(token string) error {
	if token != "" && len(token) < bot.MinTokenLength {
		return fmt.Errorf("HTTP_TOKEN needs a secret of at least %d characters (a named token's need as many): set a longer one", bot.MinTokenLength)
	}
	return nil
}

// mcpTokens are the bearer secrets of /mcp and who each asks as: the
// access file's named tokens, and HTTP_TOKEN's, which asks as the web
// chat does ("web"). HTTP_TOKEN sharing a named token's secret is refused:
// the web API would take that secret for the named token and /mcp for
// "web", two identities under two policies.
func mcpTokens(token string, named map[string]string) (map[string]string, error) {
	out := maps.Clone(named)
	if out == nil {
		out = map[string]string{}
	}
	if token == "" {
		return out, nil
	}
	if user, dup := out[token]; dup {
		return nil, fmt.Errorf("HTTP_TOKEN has the same secret as the access file's token %q: give each a secret of its own",
			strings.TrimPrefix(user, "token:"))
	}
	out[token] = "web"
	return out, nil
}

// startScheduler runs the scheduled questions and alerts (SCHEDULES) in
// the background: the web chat's and the command line's, and Slack's when
// app is set. The returned function stops it and waits for the runs under
// way.
func startScheduler(ctx context.Context, b *bot.Bot, app *slackapp.App) (stop func()) {
	if !b.Config().Schedules {
		return func() {}
	}
	sc := scheduler.New(b, scheduler.Options{})
	if app != nil {
		sc.Handle(nodes.SurfaceSlack, app)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// runServers serves handler on ln and runs app (when set) until ctx ends
// or either fails, which stops the other.
func runServers(ctx context.Context, ln net.Listener, handler http.Handler, app *slackapp.App) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 2)
	running := 1
	go func() { errc <- serveHTTP(ctx, ln, handler) }()
	if app != nil {
		running++
		go func() { errc <- app.Run(ctx) }()
	}
	var first error
	for range running {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
		cancel()
	}
	return first
}

// webShutdownGrace is how long answers being streamed may run on after a
// shutdown signal, as Slack's SLACK_SHUTDOWN_GRACE allows its own.
const webShutdownGrace = 25 * time.Second

// serveHTTP serves h on ln until ctx ends, then stops taking requests and
// lets those in flight finish within webShutdownGrace; the runs of answers
// still streaming after it are canceled.
func serveHTTP(ctx context.Context, ln net.Listener, h http.Handler) error {
	// Requests do not inherit ctx: a signal must not cut answers at once.
	base, cut := context.WithCancel(context.WithoutCancel(ctx))
	defer cut()
	srv := &http.Server{
		Handler: h,
		// No ReadTimeout or WriteTimeout: they would end a long answer's
		// stream. The web handlers bound their own reads and writes.
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(slog.Default().Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	slog.InfoContext(ctx, "serving the web chat", "url", webURL(ln.Addr()))
	select {
	case err := <-errc:
		return fmt.Errorf("serve HTTP on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(base, webShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		slog.WarnContext(ctx, "answers still running after the shutdown grace period: stopping them", "grace", webShutdownGrace)
		cut()
		_ = srv.Close()
	}
	<-errc // http.ErrServerClosed
	return nil
}

// webURL is the address people open for a listener: loopback when it
// listens on every interface.
func webURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// defaultMetricsAddr is where serve exposes /metrics unless METRICS_ADDR
// says otherwise ("off" disables it): the port OpenTelemetry's Prometheus
// exporters conventionally use, on loopback.
const defaultMetricsAddr = "127.0.0.1:9464"

// serveMetrics serves Prometheus metrics at METRICS_ADDR/metrics until ctx
// ends, and returns the address it listens on (nil when it does not).
func serveMetrics(ctx context.Context, tel *telemetry.Telemetry) (net.Addr, error) {
	addr := cmp.Or(os.Getenv("METRICS_ADDR"), defaultMetricsAddr)
	if addr == "off" || tel == nil {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on METRICS_ADDR %s (set METRICS_ADDR=off to disable): %w", addr, err)
	}
	go func() {
		if err := tel.ServeMetrics(ctx, ln); err != nil {
			slog.ErrorContext(ctx, "metrics server stopped", "err", err)
		}
	}()
	slog.InfoContext(ctx, "serving Prometheus metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	return ln.Addr(), nil
}

// startDriftWatch logs a warning, once per change, when the policies'
// roles read other than their policies on the tables as they are now (a
// new table, partition or child, a grant changed by hand), checked at
// start and as often as the catalog is read again: `access apply` mends it.
func startDriftWatch(ctx context.Context, b *bot.Bot) (stop func()) {
	cfg := b.Config()
	if cfg.AccessFile == "" || (cfg.Backend != "" && cfg.Backend != pgwarehouse.Name && cfg.Backend != "sql") {
		return func() {}
	}
	rules, err := access.Load(cfg.AccessFile)
	if err != nil {
		slog.WarnContext(ctx, "cannot compare the policy roles' grants with their policies", "err", err)
		return func() {}
	}
	w := &pgwarehouse.DriftWatch{Pool: b.DB().Pool(), Reader: cfg.Postgres.ReaderRole, Schemas: cfg.Postgres.Schemas, Log: slog.Default()}
	for _, p := range rules.AllPolicies() {
		w.Policies = append(w.Policies, p)
	}
	return w.Start(ctx, pgwarehouse.DefaultCatalogTTL)
}
