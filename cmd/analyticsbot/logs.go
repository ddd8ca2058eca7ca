package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/terminal"
)

const logsForm = "logs [--since 24h] [--slow] [--errors] [--feedback] [--user ID] [--ref e-…] [--json] [--limit N]"

// maxShownQuestion is how many characters of a question a line shows.
const maxShownQuestion = 80

// logsCommand prints a summary of the query logs of a time window: volume,
// intents, outcomes, latency percentiles, model use, the slowest questions
// and the top errors.
func logsCommand(ctx context.Context, args []string, out io.Writer) error {
	fs := newFlagSet("logs")
	since := sinceFlag(24 * time.Hour)
	fs.Var(&since, "since", "the window: a Go duration (90m, 24h) or days (7d)")
	slow := fs.Bool("slow", false, "show only the slowest questions")
	onlyErrors := fs.Bool("errors", false, "show only the top errors")
	onlyFeedback := fs.Bool("feedback", false, "show only the feedback: 👍/👎 per day, the most 👎'd questions")
	asJSON := fs.Bool("json", false, "print one JSON object")
	limit := fs.Int("limit", 10, "how many slowest questions and errors to show")
	user := fs.String("user", "", "list one user's turns instead (a Slack user ID, web, cli), newest first")
	ref := fs.String("ref", "", "show the failure a user was given this reference for (e-3f9a1c2b)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %s: %v", errUsage, logsForm, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: %s: unexpected argument %q", errUsage, logsForm, fs.Arg(0))
	}
	if *limit < 1 {
		return fmt.Errorf("%w: %s: --limit must be at least 1, got %d", errUsage, logsForm, *limit)
	}
	db, err := openLogs(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if *user != "" || *ref != "" {
		turns, err := db.QueryLogs(ctx, store.QueryLogFilter{Since: time.Duration(since), UserID: *user, ErrorRef: *ref, Limit: *limit})
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(out)
			enc.SetIndent("", "  ")
			return enc.Encode(turnsToJSON(turns))
		}
		return printTurns(out, time.Duration(since), *user, *ref, turns)
	}
	sum, err := db.SummarizeQueryLogs(ctx, time.Duration(since), *limit)
	if err != nil {
		return err
	}
	only := *slow || *onlyErrors || *onlyFeedback
	sec := logSections{summary: !only, slow: !only || *slow, errors: !only || *onlyErrors, feedback: !only || *onlyFeedback}
	var fb store.FeedbackReport
	if sec.feedback {
		if fb, err = db.Feedback(ctx, time.Duration(since), *limit); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		j := logsToJSON(time.Duration(since), sum, sec)
		if sec.feedback {
			j.Feedback = feedbackToJSON(fb)
		}
		return enc.Encode(j)
	}
	if err := printLogs(out, time.Duration(since), sum, sec); err != nil {
		return err
	}
	// The whole summary shows feedback when there is some; --feedback
	// says so when there is none.
	if sec.feedback && (*onlyFeedback || len(fb.Days) > 0) {
		return printFeedback(out, fb)
	}
	return nil
}

// logsEnv is what `logs` reads of the environment: the bot's database
// alone, so that a bad model setting does not stop anyone from reading the
// logs. The variables mean what they mean to bot.Config.
type logsEnv struct {
	DatabaseURL     string        `env:"DATABASE_URL"`
	BotSchema       string        `env:"BOT_SCHEMA"`
	DatabaseTimeout time.Duration `env:"DATABASE_TIMEOUT" envDefault:"10s"`
}

// openLogs opens the store as the other commands do, in BOT_SCHEMA (where
// this deployment's turns are, not another's in the same database) with
// DATABASE_TIMEOUT.
func openLogs(ctx context.Context) (*store.DB, error) {
	var e logsEnv
	if err := bot.ParseEnv(&e); err != nil {
		return nil, fmt.Errorf("read configuration: %w", err)
	}
	if e.DatabaseURL == "" {
		e.DatabaseURL = bot.DefaultDatabaseURL
	}
	if e.BotSchema = strings.TrimSpace(e.BotSchema); e.BotSchema == "" {
		e.BotSchema = store.DefaultSchema
	}
	if e.DatabaseTimeout <= 0 {
		return nil, fmt.Errorf("DATABASE_TIMEOUT must be a duration above 0, such as 10s, got %s", e.DatabaseTimeout)
	}
	return store.Open(ctx, e.DatabaseURL, store.WithSchema(e.BotSchema), store.WithTimeout(e.DatabaseTimeout))
}

