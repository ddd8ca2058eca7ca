package workflow

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Span attribute keys set by the engine.
const (
	AttrGraph   = attribute.Key("workflow.graph")
	AttrNode    = attribute.Key("workflow.node")
	AttrAttempt = attribute.Key("workflow.attempt")
	AttrOutcome = attribute.Key("workflow.outcome")
	// AttrOutcomeKind is the kind a node reported with a rejected or
	// failed outcome (OutcomeReporter).
	AttrOutcomeKind = attribute.Key("workflow.outcome_kind")
	AttrSteps       = attribute.Key("workflow.steps")
)

// Runnable is a compiled graph. It holds no per-run data, so one Runnable may
// serve concurrent runs, each with its own state.
type Runnable[S any] struct {
	name        string
	maxSteps    int
	tracer      trace.Tracer
	runSpanName string
	entry       exit[S]
	nodes       []compiledNode[S]
}

type compiledNode[S any] struct {
	info     NodeInfo
	fn       NodeFunc[S]
	spanName string
	exit     exit[S]
}

// Observer follows a run node by node, e.g. to show progress to a user.
// Calls happen on the goroutine of Run, so a slow observer slows the run.
type Observer interface {
	// NodeStarted is called before each node execution; attempt starts at 1.
	NodeStarted(ctx context.Context, node NodeInfo, attempt int)
	// NodeFinished is called after each node execution, failed ones included.
	NodeFinished(ctx context.Context, step Step)
}

// StateObserver is an Observer that also reads the state after each node,
// for progress displays that show what a node produced (a row count). It
// is called on the run's goroutine right after NodeFinished and must not
// keep s or change it.
type StateObserver[S any] interface {
	NodeState(ctx context.Context, step Step, s *S)
}

// RunOption configures one Run.
type RunOption func(*runConfig)

type runConfig struct {
	observers []Observer
}

// WithObserver adds an observer to the run; observers are called in the order
// given. A nil observer is ignored.
func WithObserver(o Observer) RunOption {
	return func(c *runConfig) {
		if o != nil {
			c.observers = append(c.observers, o)
		}
	}
}

// Step records one node execution.
type Step struct {
	Node     string
	Attempt  int // executions of Node so far in this run, starting at 1
	Start    time.Time
	Duration time.Duration
	// Outcome is OutcomeOK, OutcomeRejected, OutcomeFailed, OutcomeError
	// or OutcomeCanceled.
	Outcome string
	// Kind is the kind the node reported with OutcomeRejected or
	// OutcomeFailed; empty otherwise.
	Kind string
	Err  error // what the node returned
}

// Result is the trace of one run. Run returns it with errors too, holding the
// steps done before the run stopped.
type Result struct {
	Steps []Step
	Total time.Duration
}

// Path returns the executed node names in order, repeats included.
func (r Result) Path() []string {
	path := make([]string, len(r.Steps))
	for i, s := range r.Steps {
		path[i] = s.Node
	}
	return path
}

// Duration returns the time spent in node over all its attempts.
func (r Result) Duration(node string) time.Duration {
	var d time.Duration
	for _, s := range r.Steps {
		if s.Node == node {
			d += s.Duration
		}
	}
	return d
}

// Attempts returns how many times node ran.
func (r Result) Attempts(node string) int {
	n := 0
	for _, s := range r.Steps {
		if s.Node == node {
			n++
		}
	}
	return n
}

// Name returns the graph name given to New.
func (r *Runnable[S]) Name() string { return r.name }

// Nodes lists the nodes in declaration order.
func (r *Runnable[S]) Nodes() []NodeInfo {
	infos := make([]NodeInfo, len(r.nodes))
	for i, n := range r.nodes {
		infos[i] = n.info
	}
	return infos
}

