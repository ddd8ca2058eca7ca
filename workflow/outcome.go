package workflow

// Outcomes of a node execution, as found in Step.Outcome, in the
// workflow.outcome span attribute and in the node metric's outcome label.
const (
	// OutcomeOK: the node did its work.
	OutcomeOK = "ok"
	// OutcomeRejected: the node refused its input on purpose (a rule, a
	// guard): it worked, the run goes on to whatever handles the refusal.
	OutcomeRejected = "rejected"
	// OutcomeFailed: the node could not do its work because something it
	// depends on failed (a timeout, a service down); the run goes on.
	OutcomeFailed = "failed"
	// OutcomeError: the node returned an error or panicked; the run stops.
	OutcomeError = "error"
	// OutcomeCanceled: the node returned an error because the run's
	// context was done; the run stops.
	OutcomeCanceled = "canceled"
)

// Outcome is how a node reports a step that did not go well without
// returning an error: a rejection or a failure, with the node's own kind
// ("unsafe_query", "query_timeout"), which the engine records and never
// reads. The zero Outcome is OutcomeOK.
type Outcome struct {
	status string
	kind   string
}

// Rejected is the outcome of a node that refused its input on purpose.
func Rejected(kind string) Outcome { return Outcome{status: OutcomeRejected, kind: kind} }

// Failed is the outcome of a node whose work failed for a reason it
// handles itself (the state records it, a branch routes on it).
func Failed(kind string) Outcome { return Outcome{status: OutcomeFailed, kind: kind} }

// Status is OutcomeOK, OutcomeRejected or OutcomeFailed.
func (o Outcome) Status() string {
	if o.status == "" {
		return OutcomeOK
	}
	return o.status
}

// Kind is the node's word for why; empty for OutcomeOK.
func (o Outcome) Kind() string { return o.kind }

// OutcomeReporter is implemented by a state (on its pointer) whose nodes
// report their outcomes. After every node execution the engine calls
// TakeOutcome, which returns the outcome the node recorded and forgets it,
// so the next node starts at OutcomeOK. A node error outweighs the
// reported outcome. States that do not implement it report OutcomeOK for
// every node that returns nil.
//
// The outcome lives in the state rather than in NodeFunc's results so that
// routing stays a pure function of the state: a rejected or failed step
// continues along its edge or branch like any other.
type OutcomeReporter interface {
	TakeOutcome() Outcome
}
