package bot_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
)

// The benchmarks measure what the workflow itself costs per message: the
// model is the offline demo's scripted model with no delays, so every
// nanosecond left is routing, prompts, validation, Postgres round trips
// (the real query on the demo data, the cache, the saved turn) and
// formatting. Each benchmark sets up once (b.Loop runs its function once).

// benchQuestion is the demo's first question and its answer on the demo data.
const (
	benchQuestion = "How many games were released in 2018?"
	benchFollowUp = "And in 2017?"
	benchOffTopic = "Tell me a joke about databases"
	benchCSV2018  = "games\n8160\n"
)

// benchBot builds a bot on e's database that answers with the demo's
// scripted model (no delays), whatever keys the environment holds.
func benchBot(tb testing.TB, e *testEnv) *bot.Bot {
	tb.Helper()
	b := bottest.Start(tb, bottest.Config(tb, e.url, ""), bottest.Discard())
	if !b.Demo {
		tb.Fatalf("got model %s, want the demo's scripted model", b.ModelName)
	}
	return b
}

// benchCheck fails the benchmark when a message was not answered as a user
// expects, so a broken workflow cannot post fast numbers.
func benchCheck(b *testing.B, s *nodes.State, err error, want nodes.Intent) {
	if err != nil {
		b.Fatalf("run: %v", err)
	}
	if s.ErrorKind != "" || s.Intent != want {
		b.Fatalf("got intent %q, error %q (%s), want intent %q without error", s.Intent, s.ErrorKind, s.ResponseText, want)
	}
}

// benchLatencies collects per-message durations for percentiles: the whole
// message, and the overhead, which leaves out the generated query's own run
// time in Postgres (State.DBTime): that depends on the data and the
// question, not on the bot. Cache writes, history and turns stay in.
type benchLatencies struct {
	total, overhead []time.Duration
	calls           int
}

func (l *benchLatencies) add(start time.Time, s *nodes.State) {
	d := time.Since(start)
	l.total = append(l.total, d)
	l.overhead = append(l.overhead, d-s.DBTime)
	l.calls += s.LLMCalls
}

// report adds llm_calls/op and the percentiles in milliseconds to the
// benchmark's line.
func (l *benchLatencies) report(b *testing.B) {
	if len(l.total) == 0 {
		return
	}
	b.ReportMetric(float64(l.calls)/float64(len(l.total)), "llm_calls/op")
	for _, m := range []struct {
		name string
		d    []time.Duration
	}{{"", l.total}, {"overhead-", l.overhead}} {
		slices.Sort(m.d)
		for _, p := range []struct {
			unit string
			q    float64
		}{{"p50-ms", 0.50}, {"p99-ms", 0.99}} {
			i := int(p.q * float64(len(m.d)-1))
			b.ReportMetric(float64(m.d[i].Nanoseconds())/1e6, m.name+p.unit)
		}
	}
}

// benchSeedThread asks benchQuestion in a new thread and returns the thread
// and the query id on its buttons.
func benchSeedThread(b *testing.B, bt *bot.Bot) (thread, queryID string) {
	b.Helper()
	s, _, err := bt.AskState(context.Background(), bot.Message{UserID: "bench", ChannelID: "bench", Text: benchQuestion})
	benchCheck(b, s, err, nodes.IntentAnalytics)
	if s.QueryID == "" {
		b.Fatalf("got no query id for %q", benchQuestion)
	}
	return s.ThreadTS, s.QueryID
}

// BenchmarkAskNewQuestion asks the demo's questions in turn, each in a new
// thread: classify, generate, validate, execute, interpret, format, save.
func BenchmarkAskNewQuestion(b *testing.B) {
	bt := benchBot(b, newEnv(b))
	ctx := context.Background()
	questions := demo.Questions()
	var lat benchLatencies
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		start := time.Now()
		s, _, err := bt.AskState(ctx, bot.Message{UserID: "bench", ChannelID: "bench", Text: questions[i%len(questions)]})
		lat.add(start, s)
		benchCheck(b, s, err, nodes.IntentAnalytics)
		bt.Scripted.Reset() // the recorded prompts would otherwise pile up
		i++
	}
	lat.report(b)
}

