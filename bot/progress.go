package bot

import (
	"context"
	"time"

	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// Progress follows an answer while it is worked out, for front ends that
// show it live (Slack's task cards and status, the web's "How it was
// answered"). Its methods are called on the run's goroutine: a slow
// Progress slows the answer.
type Progress interface {
	// Started is called when a step starts.
	Started(ctx context.Context, s Step)
	// Finished is called when a step ends, with its outcome, time and
	// rows.
	Finished(ctx context.Context, s Step)
}

// Step is one step of an answer.
type Step struct {
	// Node names the step ("generate_query"), as "How it was answered"
	// lists it.
	Node string
	// Label is what the step does, for people ("Writing SQL…"); empty for
	// a step nobody is shown.
	Label string
	// Phase is the part of answering a question the step belongs to;
	// PhaseNone for steps outside it.
	Phase Phase
	// StartsText: the step writes the answer's prose; text WithText
	// received before it is void (a retried answer).
	StartsText bool
	// Outcome (OutcomeOK, OutcomeRejected, OutcomeFailed, or "error" and
	// "canceled" for a step that stopped the run) and Duration are set
	// when the step has finished.
	Outcome  string
	Duration time.Duration
	// Rows is the number of rows a query returned, on the finished step
	// that ran it; nil otherwise.
	Rows *int
}

// Phase is a part of answering a question, as people follow it.
type Phase string

// The phases, in the order a question without retries goes through them.
const (
	PhaseNone    Phase = ""
	PhaseTables  Phase = "tables"  // finding the tables
	PhaseQuery   Phase = "query"   // writing (and checking) the query
	PhaseRun     Phase = "run"     // running it
	PhaseExplain Phase = "explain" // explaining the result
	// PhaseFailed: the answer failed; the phase under way ends in error.
	PhaseFailed Phase = "failed"
)

// phases are the phases of the nodes; nodes not listed (reading the
// question, saving the turn, the buttons' paths) belong to none, so a
// message that needs no query shows none.
var phases = map[string]Phase{
	nodes.NodeResolveContext: PhaseTables,
	nodes.NodeGenerateQuery:  PhaseQuery,
	nodes.NodeValidateQuery:  PhaseQuery,
	nodes.NodeExecuteQuery:   PhaseRun,
	nodes.NodeRefresh:        PhaseRun,
	nodes.NodeRunSchedule:    PhaseRun,
	nodes.NodeInterpret:      PhaseExplain,
	nodes.NodeFormatAnswer:   PhaseExplain,
	nodes.NodeHandleError:    PhaseFailed,
}

// AskOption changes one Ask or Press.
type AskOption func(*askConfig)

type askConfig struct {
	progress Progress
	text     func(chunk string)
	// exportBytes lowers EXPORT_MAX_BYTES for this call; 0 leaves it.
	exportBytes int64
}

// WithExportMaxBytes has an Export CSV stop its file at max bytes when that
// is below EXPORT_MAX_BYTES, cut as EXPORT_MAX_BYTES cuts it (an MCP
// reply, which carries the file, at MCP_MAX_BYTES).
func WithExportMaxBytes(max int64) AskOption {
	return func(c *askConfig) { c.exportBytes = max }
}

// WithProgress has p follow the answer's steps. A nil p is ignored.
func WithProgress(p Progress) AskOption {
	return func(c *askConfig) { c.progress = p }
}

// WithText streams the answer's prose to text as the model writes it, in
// the model's Markdown, possibly from parallel model calls; a step whose
// StartsText is set starts it afresh. Without it the model's replies are
// not streamed. A nil text is ignored.
func WithText(text func(chunk string)) AskOption {
	return func(c *askConfig) { c.text = text }
}

// runOptions turns opts into the workflow's: the progress observes the
// run, and the interpreter's text streams to the text function.
func runOptions(ctx context.Context, opts []AskOption) (context.Context, []workflow.RunOption) {
	var c askConfig
	for _, o := range opts {
		o(&c)
	}
	if c.exportBytes > 0 {
		ctx = nodes.WithExportMaxBytes(ctx, c.exportBytes)
	}
	if text := c.text; text != nil {
		ctx = llm.WithStream(ctx, func(step llm.Step, chunk string) {
			if step == llm.StepInterpret {
				text(chunk)
			}
		})
	}
	if c.progress == nil {
		return ctx, nil
	}
	return ctx, []workflow.RunOption{workflow.WithObserver(observer{c.progress})}
}

// observer turns the workflow's node events into Progress's steps.
type observer struct{ p Progress }

var _ workflow.StateObserver[nodes.State] = observer{}

func (o observer) NodeStarted(ctx context.Context, n workflow.NodeInfo, _ int) {
	o.p.Started(ctx, Step{Node: n.Name, Label: n.Label, Phase: phases[n.Name], StartsText: n.Name == nodes.NodeInterpret})
}

// NodeFinished is part of workflow.Observer; NodeState reports the step,
// with what it read from the state.
func (o observer) NodeFinished(context.Context, workflow.Step) {}

func (o observer) NodeState(ctx context.Context, st workflow.Step, s *nodes.State) {
	step := Step{Node: st.Node, Phase: phases[st.Node], Outcome: st.Outcome, Duration: st.Duration}
	if st.Node == nodes.NodeExecuteQuery && s.ErrorKind == "" {
		rows := s.Result.RowCount
		step.Rows = &rows
	}
	o.p.Finished(ctx, step)
}
