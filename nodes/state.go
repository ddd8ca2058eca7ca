// Package nodes holds the analytics workflow: its state, its nodes and the
// graph that wires them (graph.go). Nodes write only their own fields of
// State; routing functions read State and pick the next node.
package nodes

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/chart"
	"github.com/analyticsbot/analyticsbot/grounding"
	"github.com/analyticsbot/analyticsbot/lexicon"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// Intent is what the user wants from a message.
type Intent string

// The intents. What each one is to the classifier, the buttons, the front
// ends and the query log is its row of the intent table (Intents,
// intents.go); a button's action id is its intent.
const (
	IntentAnalytics Intent = "analytics_query"
	IntentFollowUp  Intent = "follow_up"
	IntentExportCSV Intent = "export_csv"
	IntentShowSQL   Intent = "show_sql"
	IntentOffTopic  Intent = "off_topic"
	// IntentRefresh runs an earlier answer's query again and answers from
	// the fresh result, without the model: the Refresh button of an answer
	// served from a recent result.
	IntentRefresh Intent = "refresh"
	// IntentSchedule turns an answer into a schedule or an alert: the
	// Schedule button, a preset, or words such as "send me this every
	// Monday at 9", read without the model (package schedule).
	IntentSchedule Intent = "schedule"
	// IntentScheduledRun is a schedule's run, which the scheduler starts
	// with State.Scheduled set; the router never picks it.
	IntentScheduledRun Intent = "scheduled_run"
	// IntentFeedback and IntentVerify are a 👍/👎 or a note on a 👎
	// ("feedback: …"), and an admin's Verify, answered without the model
	// (package feedback keeps them).
	IntentFeedback Intent = "feedback"
	IntentVerify   Intent = "verify_example"
	// IntentListSchedules lists the asker's schedules ("schedules", Slack's
	// "/ask schedules"), and IntentManageSchedule answers a press on one
	// (save, cancel, pause, resume, delete); neither calls the model.
	IntentListSchedules  Intent = "list_schedules"
	IntentManageSchedule Intent = "manage_schedule"
	// IntentAskBack is the intent a thread keeps for a turn in which the
	// bot asked back (save_turn), so the next question, which answers it,
	// is not asked about again. The router never picks it.
	IntentAskBack Intent = "ask_back"
	// IntentRunQuery runs a query the asker wrote (the MCP server's
	// run_query): the guard, their policy and role and the cache apply as
	// to a generated one, but a refused query is not rewritten and no model
	// is called.
	IntentRunQuery Intent = "run_query"
	// The catalog reads of the MCP server's tools: each is a query log row
	// of the asker's, answered by bot without the graph (nothing of a
	// conversation to run).
	IntentListTables    Intent = "list_tables"
	IntentDescribeTable Intent = "describe_table"
	IntentSearchValues  Intent = "search_values"
	IntentListVerified  Intent = "list_verified_queries"
	IntentGetContext    Intent = "get_context"
)

// Format is the shape of the reply.
type Format string

// The reply formats.
const (
	FormatSimple Format = "simple"
	FormatTable  Format = "table"
	FormatError  Format = "error"
)

// ErrorKind decides whether a failure is retried and what the user is told
// (HandleError, the one place that words them). Query logs and metrics
// record the same values.
type ErrorKind string