// BenchmarkAskNewQuestionWithAccess is BenchmarkAskNewQuestion under an
// access policy (ACCESS_FILE): admission, the catalog filtered for the
// policy, the guard's table and column rules, examples checked against
// the policy. Its difference from BenchmarkAskNewQuestion is what access
// control costs a question.
func BenchmarkAskNewQuestionWithAccess(b *testing.B) {
	e := newEnv(b)
	path := filepath.Join(b.TempDir(), "access.yaml")
	if err := os.WriteFile(path, []byte(`
policies:
  - name: analysts
    tables: ["analytics.*"]
    deny_tables: ["analytics.developers"]
    deny_columns: ["analytics.apps.achievements"]
    mask_columns: ["analytics.apps.required_age"]
default: analysts
`), 0o600); err != nil {
		b.Fatal(err)
	}
	cfg := bottest.Config(b, e.url, "")
	cfg.AccessFile = path
	bt := bottest.Start(b, cfg, bottest.Discard())
	ctx := context.Background()
	questions := demo.Questions()
	var lat benchLatencies
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		start := time.Now()
		s, _, err := bt.AskState(ctx, bot.Message{UserID: "bench", ChannelID: "bench", Text: questions[i%len(questions)]})
		lat.add(start, s)
		benchCheck(b, s, err, nodes.IntentAnalytics)
		if s.Policy != "analysts" {
			b.Fatalf("asked under policy %q, want analysts", s.Policy)
		}
		bt.Scripted.Reset()
		i++
	}
	lat.report(b)
}

// BenchmarkContextDemo builds what the query generator is shown for a new
// question on the demo data, as every question does before the model is
// called: the catalog, the lookup of its names among the 59,622 indexed
// values, and the choice of tables (bot.Context, `analyticsbot context`).
func BenchmarkContextDemo(b *testing.B) {
	bt := benchBot(b, newEnv(b))
	ctx := context.Background()
	if _, err := bt.RefreshValueIndex(ctx); err != nil {
		b.Fatalf("value index: %v", err)
	}
	var lat []time.Duration
	var c bot.GeneratorContext
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		var err error
		c, err = bt.Context(ctx, bot.Message{UserID: "bench", ChannelID: "bench", Text: "How many games did Ubisoft Shanghai release in 2018?"})
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatalf("context: %v", err)
		}
	}
	if !slices.ContainsFunc(c.State.Matches, func(m store.ValueMatch) bool { return m.Value == "Ubisoft  Shanghaï" }) {
		b.Fatalf("the lookup missed 'Ubisoft  Shanghaï': %v", c.State.Matches)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}

// BenchmarkAskFollowUp asks "And in 2017?" after the 2018 question, each
// pair in a new thread; only the follow-up is timed.
func BenchmarkAskFollowUp(b *testing.B) {
	bt := benchBot(b, newEnv(b))
	ctx := context.Background()
	var lat benchLatencies
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		thread, _ := benchSeedThread(b, bt)
		b.StartTimer()
		start := time.Now()
		s, _, err := bt.AskState(ctx, bot.Message{ThreadID: thread, UserID: "bench", ChannelID: "bench", Text: benchFollowUp})
		lat.add(start, s)
		benchCheck(b, s, err, nodes.IntentFollowUp)
		bt.Scripted.Reset()
	}
	lat.report(b)
}

// BenchmarkPressExportCSV presses the export button of a fresh answer, so
// the rows come from the in-memory cache.
func BenchmarkPressExportCSV(b *testing.B) {
	bt := benchBot(b, newEnv(b))
	ctx := context.Background()
	thread, qid := benchSeedThread(b, bt)
	var lat benchLatencies
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		s, _, err := bt.PressState(ctx, bot.Message{ThreadID: thread, UserID: "bench", ChannelID: "bench"}, string(nodes.IntentExportCSV), qid)
		lat.add(start, s)
		benchCheck(b, s, err, nodes.IntentExportCSV)
		if string(s.CSVContent) != benchCSV2018 {
			b.Fatalf("got CSV %q, want %q", s.CSVContent, benchCSV2018)
		}
	}
	lat.report(b)
}