// Run executes the graph on s from Start until End. It stops at the first
// node error (*NodeError), undeclared branch target (*BranchError), the step
// cap (ErrMaxSteps) or when ctx is done (the error then matches ctx.Err() with
// errors.Is). The context is checked before every node, not during one: nodes
// that wait must watch ctx themselves.
func (r *Runnable[S]) Run(ctx context.Context, s *S, opts ...RunOption) (res Result, err error) {
	var cfg runConfig
	for _, opt := range opts {
		opt(&cfg)
	}
	ctx, span := r.tracer.Start(ctx, r.runSpanName, trace.WithAttributes(AttrGraph.String(r.name)))
	began := time.Now()
	defer func() {
		res.Total = time.Since(began)
		if !span.IsRecording() {
			span.End()
			return
		}
		span.SetAttributes(AttrSteps.Int(len(res.Steps)), AttrOutcome.String(outcomeOf(ctx, err)))
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}()

	res.Steps = make([]Step, 0, 2*len(r.nodes))
	attempts := make([]int, len(r.nodes))
	reporter, _ := any(s).(OutcomeReporter)
	cur, err := r.follow(Start, &r.entry, s)
	for err == nil && cur != endIndex {
		n := &r.nodes[cur]
		if ctx.Err() != nil {
			return res, fmt.Errorf("workflow %q: stopped before node %q: %w", r.name, n.info.Name, ctxError(ctx))
		}
		if len(res.Steps) >= r.maxSteps {
			return res, fmt.Errorf("workflow %q: stopped before node %q after %d steps: %w",
				r.name, n.info.Name, len(res.Steps), ErrMaxSteps)
		}
		attempts[cur]++
		step := r.exec(ctx, n, attempts[cur], s, reporter, cfg.observers)
		res.Steps = append(res.Steps, step)
		if step.Err != nil {
			err = &NodeError{Node: n.info.Name, Attempt: step.Attempt, Err: step.Err}
			break
		}
		cur, err = r.follow(n.info.Name, &n.exit, s)
	}
	if err != nil {
		return res, fmt.Errorf("workflow %q: %w", r.name, err)
	}
	return res, nil
}

// exec runs one node inside its own span and tells the observers. rep, when
// not nil, is s as an OutcomeReporter.
func (r *Runnable[S]) exec(ctx context.Context, n *compiledNode[S], attempt int, s *S, rep OutcomeReporter, obs []Observer) Step {
	for _, o := range obs {
		o.NodeStarted(ctx, n.info, attempt)
	}
	nctx, span := r.tracer.Start(ctx, n.spanName, trace.WithAttributes(
		AttrGraph.String(r.name), AttrNode.String(n.info.Name), AttrAttempt.Int(attempt)))
	step := Step{Node: n.info.Name, Attempt: attempt, Start: time.Now()}
	step.Err = callNode(nctx, n.fn, s)
	step.Duration = time.Since(step.Start)
	step.Outcome = outcomeOf(nctx, step.Err)
	if rep != nil {
		// Taken even after an error, so the next node does not inherit it.
		if o := rep.TakeOutcome(); step.Err == nil && o.status != "" {
			step.Outcome, step.Kind = o.status, o.kind
		}
	}
	if span.IsRecording() { // spares the attribute allocations when nobody records
		setOutcome(span, step)
	}
	span.End()
	for _, o := range obs {
		o.NodeFinished(ctx, step)
		if so, ok := o.(StateObserver[S]); ok {
			so.NodeState(ctx, step, s)
		}
	}
	return step
}

// setOutcome writes step's outcome on its span. A failed step and a node
// error set the span's status to Error; a rejection leaves it unset, as
// OpenTelemetry does for a server's 4xx: the node worked, its input was
// refused, and error rates in trace backends stay about the bot's faults.
func setOutcome(span trace.Span, step Step) {
	span.SetAttributes(AttrOutcome.String(step.Outcome))
	if step.Kind != "" {
		span.SetAttributes(AttrOutcomeKind.String(step.Kind))
	}
	switch {
	case step.Err != nil:
		span.RecordError(step.Err)
		span.SetStatus(codes.Error, step.Err.Error())
	case step.Outcome == OutcomeFailed:
		span.SetStatus(codes.Error, step.Kind)
	}
}

// PanicError is a node's panic, turned into an error so that one bad input
// cannot take the whole process down.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// callNode runs fn and recovers its panic as a *PanicError.
func callNode[S any](ctx context.Context, fn NodeFunc[S], s *S) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return fn(ctx, s)
}

// follow returns the index of the node after from, checking a branch's
// answer against its declared targets.
func (r *Runnable[S]) follow(from string, x *exit[S], s *S) (int, error) {
	if x.route == nil {
		return x.targetIdx[0], nil
	}
	to := x.route(s)
	if i := slices.Index(x.targets, to); i >= 0 {
		return x.targetIdx[i], nil
	}
	return endIndex, &BranchError{From: from, Target: to, Allowed: slices.Clone(x.targets)}
}

func outcomeOf(ctx context.Context, err error) string {
	switch {
	case err == nil:
		return OutcomeOK
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), ctx.Err() != nil:
		return OutcomeCanceled
	default:
		return OutcomeError
	}
}

// ctxError returns ctx.Err(), joined with the cancel cause when one was given,
// so callers can match either with errors.Is.
func ctxError(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, err) {
		return fmt.Errorf("%w: %w", err, cause)
	}
	return err
}
