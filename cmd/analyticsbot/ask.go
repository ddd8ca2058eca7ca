package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/terminal"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// openBot reads the configuration and connects.
func openBot(ctx context.Context) (*bot.Bot, error) {
	cfg, err := bot.ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	return bot.New(ctx, cfg, slog.Default())
}

func ask(ctx context.Context, args []string, out io.Writer) error {
	fs := newFlagSet("ask")
	thread := fs.String("thread", "", "continue the conversation in this thread")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: ask [--thread ID] [--json] QUESTION: %v", errUsage, err)
	}
	question := strings.Join(fs.Args(), " ")
	if question == "" {
		return fmt.Errorf("%w: ask [--thread ID] [--json] QUESTION: the question is missing", errUsage)
	}
	b, err := openBot(ctx)
	if err != nil {
		return err
	}
	defer b.Close()
	m := bot.Message{ThreadID: *thread, UserID: "cli", ChannelID: "cli", Text: question}
	if *asJSON {
		s, res, err := b.AskState(ctx, m)
		return reportJSON(out, b, s, res, err)
	}
	r, err := b.Ask(ctx, m)
	return report(out, b, r, err)
}

// pressActions are the buttons `press` is documented to press (README);
// the bot knows more (the schedule form's), which only Slack sends.
var pressActions = []string{
	string(nodes.IntentExportCSV), string(nodes.IntentShowSQL), string(nodes.IntentRefresh), nodes.ActionSchedule,
	bot.ActionFeedbackUp, bot.ActionFeedbackDown, bot.ActionVerify,
}

func press(ctx context.Context, args []string, out io.Writer) error {
	form := "press --thread ID --action " + strings.Join(pressActions, "|") + " --value QUERY_ID [--user ID] [--note TEXT] [--json]"
	fs := newFlagSet("press")
	thread := fs.String("thread", "", "the thread of the answer")
	action := fs.String("action", "", strings.Join(pressActions, ", "))
	value := fs.String("value", "", "the query id on the button")
	user := fs.String("user", "cli", "who presses (a Slack user ID, for feedback and verify_example)")
	note := fs.String("note", "", "with feedback_down: what was wrong")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %s: %v", errUsage, form, err)
	}
	if *thread == "" || *action == "" || *value == "" || fs.NArg() > 0 {
		return fmt.Errorf("%w: %s", errUsage, form)
	}
	b, err := openBot(ctx)
	if err != nil {
		return err
	}
	defer b.Close()
	stop, err := readSlackGroups(ctx, b, *user)
	if err != nil {
		return err
	}
	defer stop()
	if *note != "" && *action != bot.ActionFeedbackDown {
		return fmt.Errorf("%w: --note goes with --action %s", errUsage, bot.ActionFeedbackDown)
	}
	m := bot.Message{ThreadID: *thread, UserID: *user, ChannelID: "cli"}
	if *asJSON {
		// The run's internals, for scripts and the eval.
		var (
			s   *nodes.State
			res workflow.Result
		)
		if *note != "" {
			s, err = b.Rate(ctx, m, store.RatingDown, *value, *note)
		} else {
			s, res, err = b.PressState(ctx, m, *action, *value)
		}
		if errors.Is(err, bot.ErrBadAction) {
			return fmt.Errorf("%w: %s", errUsage, bot.BadActionReason(err))
		}
		return reportJSON(out, b, s, res, err)
	}
	var r bot.Reply
	if *note != "" {
		r, err = b.PressRating(ctx, m, false, *value, *note)
	} else {
		r, err = b.Press(ctx, m, *action, *value)
	}
	if errors.Is(err, bot.ErrBadAction) {
		return fmt.Errorf("%w: %s", errUsage, bot.BadActionReason(err))
	}
	return report(out, b, r, err)
}

// turnJSON is the one JSON object `ask --json` and `press --json` print.
type turnJSON struct {
	ThreadID         string       `json:"thread_id"`
	Model            string       `json:"model"`
	Intent           nodes.Intent `json:"intent"`
	Confidence       float64      `json:"confidence"`
	IntentSource     string       `json:"intent_source"`
	Question         string       `json:"question"`
	ResolvedQuestion string       `json:"resolved_question"`
	SQL              string       `json:"sql"`
	Backend          string       `json:"backend"`
	Assumptions      []string     `json:"assumptions"`
	Columns          []string     `json:"columns"`
	Rows             [][]any      `json:"rows"`
	RowCount         int          `json:"row_count"`
	Truncated        bool         `json:"truncated"`
	QueryID          string       `json:"query_id"`
	Answer           string       `json:"answer"`
	Text             string       `json:"text"`
	Format           nodes.Format `json:"format"`
	// Reply is the answer model every surface renders; Blocks its Slack
	// rendering.
	Reply            *answer.Answer `json:"reply"`
	Blocks           []slack.Block  `json:"blocks"`
	CSV              string         `json:"csv"`
	CSVFilename      string         `json:"csv_filename"`
	Error            string         `json:"error"`
	ErrorKind        string         `json:"error_kind"`
	LLMCalls         int            `json:"llm_calls"`
	PromptTokens     int            `json:"prompt_tokens"`
	CompletionTokens int            `json:"completion_tokens"`
	RetryCount       int            `json:"retry_count"`
	Path             []string       `json:"path"`
	Notes            []string       `json:"notes"`
	TimingMS         timingJSON     `json:"timing_ms"`
}