// The error kinds. Only ErrInvalidQuery is retried by the generator.
const (
	ErrEmptyMessage   ErrorKind = "empty_message"
	ErrMessageTooLong ErrorKind = "message_too_long"
	// ErrInvalidQuery: the backend rejected the query in a way a rewrite
	// can fix (warehouse.Invalid).
	ErrInvalidQuery ErrorKind = "invalid_query"
	// ErrUnsafeQuery: the query would change data or read what it may not
	// (warehouse.Unsafe); never retried.
	ErrUnsafeQuery  ErrorKind = "unsafe_query"
	ErrQueryTimeout ErrorKind = "query_timeout"
	// ErrWarehouseDown and ErrWarehouseAuth: the backend answers come from
	// could not be reached, or refused the bot's credentials.
	ErrWarehouseDown ErrorKind = "warehouse_unavailable"
	// ErrWarehouseNoAnswer: the backend did not answer within the bot's
	// deadline (DATABASE_TIMEOUT, warehouse.NoAnswer); never retried.
	ErrWarehouseNoAnswer ErrorKind = "warehouse_no_answer"
	// ErrWarehouseBusy: too many queries were running to start this one
	// in time (warehouse.Busy); never retried.
	ErrWarehouseBusy ErrorKind = "warehouse_busy"
	ErrWarehouseAuth ErrorKind = "warehouse_unauthorized"
	// ErrWarehouseDenied: the backend refused the bot's account something
	// the query names (warehouse.Denied): a missing grant, never retried.
	ErrWarehouseDenied ErrorKind = "warehouse_denied"
	// ErrNoData: the backend's catalog is empty.
	ErrNoData ErrorKind = "no_data"
	// ErrDatabaseDown: the bot's own database (turns, results) could not
	// be reached.
	ErrDatabaseDown     ErrorKind = "database_unavailable"
	ErrModelUnavailable ErrorKind = "model_unavailable"
	ErrModelTimeout     ErrorKind = "model_timeout"
	// ErrModelRateLimited: the model's provider kept turning the calls
	// away for its rate limit (HTTP 429) until the retries ran out.
	ErrModelRateLimited ErrorKind = "model_rate_limited"
	ErrModelRefused     ErrorKind = "model_refused"
	ErrNoPreviousQuery  ErrorKind = "no_previous_query"
	// ErrAccessDenied: the query names a table or column outside the
	// user's access policy (warehouse.Forbidden); never retried.
	ErrAccessDenied ErrorKind = "access_denied"
	// ErrNotAdmitted: the access file does not let the user ask here (not
	// an allowed user or channel, or no policy for them).
	ErrNotAdmitted ErrorKind = "not_admitted"
	// ErrAccessUnknown: whether the access file lets the user ask hangs on
	// a Slack user group Slack did not list (access.Refusal.Unknown): a
	// failure, not a refusal, so a schedule is tried again, not stopped.
	ErrAccessUnknown ErrorKind = "access_unknown"
	// ErrForbidden: the user may not do what they asked (verify a query
	// without being in EXAMPLE_ADMINS).
	ErrForbidden ErrorKind = "forbidden"
	// ErrInvalidArguments: an MCP tool's arguments are not what its schema
	// allows (a bound, a type, a missing one); the tool does not run.
	ErrInvalidArguments ErrorKind = "invalid_arguments"
	ErrInternal         ErrorKind = "internal"
)

