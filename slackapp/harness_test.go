package slackapp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

// The demo questions the tests ask, and what the Steam data says.
const (
	q2018    = "How many games were released in 2018?"
	sql2018  = "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018"
	answer18 = "*8,160* games were released on Steam in 2018."
	answer17 = "*6,357* games were released on Steam in 2017."
	csv2018  = "games\n8160\n"
	user     = "UALICE01"
)

// harness is one bot process connected to a fake Slack.
type harness struct {
	t     testing.TB
	slack *fakeslack.Server
	bot   *bot.Bot
	app   *App
	// url is the HTTP mode endpoint base, when the app runs HTTP mode.
	url    string
	secret string
	// conn is the number of the app's Socket Mode connection to the fake
	// (fakeslack's SendTo), when the app runs Socket Mode.
	conn int

	stop    context.CancelFunc
	stopped chan error

	mu       sync.Mutex
	done     map[string]int
	acks     []time.Duration
	progress []time.Duration
	doneC    chan string
	// jobs counts finished jobs of every kind.
	jobs atomic.Int64
}

type harnessOptions struct {
	http      bool
	script    string // a scripted model file; "" plays the demo script
	slack     *fakeslack.Server
	adjust    func(*Config)
	botCfg    func(*bot.Config)
	streaming bool
	noGuard   bool
	// app adjusts the app after New, before it runs.
	app func(*App)
	// log is the app's logger; testLogger's when nil.
	log *slog.Logger
}

type harnessOption func(*harnessOptions)

// withLog gives the app log instead of the test's logger.
func withLog(log *slog.Logger) harnessOption { return func(o *harnessOptions) { o.log = log } }

// overHTTP runs the app in HTTP mode instead of Socket Mode.
func overHTTP() harnessOption { return func(o *harnessOptions) { o.http = true } }

// withScript plays a scripted model file instead of the demo script.
func withScript(rules string) harnessOption { return func(o *harnessOptions) { o.script = rules } }

// sharing connects to an existing fake Slack, as a second process would.
func sharing(s *fakeslack.Server) harnessOption { return func(o *harnessOptions) { o.slack = s } }

// streaming streams answers where the fake Slack lets the app.
func streaming() harnessOption { return func(o *harnessOptions) { o.streaming = true } }

// withoutGuard takes the static guard out and answers each access policy
// as its own database role (bottest.StartWithoutGuard).
func withoutGuard() harnessOption { return func(o *harnessOptions) { o.noGuard = true } }

// withApp adjusts the app after New and before it runs: a test's clock
// (fakeClock), a longer bound on the calls to Slack that it holds.
func withApp(f func(*App)) harnessOption { return func(o *harnessOptions) { o.app = f } }

func withConfig(f func(*Config)) harnessOption { return func(o *harnessOptions) { o.adjust = f } }

// withBotConfig adjusts the bot's configuration.
func withBotConfig(f func(*bot.Config)) harnessOption {
	return func(o *harnessOptions) {
		prev := o.botCfg
		o.botCfg = func(c *bot.Config) {
			if prev != nil {
				prev(c)
			}
			f(c)
		}
	}
}

