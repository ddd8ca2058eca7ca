package slackapp

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caarlos0/env/v11"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

// Item 4 of the benchmark suite (issue 6): 200 threads at once against a
// model that takes 500 ms per call. One op is one burst of 200 new
// questions, the demo's seven in turn, each in its own thread. Targets are
// printed, never asserted; a wrong answer is counted in the errors metric.
const (
	loadThreads   = 200
	loadCallDelay = 500 * time.Millisecond
	// loadGoroutineMargin is the difference in goroutines after the bot
	// closes that still counts as no leak. Zero: settledGoroutines waits
	// out stragglers, and a bot left open shows as +2 (its two pools'
	// health checks).
	loadGoroutineMargin = 0
)

// BenchmarkSuiteLoad200 asks through bot.Ask from 200 goroutines: turns/s,
// p50/p99 turn time, errors, the peak RSS of the process during the
// benchmark (VmHWM, reset before the bot starts) and the goroutines left
// once the bot is closed.
func BenchmarkSuiteLoad200(b *testing.B) {
	// Not bottest.Start: the goroutine count and the peak RSS are taken
	// around the bot's whole life.
	cfg := bottest.Config(b, needDB(b), slowDemoScript(loadCallDelay))

	goroutines := runtime.NumGoroutine()
	rssReset := resetPeakRSS()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bt, err := bot.New(ctx, cfg, testLogger(b))
	if err != nil {
		b.Fatalf("new bot: %v", err)
	}
	closeBot := sync.OnceFunc(bt.Close)
	b.Cleanup(closeBot) // when a check fails before the leak check
	questions := demo.Questions()
	var st loadStats
	for b.Loop() {
		st.burst(ctx, bt, questions)
	}
	peakKB := procStatusKB(b, "VmHWM")
	pool := bt.DB().Pool().Stat()
	closeBot()
	leaked := settledGoroutines(goroutines) - goroutines

	st.report(b, "")
	report(b, "non-model", st.waits)
	report(b, "query", st.queries)
	// Time spent waiting for a connection of the bot's own pool (history,
	// cache, saved turns); the reader pool that runs the queries is the
	// executor's and not visible here.
	b.ReportMetric(float64(pool.AcquireDuration().Milliseconds())/float64(len(st.turns)), "db-acquire-ms/turn")
	b.ReportMetric(float64(st.calls)/float64(len(st.turns)), "model-calls/turn")
	b.ReportMetric(float64(peakKB)/1024, "peak-rss-MB")
	b.ReportMetric(float64(leaked), "goroutines-leaked")
	peakNote := "since the bot started"
	if rssReset != nil {
		peakNote = "since the process started: " + rssReset.Error()
	}
	b.Logf("suite load (bot.Ask): %s; peak RSS %.0f MB %s (target < 300 MB: %s); goroutines after close %+d (margin %d: %s)",
		st.summary(), float64(peakKB)/1024, peakNote, loadMet(peakKB < 300*1024),
		leaked, loadGoroutineMargin, loadMet(leaked <= loadGoroutineMargin))
}

// BenchmarkSuiteLoad200Slack sends the same burst as mentions over Socket
// Mode through the fake Slack, with the app's default settings. A turn runs from the
// burst's first envelope to the job's end; it is an error when the thread
// has no answer with an Export CSV button. The goroutine check needs the
// bot closed and is only in BenchmarkSuiteLoad200.
func BenchmarkSuiteLoad200Slack(b *testing.B) {
	rssReset := resetPeakRSS()
	// The harness updates progress after every step for its tests; a
	// deployment updates it at most once a SLACK_PROGRESS_INTERVAL.
	h := start(b, withScript(slowDemoScript(loadCallDelay)), withConfig(func(c *Config) { c.ProgressInterval = defaultProgressInterval(b) }))
	// Channels new to the shared database on every run, or the delivery
	// claims of an earlier run would drop the messages as duplicates.
	run := time.Now().UnixNano()
	questions := demo.Questions()
	var st loadStats
	i := 0
	for b.Loop() {
		channels := make(map[string]bool, loadThreads)
		begin := time.Now()
		for th := range loadThreads {
			ch := fmt.Sprintf("CL%x%04d%03d", run, i, th)
			ts := fmt.Sprintf("17200%05d.%06d", i, th)
			channels[ch] = true
			text := "<@" + fakeslack.BotUserID + "> " + questions[th%len(questions)]
			h.slack.Send(b, fakeslack.Envelope{Type: "events_api", Payload: fakeslack.EventCallback("EvL"+ch+ts, fakeslack.AppMention(ch, user, text, ts, ""))})
		}
		deadline := time.After(2 * time.Minute)
		for range loadThreads {
			select {
			case <-h.doneC:
				st.turns = append(st.turns, time.Since(begin))
			case <-deadline:
				b.Fatalf("only %d of %d threads finished in 2 minutes", len(st.turns)%loadThreads, loadThreads)
			}
		}
		st.wall += time.Since(begin)
		for _, m := range h.slack.Messages() {
			if channels[m.Channel] && !m.Ephemeral && bytes.Contains(m.Blocks, []byte(`"action_id":"export_csv"`)) {
				delete(channels, m.Channel)
			}
		}
		st.errors += len(channels)
		i++
	}
	peakKB := procStatusKB(b, "VmHWM")
	st.report(b, "")
	b.ReportMetric(float64(peakKB)/1024, "peak-rss-MB")
	peakNote := "since the bot started"
	if rssReset != nil {
		peakNote = "since the process started: " + rssReset.Error()
	}
	b.Logf("suite load (Slack, Socket Mode, default settings): %s; peak RSS %.0f MB %s (target < 300 MB: %s)",
		st.summary(), float64(peakKB)/1024, peakNote, loadMet(peakKB < 300*1024))
}