// State is everything one run of the workflow knows. Each field's comment
// names the node that writes it.
type State struct {
	// Input, set by the caller.
	UserQuery string
	// Channels maps the "#name" channel mentions of UserQuery to their
	// ids, when the surface knows them (Slack).
	Channels map[string]string
	UserID   string
	// UserEmail is the user's address when the surface knows it.
	UserEmail string
	// Policy names the access policy the user asked under (ACCESS_FILE);
	// empty without an access file. Role is the database role the run's
	// queries ran as, when the backend says. For a reply posted under a
	// channel's ceiling, both are the policy within it (set by the
	// caller).
	Policy, Role string
	ChannelID    string
	ThreadTS     string
	// Ceiling names the policy that caps what is posted in the channel
	// (ACCESS_FILE's channel_ceilings) when it caps the asker's: set by
	// the caller. Empty: no ceiling applies to what the asker reads there.
	Ceiling string
	// Audience is who may see the reply: everyone where it was asked (the
	// zero value), or the asker alone (an answer beyond the channel's
	// ceiling, the presses on one). Written by the caller for a press on a
	// private answer, and by validate_query.
	Audience Audience
	// TimeZone is the asker's IANA time zone when the surface knows it
	// (Slack's users.info); schedules are read in it.
	TimeZone string
	// SchedulePreset is the cron spec of the preset a button chose
	// (IntentSchedule), empty when the words say when.
	SchedulePreset string
	// Rating is the 👍 or 👎 (store.RatingUp, store.RatingDown) a rating
	// press gives (IntentFeedback); zero for a note alone. Note is the note
	// on a 👎, from the caller or, for a message "feedback: …",
	// route_intent.
	Rating int
	Note   string
	// ScheduleAction is the press on a schedule (ActionSchedulePause, …)
	// that manage_schedule answers, on ScheduleID (IntentManageSchedule);
	// ScheduleScope whose schedules list_schedules lists
	// (IntentListSchedules). Set by the caller.
	ScheduleAction string
	ScheduleScope  ScheduleScope
	// Scheduled is the schedule a scheduled run runs (IntentScheduledRun).
	Scheduled *ScheduledRun
	// History holds the thread's most recent turns, oldest first.
	History []store.Turn
	// Started is when the message arrived, for the elapsed time in the reply.
	Started time.Time

	// Intent and Confidence are written by route_intent, or preset by the
	// caller for a button press (with ReferencedQueryID).
	Intent     Intent
	Confidence float64
	// IntentSource says how the intent was decided: "button", "keyword",
	// "model" or "fallback" (the model's reply was unusable).
	IntentSource string
	// Standalone is the classifier's rewrite of a follow-up, if it gave one.
	Standalone string
	// SearchTerms are words the classifier expects the data to use for
	// what the question asks about (table and column words, names of
	// things), at most maxSearchTerms plain words; grounding scores with
	// them. Written by route_intent.
	SearchTerms []string

	// ResolvedQuery and ReferencedQueryID are written by resolve_context
	// (ReferencedQueryID also by the caller for a button press).
	ResolvedQuery     string
	ReferencedQueryID string

	// Grounding is the part of the catalog the generator is shown for
	// this question, and Schemas the catalog's schemas; written by
	// generate_query on its first attempt and kept for its retries.
	Grounding *grounding.Context
	Schemas   []string
	// Matches are the stored values that resemble words of the question
	// (the value lookup) that the prompt shows, those of the described
	// tables first; written by generate_query with Grounding.
	Matches []store.ValueMatch
	// Glossary are the entries of the team's glossary (GLOSSARY_FILE) the
	// question names; those that say what they mean are shown to the
	// generator. Written by generate_query with Grounding.
	Glossary []lexicon.GlossaryMatch
	// Examples are the stored examples retrieved for the question that the
	// prompt shows (Nodes.ExampleStore), best first; written with
	// Grounding.
	Examples []store.Example
	// Verified is the verified example whose query the answer ran, if any
	// (the answer's badge); written by format_answer.
	Verified *store.Example
	// ChartHint is the interpreter's proposal for a chart; written by
	// interpret.
	ChartHint chart.Hint
	// FollowUps are questions the interpreter suggests asking next (at
	// most three, each standing alone); written by interpret.
	FollowUps []string
	// Chart is the chart drawn from the result, when one fits (package
	// chart, which weighs ChartHint); written by format_answer.
	Chart *chart.Spec

	// Clarification is the generator's question back, when it asked one
	// instead of writing a query (ask_back shows it); written by
	// generate_query.
	Clarification *Clarification

	// Query, Assumptions and Explanation are written by generate_query;
	// Query also by validate_query (the backend's normalised form) and by
	// the actions (the query of the answer they act on).
	Query       warehouse.Query
	Assumptions []string
	Explanation string

	// Valid, ValidationError and Checked are written by validate_query;
	// RetryCount by generate_query (the number of regenerations after the
	// first attempt). Checked is the query as it runs, with the backend's
	// caps applied; users see Query.
	Valid           bool
	ValidationError string
	Checked         warehouse.Runnable
	RetryCount      int

	// Result and QueryID are written by execute_query (and by the actions).
	Result  warehouse.Result
	QueryID string
	// DataAsOf is when Result ran, when execute_query answered from a
	// recent result instead of running the query (RESULT_FRESHNESS); zero
	// when it ran now.
	DataAsOf time.Time

	// ScheduleID is the pending schedule schedule made; written by
	// schedule (set by the caller for manage_schedule).
	ScheduleID string
	// AlertValue is the number a scheduled run read for its alert, and
	// Quiet says its condition did not hold, so nothing is sent; written
	// by run_schedule.
	AlertValue *float64
	Quiet      bool

	// Answer is the interpreter's text.
	Answer string

	// Reply fields, written by format_answer, decline, handle_error and the
	// actions: the reply as every surface renders it, its shape and its
	// text alone (for logs, notifications and fallbacks).
	Reply          *answer.Answer
	ResponseFormat Format
	ResponseText   string

	// CSV fields, written by export_csv: the CSV in CSVContent, or, for a
	// full export too large to hold in memory, in the temporary file
	// CSVFile. Use OpenCSV to read either; whoever runs the workflow calls
	// RemoveCSVFile when done with it.
	CSVContent  []byte
	CSVFile     string
	CSVFilename string
	CSVTitle    string
	// CSVRows is how many rows the CSV export holds.
	CSVRows int
	// CSVNote says, when the export was cut short, where and why ("The
	// export was limited to 1,500 rows."); empty when it holds every row.
	CSVNote string

	// ErrorKind, ErrorDetail and ErrorClass are written by the node that
	// failed. ErrorDetail is for logs and the generator, never shown raw to
	// users; ErrorClass is the rule a rejected query broke
	// (warehouse.Error.Class), from a fixed set, for metrics.
	ErrorKind   ErrorKind
	ErrorDetail string
	ErrorClass  string
	// outcome is how the running node's step went, written with ErrorKind
	// by fail and taken by the engine after the node (TakeOutcome).
	outcome workflow.Outcome
	// ErrorRef is the reference handle_error gives a failure whose cause
	// only the people who run the bot can see or fix: the user's reply
	// names it, the log line and the query log carry it with the detail.
	ErrorRef string

	// Accounting, written by every node that calls the model or the database.
	LLMCalls         int
	PromptTokens     int
	CompletionTokens int
	LLMTime          time.Duration
	DBTime           time.Duration
	// Keep, written by save_turn, are the turns the threads keep of the
	// run: whoever runs the workflow writes them with its query log.
	Keep []store.Turn
	// Notes records recoverable oddities (garbage model replies, a turn
	// that could not be saved) for logs and debugging.
	Notes []string
}