// sinceFlag is a positive duration that also accepts whole days ("7d").
type sinceFlag time.Duration

func (s *sinceFlag) String() string { return humanDuration(time.Duration(*s)) }

func (s *sinceFlag) Set(v string) error {
	d, err := time.ParseDuration(v)
	if days, ok := strings.CutSuffix(v, "d"); ok {
		var n int
		n, err = strconv.Atoi(days)
		d = time.Duration(n) * 24 * time.Hour
	}
	if err != nil || d <= 0 {
		return fmt.Errorf("want a positive duration such as 90m, 24h or 7d, got %q", v)
	}
	*s = sinceFlag(d)
	return nil
}

var _ flag.Value = (*sinceFlag)(nil)

// logSections says which parts of the summary to show.
type logSections struct{ summary, slow, errors, feedback bool }

// logsJSON is the one JSON object `logs --json` prints. With --slow or
// --errors only the chosen lists follow the window and the turn count.
type logsJSON struct {
	Since string    `json:"since"`
	From  time.Time `json:"from"`
	Turns int       `json:"turns"`
	*logSummaryJSON
	Slowest  *[]logTurnJSON  `json:"slowest,omitempty"`
	Errors   *[]logErrorJSON `json:"errors,omitempty"`
	Feedback *feedbackJSON   `json:"feedback,omitempty"`
}

type feedbackJSON struct {
	Up       int               `json:"up"`
	Down     int               `json:"down"`
	Days     []feedbackDayJSON `json:"days"`
	MostDown []downvotedJSON   `json:"most_down"`
}

type feedbackDayJSON struct {
	Day  string `json:"day"`
	Up   int    `json:"up"`
	Down int    `json:"down"`
}

type downvotedJSON struct {
	Question string    `json:"question"`
	Up       int       `json:"up"`
	Down     int       `json:"down"`
	Notes    []string  `json:"notes"`
	Last     time.Time `json:"last"`
}

func feedbackToJSON(r store.FeedbackReport) *feedbackJSON {
	j := &feedbackJSON{Up: r.Up, Down: r.Down, Days: []feedbackDayJSON{}, MostDown: []downvotedJSON{}}
	for _, d := range r.Days {
		j.Days = append(j.Days, feedbackDayJSON{Day: d.Day.Format(time.DateOnly), Up: d.Up, Down: d.Down})
	}
	for _, q := range r.MostDown {
		j.MostDown = append(j.MostDown, downvotedJSON(q))
	}
	return j
}

// printFeedback writes the feedback section: 👍/👎 per day, then the
// questions with the most 👎 and what their users said was wrong.
func printFeedback(out io.Writer, r store.FeedbackReport) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("\nFeedback\t%7s\t%7s\n", "👍", "👎")
	if len(r.Days) == 0 {
		p("  none\n")
		return w.Flush()
	}
	for _, d := range r.Days {
		p("  %s\t%7d\t%7d\n", d.Day.Format(time.DateOnly), d.Up, d.Down)
	}
	p("\nMost 👎\n")
	if len(r.MostDown) == 0 {
		p("  none\n")
	}
	for _, q := range r.MostDown {
		p("  %3d 👎  %3d 👍\t%s\n", q.Down, q.Up, quoteQuestion(q.Question))
		for _, n := range q.Notes {
			p("    note:\t%s\n", quoteQuestion(n))
		}
	}
	return w.Flush()
}

type logSummaryJSON struct {
	ByIntent  []intentCountJSON  `json:"by_intent"`
	ByOutcome []outcomeCountJSON `json:"by_outcome"`
	TotalMS   percentilesJSON    `json:"total_ms"`
	ModelMS   percentilesJSON    `json:"model_ms"`
	DBMS      percentilesJSON    `json:"db_ms"`
	Nodes     []nodeLatencyJSON  `json:"nodes"`
	Model     modelUseJSON       `json:"model"`
}