// loadStats collects the turns of every burst.
type loadStats struct {
	turns []time.Duration
	// waits are the turns less their model time (State.LLMTime): the
	// bot's own time, queueing for connections included.
	waits []time.Duration
	// queries are the generated queries' times (State.DBTime): the
	// executor's pool wait and Postgres.
	queries []time.Duration
	wall    time.Duration
	errors  int
	calls   int
}

// burst asks loadThreads questions at once, each in a new thread, and
// waits for all of them.
func (st *loadStats) burst(ctx context.Context, bt *bot.Bot, questions []string) {
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	ready := make(chan struct{})
	for th := range loadThreads {
		wg.Go(func() {
			<-ready
			start := time.Now()
			r, err := bt.Ask(ctx, bot.Message{ThreadID: bot.NewThreadID(), UserID: "ULOAD", ChannelID: "CLOAD", Text: questions[th%len(questions)]})
			d := time.Since(start)
			failed := err != nil || !r.Outcome.OK() || r.QueryID == "" || r.Answer == nil || r.Answer.Rows() == 0
			mu.Lock()
			defer mu.Unlock()
			st.turns = append(st.turns, d)
			if failed {
				st.errors++
			}
			if r.ThreadID != "" {
				st.calls += r.ModelCalls
				st.waits = append(st.waits, d-r.ModelTime)
				st.queries = append(st.queries, r.DBTime)
			}
		})
	}
	begin := time.Now()
	close(ready)
	wg.Wait()
	st.wall += time.Since(begin)
}

// report adds throughput, turn percentiles and errors to the benchmark line.
func (st *loadStats) report(b *testing.B, prefix string) {
	report(b, prefix+"turn", st.turns) // sorts st.turns
	b.ReportMetric(st.rate(), prefix+"turns/s")
	b.ReportMetric(float64(st.errors), prefix+"errors")
}

func (st *loadStats) rate() float64 { return float64(len(st.turns)) / st.wall.Seconds() }

// summary is the part of the one-line summary both load benchmarks share;
// st.turns must be sorted.
func (st *loadStats) summary() string {
	at := func(q float64) float64 {
		return float64(st.turns[min(len(st.turns)-1, int(q*float64(len(st.turns))))].Microseconds()) / 1000
	}
	return fmt.Sprintf("%d threads × %s per model call: %d turns, %.1f turns/s, turn p50 %.0f ms p99 %.0f ms, %d errors (want 0: %s)",
		loadThreads, loadCallDelay, len(st.turns), st.rate(), at(0.50), at(0.99), st.errors, loadMet(st.errors == 0))
}

func loadMet(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT MET"
}

// resetPeakRSS resets the process's VmHWM to its current RSS (Linux 4.0+),
// so a later VmHWM is the peak of what ran since.
func resetPeakRSS() error {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return fmt.Errorf("reset peak RSS: %w", err)
	}
	return nil
}

// procStatusKB reads a "kB" field of /proc/self/status, such as VmHWM.
func procStatusKB(b *testing.B, field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatalf("read /proc/self/status: %v", err)
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				b.Fatalf("parse %s %q: %v", field, v, err)
			}
			return n
		}
	}
	b.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// settledGoroutines waits up to 10 s for the goroutine count to fall to
// want (closed pools stop their goroutines asynchronously) and returns the
// last count.
func settledGoroutines(want int) int {
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		n := runtime.NumGoroutine()
		if n <= want || time.Now().After(deadline) {
			return n
		}
		<-tick.C
	}
}

// defaultProgressInterval is SLACK_PROGRESS_INTERVAL's default.
func defaultProgressInterval(b *testing.B) time.Duration {
	var cfg Config
	if err := env.ParseWithOptions(&cfg, env.Options{Environment: map[string]string{}}); err != nil {
		b.Fatal(err)
	}
	return cfg.ProgressInterval
}
