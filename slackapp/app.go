// Package slackapp connects the bot to Slack: it receives events, slash
// commands and button presses over Socket Mode or HTTP, acknowledges them
// at once, and answers in the message's thread through a bounded pool of
// workers that keeps each thread's messages in order.
package slackapp

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/slack-go/slack"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"github.com/analyticsbot/analyticsbot/bot"
)

// App is the Slack front end of a bot.
type App struct {
	cfg    Config
	mode   Mode
	bot    *bot.Bot
	api    *slack.Client
	log    *slog.Logger
	disp   *dispatcher
	dedupe *deduper
	people *people

	// botUserID and botID identify the bot's own messages and mentions;
	// auth.test tells them at start.
	botUserID string
	botID     string
	botUser   string
	// noStatus is set once assistant.threads.setStatus proved unavailable
	// to this app (missing scope or feature), so it is not tried again.
	noStatus atomic.Bool
	// noStream is set once chat.startStream proved unavailable to this
	// app, so it is not tried again.
	noStream atomic.Bool
	// teamID is the workspace's, for streams in channels.
	teamID string
	// clock spaces an answer's progress updates and streamed text
	// (progressInterval): the wall clock, which New sets. Tests set one
	// that moves only when they move it, to tell a wait of one interval
	// from two without timing anything.
	clock clock

	// hooks observe the app for tests and benchmarks; nil fields are skipped.
	hooks Hooks
	// tracers receives a client span per Web API request (default: the
	// global provider when New runs).
	tracers trace.TracerProvider
	// mounted: in HTTP mode the caller serves Handler() on a server of its
	// own, so Run does not listen.
	mounted bool
}

// Hooks let tests and benchmarks observe what the app does without
// waiting on time. Each function must be quick and safe for concurrent use.
type Hooks struct {
	// Acked is called when an envelope or request was acknowledged, with
	// the time since it arrived.
	Acked func(kind string, elapsed time.Duration)
	// Progress is called after the first progress update of an answer,
	// with the time since its message arrived.
	Progress func(elapsed time.Duration)
	// Done is called when a job finished, ran or not.
	Done func(kind string)
}

// Option configures an App.
type Option func(*App)

// WithHooks installs observation hooks.
func WithHooks(h Hooks) Option { return func(a *App) { a.hooks = h } }

// WithTracerProvider sends the Web API client spans to tp instead of the
// global tracer provider.
func WithTracerProvider(tp trace.TracerProvider) Option { return func(a *App) { a.tracers = tp } }

// WithMountedHandler is for a caller that serves Handler() on its own
// server, next to other handlers: in HTTP mode Run then does not listen on
// HTTP_ADDR, and only waits for its context to end before finishing the
// work in flight. It changes nothing in Socket Mode.
func WithMountedHandler() Option { return func(a *App) { a.mounted = true } }

// New checks cfg, builds the Web API client and asks Slack who the bot is
// (auth.test), which also proves the bot token works.
func New(ctx context.Context, cfg Config, b *bot.Bot, log *slog.Logger, opts ...Option) (*App, error) {
	mode, err := cfg.Mode()
	if err != nil {
		return nil, err
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.Default()
	}
	a := &App{cfg: cfg, mode: mode, bot: b, log: log.With("component", "slack"), clock: wallClock{}}
	for _, o := range opts {
		o(a)
	}
	a.api = slack.New(cfg.BotToken, a.apiOptions()...)
	auth, err := a.api.AuthTestContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("slack auth.test with SLACK_BOT_TOKEN: %w", err)
	}
	a.botUserID, a.botID, a.botUser, a.teamID = auth.UserID, auth.BotID, auth.User, auth.TeamID
	turns := b.Turns()
	if cfg.Workers > 0 {
		turns = bot.NewTurns(cfg.Workers, cfg.QueueLimit, turns.MaxWait())
	}
	a.disp = newDispatcher(turns, cfg.QueueLimit, a.log)
	a.dedupe = newDeduper(b.FirstDelivery)
	a.dedupe.firstPress, a.dedupe.forgetPress = b.FirstPress, b.ForgetPress
	a.people = newPeople(a.api, a.log)
	b.SetDirectory(a.people.members)
	b.SetMembership(a.isMember)
	b.SetSlashCommand(cfg.SlashCommand)
	return a, nil
}