type intentCountJSON struct {
	Intent string `json:"intent"`
	Turns  int    `json:"turns"`
}

type outcomeCountJSON struct {
	Outcome string `json:"outcome"`
	Turns   int    `json:"turns"`
}

type percentilesJSON struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
}

type nodeLatencyJSON struct {
	Node  string  `json:"node"`
	Turns int     `json:"turns"`
	P50MS float64 `json:"p50_ms"`
	P95MS float64 `json:"p95_ms"`
}

type modelUseJSON struct {
	Calls                   int64   `json:"calls"`
	PromptTokens            int64   `json:"prompt_tokens"`
	CompletionTokens        int64   `json:"completion_tokens"`
	CallsPerTurn            float64 `json:"calls_per_turn"`
	PromptTokensPerTurn     float64 `json:"prompt_tokens_per_turn"`
	CompletionTokensPerTurn float64 `json:"completion_tokens_per_turn"`
}

type logTurnJSON struct {
	ID         int64     `json:"id"`
	CreatedAt  time.Time `json:"created_at"`
	Question   string    `json:"question"`
	ThreadID   string    `json:"thread_id"`
	Intent     string    `json:"intent"`
	ErrorKind  string    `json:"error_kind"`
	Backend    string    `json:"backend"`
	Path       []string  `json:"path"`
	ModelCalls int       `json:"model_calls"`
	RowCount   int       `json:"row_count"`
	TotalMS    float64   `json:"total_ms"`
	ModelMS    float64   `json:"model_ms"`
	DBMS       float64   `json:"db_ms"`
}

type logErrorJSON struct {
	Kind           string    `json:"kind"`
	Turns          int       `json:"turns"`
	LatestQuestion string    `json:"latest_question"`
	LatestAt       time.Time `json:"latest_at"`
	LatestRef      string    `json:"latest_ref,omitempty"`
	LatestDetail   string    `json:"latest_detail,omitempty"`
}

// userTurnJSON is a turn of `logs --user` / `--ref`.
type userTurnJSON struct {
	logTurnJSON
	UserID      string `json:"user_id"`
	ChannelID   string `json:"channel_id"`
	Policy      string `json:"policy,omitempty"`
	Role        string `json:"db_role,omitempty"`
	ErrorRef    string `json:"error_ref,omitempty"`
	ErrorDetail string `json:"error_detail,omitempty"`
}

func turnsToJSON(turns []store.QueryLog) []userTurnJSON {
	out := make([]userTurnJSON, 0, len(turns))
	for _, l := range turns {
		out = append(out, userTurnJSON{
			logTurnJSON: logTurnJSON{ID: l.ID, CreatedAt: l.CreatedAt, Question: l.Question, ThreadID: l.ThreadID, Intent: l.Intent,
				ErrorKind: l.ErrorKind, Backend: l.Backend, Path: l.Path, ModelCalls: l.ModelCalls,
				RowCount: l.RowCount, TotalMS: ms(l.Total), ModelMS: ms(l.ModelTime), DBMS: ms(l.DBTime)},
			UserID: l.UserID, ChannelID: l.ChannelID, Policy: l.Policy, Role: l.Role, ErrorRef: l.ErrorRef, ErrorDetail: l.ErrorDetail,
		})
	}
	return out
}

// printTurns lists turns, newest first: when, where, what was asked and
// how it ended, with a failure's reference and detail under it.
func printTurns(out io.Writer, since time.Duration, user, ref string, turns []store.QueryLog) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	who := "user " + user
	if ref != "" {
		who = "reference " + ref
	}
	if len(turns) == 0 {
		fmt.Fprintf(w, "No turns of %s in the last %s.\n", who, humanDuration(since))
		if ref != "" {
			// The bot writes a failure's record once its database is
			// back; one that stopped first has it in its log alone.
			fmt.Fprintf(w, "A failure while the bot's database was away reaches the query log once it is back. "+
				"Until then, or when the bot stopped first, only the bot's log (stderr) has it: look for ref=%s.\n", ref)
		}
		return w.Flush()
	}
	fmt.Fprintf(w, "Turns of %s in the last %s, newest first\n", who, humanDuration(since))
	for _, l := range turns {
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\t%s\t%s\n", shortTime(l.CreatedAt), orNone(l.ChannelID), orNone(l.Policy), orNone(l.Intent),
			outcome(l.ErrorKind), quoteQuestion(l.Question))
		if l.ErrorRef != "" || l.ErrorDetail != "" {
			fmt.Fprintf(w, "    %s\n", errorLine(l.ErrorRef, l.ErrorDetail))
		}
	}
	return w.Flush()
}

