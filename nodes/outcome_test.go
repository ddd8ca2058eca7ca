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