// HasCSV reports whether the run produced a CSV.
func (s *State) HasCSV() bool { return len(s.CSVContent) > 0 || s.CSVFile != "" }

// OpenCSV returns the CSV the run produced and its size in bytes.
func (s *State) OpenCSV() (io.ReadCloser, int64, error) {
	if s.CSVFile == "" {
		return io.NopCloser(bytes.NewReader(s.CSVContent)), int64(len(s.CSVContent)), nil
	}
	f, err := os.Open(s.CSVFile)
	if err != nil {
		return nil, 0, fmt.Errorf("open the CSV export: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("open the CSV export: %w", err)
	}
	return f, st.Size(), nil
}

// RemoveCSVFile deletes the temporary CSV file, if the run made one.
func (s *State) RemoveCSVFile() {
	if s.CSVFile != "" {
		_ = os.Remove(s.CSVFile)
		s.CSVFile = ""
	}
}

// Question is the question the workflow answers: the resolved one when the
// context resolver rewrote it.
func (s *State) Question() string {
	if s.ResolvedQuery != "" {
		return s.ResolvedQuery
	}
	return s.UserQuery
}

// ColumnNames returns the result's column names.
func (s *State) ColumnNames() []string { return s.Result.ColumnNames() }

// fail records a failure of the running node, and with it the node's
// outcome (kind.Outcome); an empty kind clears both.
func (s *State) fail(kind ErrorKind, detail string) {
	s.ErrorKind, s.ErrorDetail, s.ErrorClass = kind, detail, ""
	s.outcome = kind.Outcome()
}

// TakeOutcome returns the outcome the node that just ran recorded, and
// forgets it; the engine calls it after every node (workflow.OutcomeReporter).
// The error kind stays on the state for the routes and handle_error.
func (s *State) TakeOutcome() workflow.Outcome {
	o := s.outcome
	s.outcome = workflow.Outcome{}
	return o
}

// clearError forgets the recorded error, as a retry starts afresh.
func (s *State) clearError() { s.fail("", "") }

func (s *State) note(msg string) { s.Notes = append(s.Notes, msg) }

// SetReply records the reply and its shape.
func (s *State) SetReply(f Format, a *answer.Answer) {
	s.ResponseFormat, s.Reply, s.ResponseText = f, a, a.Plain()
}