// errorLine is a failure's reference and detail on one line, inert on a
// terminal: a detail quotes what a query wrote (a column named
// "\x1b]0;…\a" by an MCP caller's run_query), which must not retitle or
// blank the operator's terminal.
func errorLine(ref, detail string) string {
	detail = terminal.Inert(strings.Join(strings.Fields(detail), " "))
	if r := []rune(detail); len(r) > 400 {
		detail = string(r[:399]) + "…"
	}
	switch {
	case ref == "":
		return detail
	case detail == "":
		return ref
	}
	return ref + ": " + detail
}

func logsToJSON(since time.Duration, sum store.QueryLogSummary, sec logSections) logsJSON {
	j := logsJSON{Since: humanDuration(since), From: sum.From, Turns: sum.Turns}
	if sec.summary {
		s := &logSummaryJSON{
			ByIntent: []intentCountJSON{}, ByOutcome: []outcomeCountJSON{}, Nodes: []nodeLatencyJSON{},
			TotalMS: percentilesMS(sum.Total), ModelMS: percentilesMS(sum.Model), DBMS: percentilesMS(sum.Database),
			Model: modelUseJSON{
				Calls: sum.ModelCalls, PromptTokens: sum.PromptTokens, CompletionTokens: sum.CompletionTokens,
				CallsPerTurn:            perTurn(sum.ModelCalls, sum.Turns),
				PromptTokensPerTurn:     perTurn(sum.PromptTokens, sum.Turns),
				CompletionTokensPerTurn: perTurn(sum.CompletionTokens, sum.Turns),
			},
		}
		for _, c := range sum.ByIntent {
			s.ByIntent = append(s.ByIntent, intentCountJSON{Intent: c.Label, Turns: c.Turns})
		}
		for _, c := range sum.ByOutcome {
			s.ByOutcome = append(s.ByOutcome, outcomeCountJSON{Outcome: c.Label, Turns: c.Turns})
		}
		for _, n := range sum.Nodes {
			s.Nodes = append(s.Nodes, nodeLatencyJSON{Node: n.Node, Turns: n.Turns, P50MS: ms(n.P50), P95MS: ms(n.P95)})
		}
		j.logSummaryJSON = s
	}
	if sec.slow {
		slowest := make([]logTurnJSON, 0, len(sum.Slowest))
		for _, l := range sum.Slowest {
			slowest = append(slowest, logTurnJSON{
				ID: l.ID, CreatedAt: l.CreatedAt, Question: l.Question, ThreadID: l.ThreadID, Intent: l.Intent,
				ErrorKind: l.ErrorKind, Backend: l.Backend, Path: l.Path, ModelCalls: l.ModelCalls,
				RowCount: l.RowCount, TotalMS: ms(l.Total), ModelMS: ms(l.ModelTime), DBMS: ms(l.DBTime),
			})
		}
		j.Slowest = &slowest
	}
	if sec.errors {
		errs := make([]logErrorJSON, 0, len(sum.Errors))
		for _, e := range sum.Errors {
			errs = append(errs, logErrorJSON(e))
		}
		j.Errors = &errs
	}
	return j
}

