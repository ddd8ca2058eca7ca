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

	"github.com/slack-go/slack"

	"github.com/analyticsbot/analyticsbot/store"
)

// Intent is what the user wants from a message.
type Intent string

// The intents the router can pick.
const (
	IntentAnalytics Intent = "analytics_query"
	IntentFollowUp  Intent = "follow_up"
	IntentExportCSV Intent = "export_csv"
	IntentShowSQL   Intent = "show_sql"
	IntentOffTopic  Intent = "off_topic"
)

// Valid reports whether i is one of the known intents.
func (i Intent) Valid() bool {
	switch i {
	case IntentAnalytics, IntentFollowUp, IntentExportCSV, IntentShowSQL, IntentOffTopic:
		return true
	}
	return false
}

// Format is the shape of the reply.
type Format string

// The reply formats.
const (
	FormatSimple Format = "simple"
	FormatTable  Format = "table"
	FormatError  Format = "error"
)

// ErrorKind decides whether a failure is retried and what the user is told.
type ErrorKind string

// The error kinds. Only ErrInvalidSQL is retried by the generator.
const (
	ErrEmptyMessage     ErrorKind = "empty_message"
	ErrMessageTooLong   ErrorKind = "message_too_long"
	ErrInvalidSQL       ErrorKind = "invalid_sql"
	ErrUnsafeSQL        ErrorKind = "unsafe_sql"
	ErrQueryTimeout     ErrorKind = "query_timeout"
	ErrDatabaseDown     ErrorKind = "database_unavailable"
	ErrCubeDown         ErrorKind = "cube_unavailable"
	ErrCubeAuth         ErrorKind = "cube_unauthorized"
	ErrNoData           ErrorKind = "no_data"
	ErrModelUnavailable ErrorKind = "model_unavailable"
	ErrModelTimeout     ErrorKind = "model_timeout"
	ErrModelRefused     ErrorKind = "model_refused"
	ErrNoPreviousQuery  ErrorKind = "no_previous_query"
	ErrInternal         ErrorKind = "internal"
)

// State is everything one run of the workflow knows. Each field's comment
// names the node that writes it.
type State struct {
	// Input, set by the caller.
	UserQuery string
	UserID    string
	ChannelID string
	ThreadTS  string
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

	// ResolvedQuery and ReferencedQueryID are written by resolve_context
	// (ReferencedQueryID also by the caller for a button press).
	ResolvedQuery     string
	ReferencedQueryID string

	// SQL, Assumptions and Explanation are written by generate_sql.
	SQL         string
	Assumptions []string
	Explanation string

	// Valid, ValidationError and RunSQL are written by validate_sql;
	// RetryCount by generate_sql (the number of regenerations after the
	// first attempt). RunSQL is SQL as it runs: the guard's row limit
	// applied. Users see SQL, the statement as written.
	Valid           bool
	ValidationError string
	RunSQL          string
	RetryCount      int

	// Result and QueryID are written by execute_sql (and by the actions).
	Result  store.Result
	QueryID string

	// Answer is the interpreter's text.
	Answer string

	// Reply fields, written by format_answer, decline, handle_error and the
	// actions.
	ResponseFormat Format
	ResponseText   string
	Blocks         []slack.Block

	// CSV fields, written by export_csv: the CSV in CSVContent, or, for a
	// full export too large to hold in memory, in the temporary file
	// CSVFile. Use OpenCSV to read either; whoever runs the workflow calls
	// RemoveCSVFile when done with it.
	CSVContent  []byte
	CSVFile     string
	CSVFilename string
	CSVTitle    string

	// ErrorKind and ErrorDetail are written by the node that failed.
	// ErrorDetail is for logs and the generator, never shown raw to users.
	ErrorKind   ErrorKind
	ErrorDetail string

	// Accounting, written by every node that calls the model or the database.
	LLMCalls         int
	PromptTokens     int
	CompletionTokens int
	LLMTime          time.Duration
	DBTime           time.Duration
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
func (s *State) ColumnNames() []string {
	names := make([]string, len(s.Result.Columns))
	for i, c := range s.Result.Columns {
		names[i] = c.Name
	}
	return names
}

func (s *State) fail(kind ErrorKind, detail string) {
	s.ErrorKind = kind
	s.ErrorDetail = detail
}

func (s *State) note(msg string) { s.Notes = append(s.Notes, msg) }