// BenchmarkPressShowSQL presses the show-SQL button of an earlier answer.
func BenchmarkPressShowSQL(b *testing.B) {
	bt := benchBot(b, newEnv(b))
	ctx := context.Background()
	thread, qid := benchSeedThread(b, bt)
	var lat benchLatencies
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		s, _, err := bt.PressState(ctx, bot.Message{ThreadID: thread, UserID: "bench", ChannelID: "bench"}, string(nodes.IntentShowSQL), qid)
		lat.add(start, s)
		benchCheck(b, s, err, nodes.IntentShowSQL)
		if s.Query.Text == "" {
			b.Fatal("got no SQL, want the 2018 question's SQL")
		}
	}
	lat.report(b)
}

// BenchmarkPressFeedbackUp rates an earlier answer 👍, alternating between
// and 👎 in turn so that every press changes the stored rating (a 👍
// proposes the example again: it is found, not added).
func BenchmarkPressFeedbackUp(b *testing.B) {
	bt := benchBot(b, newEnv(b))
	ctx := context.Background()
	thread, qid := benchSeedThread(b, bt)
	var lat benchLatencies
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		action := bot.ActionFeedbackUp
		if i%2 == 1 {
			action = bot.ActionFeedbackDown
		}
		i++
		start := time.Now()
		s, _, err := bt.PressState(ctx, bot.Message{ThreadID: thread, UserID: "bench", ChannelID: "bench"}, action, qid)
		lat.add(start, s)
		benchCheck(b, s, err, nodes.IntentFeedback)
	}
	lat.report(b)
}

// BenchmarkAskOffTopic asks something that is not a data question: one
// classification, then a polite refusal.
func BenchmarkAskOffTopic(b *testing.B) {
	bt := benchBot(b, newEnv(b))
	ctx := context.Background()
	var lat benchLatencies
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		s, _, err := bt.AskState(ctx, bot.Message{UserID: "bench", ChannelID: "bench", Text: benchOffTopic})
		lat.add(start, s)
		benchCheck(b, s, err, nodes.IntentOffTopic)
		bt.Scripted.Reset()
	}
	lat.report(b)
}