// printLogs writes the summary for people, one aligned table per section.
// Numbers have fixed widths so that they line up on the right while the
// labels line up on the left.
func printLogs(out io.Writer, since time.Duration, sum store.QueryLogSummary, sec logSections) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	if sum.Turns == 0 {
		p("No turns logged in the last %s.\n", humanDuration(since))
		return w.Flush()
	}
	p("%d turns in the last %s (since %s)\n", sum.Turns, humanDuration(since), shortTime(sum.From))
	if sec.summary {
		p("\nBy intent\n")
		for _, c := range sum.ByIntent {
			p("  %s\t%7d\n", orNone(c.Label), c.Turns)
		}
		p("\nBy outcome\n")
		for _, c := range sum.ByOutcome {
			p("  %s\t%7d\n", c.Label, c.Turns)
		}
		p("\nTime (ms)\t%9s\t%9s\t%7s\n", "p50", "p95", "turns")
		p("  total\t%9.1f\t%9.1f\t%7d\n", ms(sum.Total.P50), ms(sum.Total.P95), sum.Turns)
		p("  model\t%9.1f\t%9.1f\n", ms(sum.Model.P50), ms(sum.Model.P95))
		p("  database\t%9.1f\t%9.1f\n", ms(sum.Database.P50), ms(sum.Database.P95))
		for _, n := range sum.Nodes {
			p("  %s\t%9.1f\t%9.1f\t%7d\n", n.Node, ms(n.P50), ms(n.P95), n.Turns)
		}
		p("\nModel use\t%9s\t%9s\n", "total", "per turn")
		p("  calls\t%9d\t%9.1f\n", sum.ModelCalls, perTurn(sum.ModelCalls, sum.Turns))
		p("  prompt tokens\t%9d\t%9.1f\n", sum.PromptTokens, perTurn(sum.PromptTokens, sum.Turns))
		p("  completion tokens\t%9d\t%9.1f\n", sum.CompletionTokens, perTurn(sum.CompletionTokens, sum.Turns))
	}
	if sec.slow {
		p("\nSlowest questions\n")
		for _, l := range sum.Slowest {
			p("  %9.1f ms\t%s\t%s\t%s\t%s\n", ms(l.Total), orNone(l.Intent), outcome(l.ErrorKind),
				shortTime(l.CreatedAt), quoteQuestion(l.Question))
		}
	}
	if sec.errors {
		p("\nTop errors\n")
		if len(sum.Errors) == 0 {
			p("  none\n")
		}
		for _, e := range sum.Errors {
			p("  %s\t%7d\tlatest %s\t%s\n", e.Kind, e.Turns, shortTime(e.LatestAt), quoteQuestion(e.LatestQuestion))
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if sec.errors {
		// What went wrong last time, under the table: a long detail must
		// not widen its columns.
		var details []string
		for _, e := range sum.Errors {
			if e.LatestRef != "" || e.LatestDetail != "" {
				details = append(details, "  "+e.Kind+": "+errorLine(e.LatestRef, e.LatestDetail))
			}
		}
		if len(details) > 0 {
			fmt.Fprintf(out, "\nLatest failure of each kind\n%s\n", strings.Join(details, "\n"))
		}
	}
	return nil
}

// humanDuration writes d without trailing zero units: 24h, 90m, 7d (days
// from two on: "the last 24h" reads better than "the last 1d").
func humanDuration(d time.Duration) string {
	if d%(24*time.Hour) == 0 && d >= 48*time.Hour {
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func shortTime(t time.Time) string { return t.Local().Format("2006-01-02 15:04 MST") }

func percentilesMS(p store.Percentiles) percentilesJSON {
	return percentilesJSON{P50: ms(p.P50), P95: ms(p.P95)}
}

func perTurn(n int64, turns int) float64 {
	if turns == 0 {
		return 0
	}
	return float64(n) / float64(turns)
}

// orNone names an empty intent: the router refused the message before
// classifying it.
func orNone(intent string) string {
	if intent == "" {
		return "(none)"
	}
	return intent
}

func outcome(errorKind string) string {
	if errorKind == "" {
		return store.OutcomeOK
	}
	return errorKind
}

// quoteQuestion shows a question on one line, cut to maxShownQuestion
// characters.
func quoteQuestion(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if utf8.RuneCountInString(q) > maxShownQuestion {
		q = string([]rune(q)[:maxShownQuestion-1]) + "…"
	}
	return strconv.Quote(q)
}