type timingJSON struct {
	Total float64            `json:"total"`
	LLM   float64            `json:"llm"`
	DB    float64            `json:"db"`
	Nodes map[string]float64 `json:"nodes"`
}

// ms renders a duration in milliseconds with microsecond precision.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

func toJSON(s *nodes.State, res workflow.Result, runErr error) turnJSON {
	t := turnJSON{
		ThreadID: s.ThreadTS, Intent: s.Intent, Confidence: s.Confidence, IntentSource: s.IntentSource,
		Question: s.UserQuery, ResolvedQuestion: s.ResolvedQuery, SQL: s.Query.Text, Backend: s.Query.Backend, Assumptions: s.Assumptions,
		Columns: s.ColumnNames(), Rows: s.Result.Rows, RowCount: s.Result.RowCount, Truncated: s.Result.Truncated,
		QueryID: s.QueryID, Answer: s.Answer, Text: s.ResponseText, Format: s.ResponseFormat, Reply: s.Reply, Blocks: slackBlocks(s),
		CSV: csvText(s), CSVFilename: s.CSVFilename, ErrorKind: string(s.ErrorKind),
		LLMCalls: s.LLMCalls, PromptTokens: s.PromptTokens, CompletionTokens: s.CompletionTokens,
		RetryCount: s.RetryCount, Path: res.Path(), Notes: s.Notes,
		TimingMS: timingJSON{Total: ms(res.Total), LLM: ms(s.LLMTime), DB: ms(s.DBTime), Nodes: map[string]float64{}},
	}
	for _, st := range res.Steps {
		t.TimingMS.Nodes[st.Node] += ms(st.Duration)
	}
	if s.ErrorKind != "" {
		t.Error = s.ResponseText
	}
	if runErr != nil {
		t.Error, t.ErrorKind = runErr.Error(), string(nodes.ErrInternal)
	}
	if t.Rows == nil {
		t.Rows = [][]any{}
	}
	return t
}

// csvText returns the run's CSV as text (a full export is read from its
// file, which is then removed).
func csvText(s *nodes.State) string {
	if !s.HasCSV() {
		return ""
	}
	defer s.RemoveCSVFile()
	r, _, err := s.OpenCSV()
	if err != nil {
		return ""
	}
	defer r.Close()
	b, _ := io.ReadAll(r)
	return string(b)
}

// reportJSON prints a run as JSON. A workflow failure is still printed
// (with its error) before it is returned.
func reportJSON(out io.Writer, b *bot.Bot, s *nodes.State, res workflow.Result, runErr error) error {
	t := toJSON(s, res, runErr)
	t.Model = b.ModelName
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(t); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return runErr
}

// report prints a reply for people, its file's contents after it.
func report(out io.Writer, b *bot.Bot, r bot.Reply, runErr error) error {
	defer r.Close()
	if runErr != nil {
		return runErr
	}
	if r.Answer == nil {
		return errors.New("the workflow ended without a reply")
	}
	fmt.Fprint(out, terminal.Render(r.Answer, terminal.Options{ANSI: isTerminal(out), Rate: pressRate(r.ThreadID, r.QueryID),
		Press:  func(id, value string) string { return pressCommand(r.ThreadID, value, id) },
		Choose: func(ask string) string { return askCommand(r.ThreadID, ask) }}))
	if r.File != nil {
		fmt.Fprintf(out, "\n%s", terminal.Inert(fileText(r.File)))
	}
	fmt.Fprintf(out, "\n(thread %s)\n", r.ThreadID)
	if b.Demo {
		fmt.Fprintln(out, "(demo mode: a scripted model answers the suggested questions; see README to plug in a real model)")
	}
	return nil
}

// fileText is a reply's file as text.
func fileText(f *bot.File) string {
	r, _, err := f.Open()
	if err != nil {
		return ""
	}
	defer r.Close()
	b, _ := io.ReadAll(r)
	return string(b)
}

// slackBlocks is the reply as Slack shows it; none before a reply.
func slackBlocks(s *nodes.State) []slack.Block {
	if s.Reply == nil {
		return nil
	}
	return blockkit.Reply(s.Reply).Blocks
}

// pressCommand is the command that presses the button action of the
// answer queryID in thread.
func pressCommand(thread, queryID, action string) string {
	if strings.ContainsAny(queryID, " \t") {
		queryID = "'" + queryID + "'" // a preset's value: the query id and a cron spec
	}
	return "analyticsbot press --thread " + thread + " --value " + queryID + " --action " + action
}

// askCommand is how a one-shot command asks a question in thread: a
// question back's choice.
func askCommand(thread, question string) string {
	return "analyticsbot ask --thread " + thread + " '" + strings.ReplaceAll(question, "'", `'\''`) + "'"
}

// pressRate is how a one-shot command rates an answer.
func pressRate(thread, queryID string) string {
	return pressCommand(thread, queryID, bot.ActionFeedbackUp) + " (or " + bot.ActionFeedbackDown + ")"
}
