package bot

import (
	"io"
	"time"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// Reply is what a front end gets for a message or a press: the answer to
// render, the file to attach, who may see it and how the turn went. Front
// ends deliver it by its Audience and File, never by what was asked; they
// never see the workflow's state or the store.
type Reply struct {
	// Answer is the reply as every surface renders it; nil only when the
	// run failed before writing one (Outcome is then failed, Cause
	// CauseInternal): the front end says something went wrong.
	Answer *answer.Answer
	// Text is the reply as plain text, for logs, notifications and
	// fallbacks.
	Text string
	// Audience is who may see the reply.
	Audience Audience
	// Note is what the others where it was asked read in its place when
	// the reply is the asker's alone (an answer beyond a Slack channel's
	// ceiling): who it went to, and no data. Nil otherwise.
	Note *answer.Answer
	// File is the CSV the reply carries (Export CSV, a CSV schedule); nil
	// without one. Call Close once it is delivered.
	File *File
	// Outcome is how the turn ended.
	Outcome Outcome

	// ThreadID is the thread the turn belongs to (a new one when the
	// message named none).
	ThreadID string
	// QueryID is the query the reply shows or acts on; empty without one.
	QueryID string
	// Query is the query's text in its backend's language; empty without
	// one.
	Query string
	// Intent is what the message asked for ("analytics_query",
	// "show_sql", …), for logs and debug displays only: deliver by
	// Audience and File.
	Intent string
	// NewThread says the turn is the first of its thread (Slack titles the
	// thread after it).
	NewThread bool
	// Due is when a scheduled run was due; zero for anything else.
	Due time.Time

	// Steps are the steps the run took, retries included, as "How it was
	// answered" lists them.
	Steps []Step
	// Elapsed is the run's time; ModelTime and DBTime are its parts spent
	// waiting on the model and on the databases.
	Elapsed, ModelTime, DBTime time.Duration
	// ModelCalls, PromptTokens and CompletionTokens count the model's use.
	ModelCalls, PromptTokens, CompletionTokens int
}

// Audience is who may see a reply.
type Audience string

const (
	// AudienceAll: everyone where it was asked (a channel's members, the
	// asker of a direct message, the web chat or the terminal).
	AudienceAll Audience = "all"
	// AudienceAsker: the asker (or presser) alone.
	AudienceAsker Audience = "asker"
)

// Private reports whether the reply is for its asker alone.
func (r Reply) Private() bool { return r.Audience == AudienceAsker }

// Close removes the file of a full export once it is delivered (or will
// not be); a reply without one has nothing to close.
func (r Reply) Close() {
	if r.File != nil {
		r.File.s.RemoveCSVFile()
	}
}

// File is a file a reply carries: the CSV of an export.
type File struct {
	// Name is the file's name ("top_customers.csv"); Title its caption.
	Name, Title string
	// Rows is how many rows of data it holds.
	Rows int
	// Note says the export was cut short, and where ("The export was
	// limited to 1,500 rows."); empty when it holds every row. The
	// reply's text says it too.
	Note string
	s    *nodes.State
}

// Open returns the file's contents and size in bytes; each call reads it
// from the start, so a failed upload can be tried again.
func (f *File) Open() (io.ReadCloser, int64, error) { return f.s.OpenCSV() }

// Outcome is how a turn ended: answered, rejected on purpose (a refused
// table, an unsafe query, an unknown answer to act on), or failed (a
// timeout, a service down, the bot itself).
type Outcome struct {
	// Status is OutcomeOK, OutcomeRejected or OutcomeFailed.
	Status string
	// Kind is the failure's kind ("unsafe_query", "query_timeout", …) for
	// logs and metrics; empty when the turn was answered.
	Kind string
	// Cause is the failure's class, which front ends map to their own
	// signals (HTTP statuses); CauseNone when answered.
	Cause Cause
	// Ref is the reference the user reads for a failure only the people
	// who run the bot can look into ("Reference 3f9a1c2e."); the log and
	// the query log carry it too. Empty otherwise.
	Ref string
}

// The statuses of an Outcome: the engine's own words.
const (
	OutcomeOK       = workflow.OutcomeOK
	OutcomeRejected = workflow.OutcomeRejected
	OutcomeFailed   = workflow.OutcomeFailed
)

// OK reports whether the turn was answered.
func (o Outcome) OK() bool { return o.Status == OutcomeOK }

// Cause is the class of a failed turn.
type Cause string

const (
	// CauseNone: the turn was answered.
	CauseNone Cause = ""
	// CauseNotFound: there is nothing to act on (no earlier answer, or
	// one that expired).
	CauseNotFound Cause = "not_found"
	// CauseForbidden: the asker may not ask this, or not here.
	CauseForbidden Cause = "forbidden"
	// CauseUnsafe: the query was refused as unsafe.
	CauseUnsafe Cause = "unsafe"
	// CauseTimeout: the query took too long.
	CauseTimeout Cause = "timeout"
	// CauseUnavailable: a database or the warehouse did not answer, or
	// refused the bot.
	CauseUnavailable Cause = "unavailable"
	// CauseOther: anything else (the model, a question it could not
	// answer, the bot itself).
	CauseOther Cause = "other"
)

// causes classes the error kinds; the others are CauseOther.
var causes = map[nodes.ErrorKind]Cause{
	nodes.ErrNoPreviousQuery:   CauseNotFound,
	nodes.ErrForbidden:         CauseForbidden,
	nodes.ErrAccessDenied:      CauseForbidden,
	nodes.ErrNotAdmitted:       CauseForbidden,
	nodes.ErrAccessUnknown:     CauseUnavailable,
	nodes.ErrUnsafeQuery:       CauseUnsafe,
	nodes.ErrQueryTimeout:      CauseTimeout,
	nodes.ErrDatabaseDown:      CauseUnavailable,
	nodes.ErrWarehouseDown:     CauseUnavailable,
	nodes.ErrWarehouseNoAnswer: CauseUnavailable,
	nodes.ErrWarehouseBusy:     CauseUnavailable,
	nodes.ErrWarehouseAuth:     CauseUnavailable,
	nodes.ErrWarehouseDenied:   CauseUnavailable,
}

// outcomeOf is the outcome of a turn that ended with kind.
func outcomeOf(kind nodes.ErrorKind, ref string) Outcome {
	if kind == "" {
		return Outcome{Status: OutcomeOK}
	}
	c, ok := causes[kind]
	if !ok {
		c = CauseOther
	}
	return Outcome{Status: kind.Outcome().Status(), Kind: string(kind), Cause: c, Ref: ref}
}

// internalFailure is the outcome of a run that stopped without a reply.
var internalFailure = Outcome{Status: OutcomeFailed, Kind: string(nodes.ErrInternal), Cause: CauseOther}

// replyOf is the one place a run's final state becomes a Reply. s may be
// nil (a run refused before it started).
func replyOf(s *nodes.State, res workflow.Result) Reply {
	r := Reply{Audience: AudienceAll, Outcome: internalFailure, Steps: stepsOf(res), Elapsed: res.Total}
	if s == nil {
		return r
	}
	r.Answer, r.Text, r.ThreadID, r.Intent = s.Reply, s.ResponseText, s.ThreadTS, string(s.Intent)
	r.QueryID, r.Query, r.NewThread = s.QueryID, s.Query.Text, len(s.History) == 0
	if s.Scheduled != nil {
		r.Due = s.Scheduled.Due
	}
	if s.Private() {
		r.Audience, r.Note = AudienceAsker, nodes.PrivateNote(s)
	}
	if s.HasCSV() {
		r.File = &File{Name: s.CSVFilename, Title: s.CSVTitle, Rows: s.CSVRows, Note: s.CSVNote, s: s}
	}
	r.ModelTime, r.DBTime = s.LLMTime, s.DBTime
	r.ModelCalls, r.PromptTokens, r.CompletionTokens = s.LLMCalls, s.PromptTokens, s.CompletionTokens
	if r.Elapsed == 0 && !s.Started.IsZero() {
		r.Elapsed = time.Since(s.Started)
	}
	if s.Reply != nil {
		r.Outcome = outcomeOf(s.ErrorKind, s.ErrorRef)
	}
	if r.QueryID == "" && r.Outcome.OK() {
		// A rating or Verify acts on the answer it names.
		r.QueryID = s.ReferencedQueryID
	}
	return r
}

// ScheduledReply is the Reply of a scheduled run's final state
// (RunScheduled), which the scheduler hands its surface's Deliverer.
func ScheduledReply(s *nodes.State) Reply { return replyOf(s, noRun) }

// presserOnly says whether a press's reply is for the presser alone (the
// intent table's ToPresser),
// wherever they pressed: a rating (and an admin's Verify) is their
// business, and so is making or changing a schedule.
func presserOnly(i nodes.Intent) bool {
	spec, _ := nodes.SpecOf(i)
	return spec.ToPresser
}

// pressReplyOf is the Reply of a press: as replyOf, and for the presser
// alone when it failed (the thread is not told of a press that went
// wrong) or is theirs by nature (presserOnly).
func pressReplyOf(s *nodes.State, res workflow.Result) Reply {
	r := replyOf(s, res)
	if !r.Outcome.OK() || s != nil && presserOnly(s.Intent) {
		r.Audience = AudienceAsker
	}
	return r
}

// stepsOf lists the steps of a run for people.
func stepsOf(res workflow.Result) []Step {
	out := make([]Step, len(res.Steps))
	for i, st := range res.Steps {
		out[i] = Step{Node: st.Node, Phase: phases[st.Node], Outcome: st.Outcome, Duration: st.Duration}
	}
	return out
}

// noRun is the trace of a reply the workflow did not make.
var noRun = workflow.Result{}

// Path names the steps the run took, in order, retries included.
func (r Reply) Path() []string {
	out := make([]string, len(r.Steps))
	for i, s := range r.Steps {
		out[i] = s.Node
	}
	return out
}
