package nodes

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/workflow"
)

// step is a node execution of a test result.
func step(node string, ms int, outcome string) workflow.Step {
	return workflow.Step{Node: node, Duration: time.Duration(ms) * time.Millisecond, Outcome: outcome}
}

func TestOutcome(t *testing.T) {
	t.Parallel()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	answered := &State{Intent: IntentAnalytics}
	answeredRes := workflow.Result{Steps: []workflow.Step{
		step(NodeRouteIntent, 300, workflow.OutcomeOK), step(NodeGenerateQuery, 700, workflow.OutcomeOK),
		step(NodeSaveTurn, 5, workflow.OutcomeOK),
	}}
	failedNode := workflow.Result{Steps: []workflow.Step{
		step(NodeRouteIntent, 1, workflow.OutcomeOK), {Node: NodeGenerateQuery, Outcome: workflow.OutcomeError, Err: errors.New("boom")},
	}}
	tests := []struct {
		name string
		ctx  context.Context
		s    *State
		res  workflow.Result
		want string
	}{
		{name: "answered", ctx: context.Background(), s: answered, res: answeredRes, want: "ok"},
		{name: "an error reply is its kind", ctx: context.Background(),
			s: &State{ErrorKind: ErrQueryTimeout}, res: answeredRes, want: "query_timeout"},
		{name: "a node error without a kind", ctx: context.Background(), s: &State{}, res: failedNode, want: "internal"},
		{name: "stopped by the context before any node", ctx: canceled, s: &State{}, res: workflow.Result{}, want: "canceled"},
		{name: "a caller gone outranks the error a node recorded on the way out", ctx: canceled,
			s: &State{ErrorKind: ErrInternal}, res: answeredRes, want: "canceled"},
		{name: "a node canceled", ctx: context.Background(), s: &State{},
			res: workflow.Result{Steps: []workflow.Step{step(NodeGenerateQuery, 1, workflow.OutcomeCanceled)}}, want: "canceled"},
		{name: "the step cap hit before save_turn", ctx: context.Background(), s: &State{},
			res: workflow.Result{Steps: []workflow.Step{step(NodeGenerateQuery, 1, workflow.OutcomeOK)}}, want: "internal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Outcome(tt.ctx, tt.s, tt.res)
			assert.Equal(t, tt.want, got, "got outcome %q, want %q", got, tt.want)
		})
	}
}

func TestErrorKindOutcome(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind ErrorKind
		want string
	}{
		{"", workflow.OutcomeOK},
		{ErrEmptyMessage, workflow.OutcomeRejected},
		{ErrMessageTooLong, workflow.OutcomeRejected},
		{ErrInvalidQuery, workflow.OutcomeRejected},
		{ErrUnsafeQuery, workflow.OutcomeRejected},
		{ErrAccessDenied, workflow.OutcomeRejected},
		{ErrNotAdmitted, workflow.OutcomeRejected},
		{ErrForbidden, workflow.OutcomeRejected},
		{ErrNoPreviousQuery, workflow.OutcomeRejected},
		{ErrAccessUnknown, workflow.OutcomeFailed},
		{ErrQueryTimeout, workflow.OutcomeFailed},
		{ErrWarehouseDown, workflow.OutcomeFailed},
		{ErrWarehouseNoAnswer, workflow.OutcomeFailed},
		{ErrWarehouseAuth, workflow.OutcomeFailed},
		{ErrWarehouseDenied, workflow.OutcomeFailed},
		{ErrNoData, workflow.OutcomeFailed},
		{ErrDatabaseDown, workflow.OutcomeFailed},
		{ErrModelUnavailable, workflow.OutcomeFailed},
		{ErrModelTimeout, workflow.OutcomeFailed},
		{ErrModelRateLimited, workflow.OutcomeFailed},
		{ErrModelRefused, workflow.OutcomeFailed},
		{ErrInternal, workflow.OutcomeFailed},
	}
	for _, tt := range tests {
		got := tt.kind.Outcome()
		assert.Equal(t, tt.want, got.Status(), "outcome of %q", tt.kind)
		assert.Equal(t, string(tt.kind), got.Kind(), "kind of %q", tt.kind)
	}
}

// A node's failure is reported once, to the engine after that node; the
// error kind stays for the routes and handle_error.
func TestTakeOutcome(t *testing.T) {
	t.Parallel()
	var s State
	dataFailure(&s, context.DeadlineExceeded)
	assert.Equal(t, workflow.Failed(string(ErrQueryTimeout)), s.TakeOutcome())
	assert.Equal(t, workflow.Outcome{}, s.TakeOutcome(), "the next node starts at ok")
	assert.Equal(t, ErrQueryTimeout, s.ErrorKind, "the kind stays on the state")

	s.fail(ErrInvalidQuery, "column x does not exist")
	s.clearError() // a retry starts afresh
	assert.Equal(t, workflow.Outcome{}, s.TakeOutcome())
}