func (a *App) apiOptions() []slack.Option { return apiOptions(a.cfg, a.log, a.tracers) }

// apiOptions are the options of a Web API client for cfg: traced (tp, or
// the global provider when nil), logged to log, retried.
func apiOptions(cfg Config, log *slog.Logger, tp trace.TracerProvider) []slack.Option {
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	// The traced client must come before OptionRetryConfig, which wraps
	// whatever client is set when it runs: each attempt then gets its own
	// span, so retries and rate limits show in the trace.
	httpc := &http.Client{Transport: otelhttp.NewTransport(http.DefaultTransport,
		otelhttp.WithTracerProvider(tp), otelhttp.WithSpanNameFormatter(slackSpanName))}
	opts := []slack.Option{slack.OptionLog(slogAdapter{log}), slack.OptionHTTPClient(httpc)}
	// slack-go logs its Web API retries, the requests it posts (message
	// text, tokens redacted) and failed responses only in debug mode: on at
	// LOG_LEVEL=debug, at an operator's request.
	if debugLogged(log) {
		opts = append(opts, slack.OptionDebug(true))
	}
	if cfg.APIURL != "" {
		u := cfg.APIURL
		if !strings.HasSuffix(u, "/") {
			u += "/"
		}
		opts = append(opts, slack.OptionAPIURL(u))
	}
	if cfg.AppToken != "" {
		opts = append(opts, slack.OptionAppLevelToken(cfg.AppToken))
	}
	if cfg.APIRetries > 0 {
		rc := slack.DefaultRetryConfig()
		rc.MaxRetries = cfg.APIRetries
		rc.RetryAfterJitter = 250 * time.Millisecond
		rc.BackoffInitial = 200 * time.Millisecond
		rc.BackoffMax = 5 * time.Second
		rc.Handlers = append(slack.AllBuiltinRetryHandlers(rc), slack.NewServerErrorRetryHandler(rc))
		opts = append(opts, slack.OptionRetryConfig(rc))
	}
	return opts
}

// slackSpanName names a Web API request's span after its method
// ("slack chat.postMessage"); other requests (file uploads, response URLs)
// by their HTTP method only, since their paths hold ids.
func slackSpanName(_ string, r *http.Request) string {
	if _, method, ok := strings.Cut(r.URL.Path, "/api/"); ok && method != "" && !strings.Contains(method, "/") {
		return "slack " + method
	}
	return "slack " + r.Method
}

// Mode returns the transport the app runs.
func (a *App) Mode() Mode { return a.mode }

// BotUserID returns the bot's Slack user id.
func (a *App) BotUserID() string { return a.botUserID }

// Run serves Slack until ctx ends, then stops taking events and lets the
// work in flight finish within the shutdown grace period; what could not
// finish is reported in its thread.
func (a *App) Run(ctx context.Context) error {
	a.log.InfoContext(ctx, "slack app running", "mode", a.mode, "bot_user", a.botUserID, "turns", a.disp.turns.Limit())
	// Listed now, in the background, the access file's user groups are
	// cached by the first question that hangs on one.
	a.people.warm(ctx, a.bot.SlackGroups())
	var err error
	switch a.mode {
	case ModeSocket:
		err = a.runSocketMode(ctx)
	case ModeHTTP:
		if a.mounted {
			<-ctx.Done()
		} else {
			err = a.runHTTP(ctx)
		}
	}
	a.disp.shutdown(a.cfg.ShutdownGrace)
	// A user group listed again in the background ends within
	// slackLookupTimeout: a clean stop leaves no call to Slack behind.
	a.people.stop()
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// debugLogged reports whether log writes debug lines, which turns on
// slack-go's and socketmode's debug output.
func debugLogged(log *slog.Logger) bool { return log.Enabled(context.Background(), slog.LevelDebug) }

// slogAdapter gives slack-go's logger interface to slog, at debug level:
// in debug mode (debugLogged) slack-go logs every Web API retry, and
// socketmode every reconnect and envelope.
type slogAdapter struct{ log *slog.Logger }

func (l slogAdapter) Output(_ int, s string) error {
	l.log.Debug(strings.TrimSpace(s))
	return nil
}