// TestModelCallsPerIntent holds each intent to its model call budget: a new
// question or a follow-up at most 3 (classify, generate, interpret) when the
// first query works, and one more for each regeneration after a query that
// fails (up to SQL_MAX_RETRIES, 2 by default), buttons and typed action
// phrases none, an off-topic message exactly 1. Calls are counted both as
// the workflow reports them and as the model received them.
func TestModelCallsPerIntent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// invalidSQL is a generator reply whose query fails validation: the
	// column does not exist.
	invalidSQL := func(times int) string {
		return fmt.Sprintf("  - step: generate_sql\n    times: %d\n    reply: '{\"sql\": \"%s\", \"assumptions\": [], \"explanation\": \"Counts games.\"}'\n", times, badSQL)
	}
	tests := []struct {
		name string
		// rules, when set, are played before the tests' base rules instead
		// of the demo's script.
		rules string
		// setup is asked first in the same thread; its answer's query id is
		// what press presses.
		setup      string
		ask        string
		press      string
		wantIntent nodes.Intent
		minCalls   int
		maxCalls   int
		// wantRows is the expected result when the demo data pins it down.
		wantRows [][]any
	}{
		{name: "new 2018 count", ask: benchQuestion, wantIntent: nodes.IntentAnalytics, minCalls: 1, maxCalls: 3, wantRows: [][]any{{int64(8160)}}},
		{name: "new positive ratings", ask: demo.Questions()[1], wantIntent: nodes.IntentAnalytics, minCalls: 1, maxCalls: 3},
		{name: "new publishers", ask: demo.Questions()[2], wantIntent: nodes.IntentAnalytics, minCalls: 1, maxCalls: 3},
		{name: "new price by genre", ask: demo.Questions()[3], wantIntent: nodes.IntentAnalytics, minCalls: 1, maxCalls: 3},
		{name: "new per year", ask: demo.Questions()[4], wantIntent: nodes.IntentAnalytics, minCalls: 1, maxCalls: 3},
		{name: "new free", ask: demo.Questions()[5], wantIntent: nodes.IntentAnalytics, minCalls: 1, maxCalls: 3},
		{name: "new linux", ask: demo.Questions()[6], wantIntent: nodes.IntentAnalytics, minCalls: 1, maxCalls: 3},
		{name: "new, first query invalid", rules: invalidSQL(1), ask: benchQuestion, wantIntent: nodes.IntentAnalytics, minCalls: 4, maxCalls: 4, wantRows: [][]any{{int64(8160)}}},
		{name: "new, two queries invalid", rules: invalidSQL(2), ask: benchQuestion, wantIntent: nodes.IntentAnalytics, minCalls: 5, maxCalls: 5, wantRows: [][]any{{int64(8160)}}},
		{name: "follow-up and in", setup: benchQuestion, ask: benchFollowUp, wantIntent: nodes.IntentFollowUp, minCalls: 1, maxCalls: 3, wantRows: [][]any{{int64(6357)}}},
		{name: "follow-up what about", setup: benchQuestion, ask: "What about 2017?", wantIntent: nodes.IntentFollowUp, minCalls: 1, maxCalls: 3, wantRows: [][]any{{int64(6357)}}},
		{name: "follow-up how about", setup: benchQuestion, ask: "How about 2016?", wantIntent: nodes.IntentFollowUp, minCalls: 1, maxCalls: 3},
		{name: "button export csv", setup: benchQuestion, press: string(nodes.IntentExportCSV), wantIntent: nodes.IntentExportCSV, wantRows: [][]any{{int64(8160)}}},
		{name: "button show sql", setup: benchQuestion, press: string(nodes.IntentShowSQL), wantIntent: nodes.IntentShowSQL},
		{name: "typed export", setup: benchQuestion, ask: "Export that as CSV please", wantIntent: nodes.IntentExportCSV, wantRows: [][]any{{int64(8160)}}},
		{name: "typed show sql", setup: benchQuestion, ask: "show me the SQL", wantIntent: nodes.IntentShowSQL},
		{name: "off-topic joke", ask: benchOffTopic, wantIntent: nodes.IntentOffTopic, minCalls: 1, maxCalls: 1},
		{name: "off-topic greeting", ask: "hello there", wantIntent: nodes.IntentOffTopic, minCalls: 1, maxCalls: 1},
		{name: "off-topic weather", ask: "What is the weather in Paris?", wantIntent: nodes.IntentOffTopic, minCalls: 1, maxCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			// Each case has its own scripted model, so counts are this case's.
			var bt *bot.Bot
			if tt.rules != "" {
				bt = newBot(t, e, script(tt.rules))
			} else {
				bt = benchBot(t, e)
			}
			m := bot.Message{ThreadID: bot.NewThreadID(), UserID: "test", ChannelID: "test", Text: tt.ask}
			var qid string
			if tt.setup != "" {
				s, _, err := bt.AskState(ctx, bot.Message{ThreadID: m.ThreadID, UserID: "test", ChannelID: "test", Text: tt.setup})
				if err != nil || s.ErrorKind != "" || s.QueryID == "" {
					t.Fatalf("setup %q: got error %v, kind %q, query id %q; want an answer", tt.setup, err, s.ErrorKind, s.QueryID)
				}
				qid = s.QueryID
				bt.Scripted.Reset()
			}

			var (
				s   *nodes.State
				err error
			)
			if tt.press != "" {
				m.Text = ""
				s, _, err = bt.PressState(ctx, m, tt.press, qid)
			} else {
				s, _, err = bt.AskState(ctx, m)
			}
			if err != nil {
				t.Fatalf("got error %v, want an answer", err)
			}
			if s.ErrorKind != "" || s.Intent != tt.wantIntent {
				t.Fatalf("got intent %q, error %q (%s); want intent %q without error", s.Intent, s.ErrorKind, s.ResponseText, tt.wantIntent)
			}
			got := len(bt.Scripted.Calls())
			if got != s.LLMCalls {
				t.Errorf("got %d calls at the model, but the workflow reports %d", got, s.LLMCalls)
			}
			if got < tt.minCalls || got > tt.maxCalls {
				t.Errorf("got %d model calls, want %d to %d", got, tt.minCalls, tt.maxCalls)
			}
			if tt.wantIntent != nodes.IntentOffTopic && tt.wantIntent != nodes.IntentShowSQL && s.Result.RowCount == 0 {
				t.Errorf("got no rows, want an answer with rows")
			}
			if tt.wantRows != nil && !slices.EqualFunc(s.Result.Rows, tt.wantRows, slices.Equal[[]any]) {
				t.Errorf("got rows %v, want %v", s.Result.Rows, tt.wantRows)
			}
		})
	}
}