// start builds a bot on the package database and runs its Slack app
// against a fake Slack until the test ends.
func start(t testing.TB, opts ...harnessOption) *harness {
	t.Helper()
	dbURL := needDB(t)
	var o harnessOptions
	for _, f := range opts {
		f(&o)
	}
	h := &harness{t: t, slack: o.slack, done: map[string]int{}, doneC: make(chan string, 1024), secret: "fake-signing-secret"}
	if h.slack == nil {
		h.slack = fakeslack.New(t)
	}

	bcfg := bottest.Config(t, dbURL, o.script)
	if o.botCfg != nil {
		o.botCfg(&bcfg)
	}
	var b *bot.Bot
	if o.noGuard {
		b = bottest.StartWithoutGuard(t, bcfg, testLogger(t))
	} else {
		b = bottest.Start(t, bcfg, testLogger(t))
	}
	h.bot = b

	var cfg Config
	require.NoError(t, env.ParseWithOptions(&cfg, env.Options{Environment: map[string]string{}}), "slack config defaults")
	cfg.BotToken, cfg.APIURL, cfg.ProgressInterval = fakeslack.BotToken, h.slack.APIURL(), 0
	// Most tests hold the path every workspace has: a progress message the
	// answer replaces. Streaming tests turn streaming on (streaming()).
	cfg.Streaming = o.streaming
	if o.http {
		cfg.SigningSecret = h.secret
	} else {
		cfg.AppToken = fakeslack.AppToken
	}
	if o.adjust != nil {
		o.adjust(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log := o.log
	if log == nil {
		log = testLogger(t)
	}
	app, err := New(ctx, cfg, b, log, WithHooks(Hooks{
		Acked: func(_ string, d time.Duration) {
			h.mu.Lock()
			h.acks = append(h.acks, d)
			h.mu.Unlock()
		},
		Progress: func(d time.Duration) {
			h.mu.Lock()
			h.progress = append(h.progress, d)
			h.mu.Unlock()
		},
		Done: func(kind string) {
			h.jobs.Add(1)
			h.mu.Lock()
			h.done[kind]++
			h.mu.Unlock()
			select {
			case h.doneC <- kind:
			default:
			}
		},
	}))
	require.NoError(t, err, "new app")
	if o.app != nil {
		o.app(app)
	}
	h.app = app

	runCtx, stop := context.WithCancel(context.Background())
	h.stop, h.stopped = stop, make(chan error, 1)
	if o.http {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		h.url = "http://" + ln.Addr().String()
		go func() { h.stopped <- app.Serve(runCtx, ln) }()
	} else {
		// Apps sharing a fake Slack start one after another, so the next
		// connection the fake accepts is this app's.
		h.conn = h.slack.Connects() + 1
		go func() { h.stopped <- app.Run(runCtx) }()
		h.slack.WaitConnects(t, h.conn)
	}
	t.Cleanup(h.shutdown)
	return h
}

// shutdown stops the app and waits for it; idempotent.
func (h *harness) shutdown() {
	h.stop()
	select {
	case err, ok := <-h.stopped:
		if ok {
			require.NoError(h.t, err, "app run")
			close(h.stopped)
		}
	case <-time.After(time.Minute):
		h.t.Error("the app did not stop within a minute")
	}
}

// waitJobs blocks until n jobs (of any kind) have finished in total.
func (h *harness) waitJobs(n int64) {
	h.t.Helper()
	deadline := time.After(30 * time.Second)
	for h.jobs.Load() < n {
		select {
		case <-h.doneC:
		case <-deadline:
			h.t.Fatalf("only %d of %d jobs finished in 30s", h.jobs.Load(), n)
		}
	}
}

// send delivers an envelope over this app's own Socket Mode connection, as
// Slack does when it picks this process among several, and waits for the
// app's ack.
func (h *harness) send(e fakeslack.Envelope) {
	h.t.Helper()
	h.slack.WaitAck(h.t, h.slack.SendTo(h.t, h.conn, e))
}

// mentionEvent is the event callback of an app_mention of the bot.
func mentionEvent(channel, ts, threadTS, text string) json.RawMessage {
	return fakeslack.EventCallback("Ev"+strings.ReplaceAll(ts, ".", ""), fakeslack.AppMention(channel, user, "<@"+fakeslack.BotUserID+"> "+text, ts, threadTS))
}

// messageEvent is the event callback of a message event.
func messageEvent(channel, channelType, ts, threadTS, text string) json.RawMessage {
	return fakeslack.EventCallback("Ev"+strings.ReplaceAll(ts, ".", "")+"m", fakeslack.MessageEvent(channel, channelType, user, text, ts, threadTS))
}

// mention delivers an app_mention over Socket Mode.
func (h *harness) mention(channel, ts, threadTS, text string) {
	h.t.Helper()
	h.send(fakeslack.Envelope{Type: "events_api", Payload: mentionEvent(channel, ts, threadTS, text)})
}

// message delivers a message event over Socket Mode.
func (h *harness) message(channel, channelType, ts, threadTS, text string) {
	h.t.Helper()
	h.send(fakeslack.Envelope{Type: "events_api", Payload: messageEvent(channel, channelType, ts, threadTS, text)})
}

// answerIn waits for the bot's message in the thread whose text contains want.
func (h *harness) answerIn(channel, threadTS, want string) fakeslack.Message {
	h.t.Helper()
	return h.slack.WaitMessage(h.t, "a message in "+channel+"/"+threadTS+" with "+want, func(m fakeslack.Message) bool {
		return m.Channel == channel && m.ThreadTS == threadTS && !m.Ephemeral && strings.Contains(strings.Join(m.BlockTexts(), "\n")+"\n"+m.Text, want)
	})
}

// threadMessages returns the bot's public messages in a thread.
func (h *harness) threadMessages(channel, threadTS string) []fakeslack.Message {
	var out []fakeslack.Message
	for _, m := range h.slack.Messages() {
		if m.Channel == channel && m.ThreadTS == threadTS && !m.Ephemeral && !m.Deleted {
			out = append(out, m)
		}
	}
	return out
}

// queryID reads the Export CSV button's value from an answer.
func queryID(t *testing.T, m fakeslack.Message) string {
	t.Helper()
	var blocks []struct {
		Type     string `json:"type"`
		Elements []struct {
			ActionID string `json:"action_id"`
			Value    string `json:"value"`
		} `json:"elements"`
	}
	require.NoError(t, json.Unmarshal(m.Blocks, &blocks), "answer blocks")
	for _, b := range blocks {
		for _, e := range b.Elements {
			if b.Type == "actions" && e.ActionID == "export_csv" {
				return e.Value
			}
		}
	}
	t.Fatalf("no Export CSV button in %s", m.Blocks)
	return ""
}

// modelCalls is how many times the bot called its model so far.
func (h *harness) modelCalls() int { return len(h.bot.Scripted.Calls()) }

func testLogger(t testing.TB) *slog.Logger {
	if _, bench := t.(*testing.B); bench {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	w := &testWriter{t: t}
	t.Cleanup(func() {
		w.mu.Lock()
		w.closed = true
		w.mu.Unlock()
	})
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// testWriter sends log lines to t.Log, shown only for failing tests, until
// the test's cleanup: a goroutine still winding down must not log into a
// finished test.
type testWriter struct {
	t      testing.TB
	mu     sync.Mutex
	closed bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

// slowDemoScript is the demo script with every model call taking d.
func slowDemoScript(d time.Duration) string {
	return regexp.MustCompile(`(?m)^(\s*)- step: (\w+)\n`).ReplaceAllString(string(demo.Script()), "$1- step: $2\n$1  delay: "+d.String()+"\n")
}
