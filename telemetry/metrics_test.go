package telemetry

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// step is a node execution of a test result.
func step(node string, ms int, outcome string) workflow.Step {
	return workflow.Step{Node: node, Duration: time.Duration(ms) * time.Millisecond, Outcome: outcome}
}

// answeredTurn is a question answered with SQL at the first attempt.
func answeredTurn() (*nodes.State, workflow.Result) {
	s := &nodes.State{Intent: nodes.IntentAnalytics, LLMCalls: 3, PromptTokens: 1200, CompletionTokens: 80}
	res := workflow.Result{Total: 1500 * time.Millisecond, Steps: []workflow.Step{
		step(nodes.NodeRouteIntent, 300, workflow.OutcomeOK),
		step(nodes.NodeResolveContext, 1, workflow.OutcomeOK),
		step(nodes.NodeGenerateSQL, 700, workflow.OutcomeOK),
		step(nodes.NodeValidateSQL, 20, workflow.OutcomeOK),
		step(nodes.NodeExecuteSQL, 30, workflow.OutcomeOK),
		step(nodes.NodeInterpret, 400, workflow.OutcomeOK),
		step(nodes.NodeFormatAnswer, 2, workflow.OutcomeOK),
		step(nodes.NodeSaveTurn, 5, workflow.OutcomeOK),
	}}
	return s, res
}

// rejectedTurn ends on SQL the guard refused as a write.
func rejectedTurn() (*nodes.State, workflow.Result) {
	s := &nodes.State{Intent: nodes.IntentAnalytics, LLMCalls: 2, PromptTokens: 900, CompletionTokens: 40,
		ErrorKind: nodes.ErrUnsafeSQL, ErrorDetail: "write: INSERT statements change data"}
	res := workflow.Result{Total: 900 * time.Millisecond, Steps: []workflow.Step{
		step(nodes.NodeRouteIntent, 300, workflow.OutcomeOK),
		step(nodes.NodeResolveContext, 1, workflow.OutcomeOK),
		step(nodes.NodeGenerateSQL, 500, workflow.OutcomeOK),
		step(nodes.NodeValidateSQL, 3, workflow.OutcomeOK),
		step(nodes.NodeHandleError, 1, workflow.OutcomeOK),
		step(nodes.NodeSaveTurn, 5, workflow.OutcomeOK),
	}}
	return s, res
}

// collected reads everything reader holds, keyed by metric name.
func collected(t *testing.T, reader *sdkmetric.ManualReader) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm), "collect")
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

func key(set attribute.Set) string { return set.Encoded(attribute.DefaultEncoder()) }

// counts returns a counter's values by attribute set ("k=v,k=v").
func counts(t *testing.T, ms map[string]metricdata.Metrics, name string) map[string]int64 {
	t.Helper()
	m, ok := ms[name]
	if !ok {
		return nil
	}
	sum, ok := m.Data.(metricdata.Sum[int64])
	require.True(t, ok, "%s: got %T, want an int64 sum", name, m.Data)
	out := map[string]int64{}
	for _, dp := range sum.DataPoints {
		out[key(dp.Attributes)] = dp.Value
	}
	return out
}

// histograms returns a histogram's observation counts and sums by attribute set.
func histograms(t *testing.T, ms map[string]metricdata.Metrics, name string) (map[string]uint64, map[string]float64) {
	t.Helper()
	m, ok := ms[name]
	if !ok {
		return nil, nil
	}
	h, ok := m.Data.(metricdata.Histogram[float64])
	require.True(t, ok, "%s: got %T, want a float64 histogram", name, m.Data)
	n, sum := map[string]uint64{}, map[string]float64{}
	for _, dp := range h.DataPoints {
		n[key(dp.Attributes)], sum[key(dp.Attributes)] = dp.Count, dp.Sum
	}
	return n, sum
}

func TestRecordTurnMetrics(t *testing.T) {
	t.Parallel()
	reader := sdkmetric.NewManualReader()
	r := newRecorder(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	ctx := context.Background()

	s, res := answeredTurn()
	r.recordTurn(ctx, s, res, "sql")
	r.recordTurn(ctx, s, res, "sql")
	s, res = rejectedTurn()
	r.recordTurn(ctx, s, res, "cube")
	ms := collected(t, reader)

	gotTurns := counts(t, ms, "analyticsbot.turns")
	wantTurns := map[string]int64{
		"backend=sql,intent=analytics_query,outcome=ok":          2,
		"backend=cube,intent=analytics_query,outcome=unsafe_sql": 1,
	}
	assert.Equal(t, wantTurns, gotTurns, "turns: got %v, want %v", gotTurns, wantTurns)

	n, sum := histograms(t, ms, "analyticsbot.turn.duration")
	assert.Equal(t, uint64(2), n["backend=sql,intent=analytics_query,outcome=ok"], "answered turn durations: got %v", n)
	assert.InDelta(t, 3.0, sum["backend=sql,intent=analytics_query,outcome=ok"], 1e-9, "answered turn seconds: got %v, want 3", sum)
	assert.Equal(t, "s", ms["analyticsbot.turn.duration"].Unit, "turn duration unit")

	n, sum = histograms(t, ms, "analyticsbot.node.duration")
	assert.Equal(t, uint64(3), n["node=generate_sql,outcome=ok"], "generate_sql executions: got %v, want 3", n)
	assert.InDelta(t, 1.9, sum["node=generate_sql,outcome=ok"], 1e-9, "generate_sql seconds: got %v, want 1.9", sum)
	assert.Equal(t, uint64(1), n["node=handle_error,outcome=ok"], "handle_error executions: got %v, want 1", n)
	assert.NotContains(t, n, "node=interpret,outcome=error", "no failed interpret was recorded")

	gotCalls := counts(t, ms, "analyticsbot.model.calls")
	assert.Equal(t, map[string]int64{"": 8}, gotCalls, "model calls: got %v, want 8 in all", gotCalls)
	gotTokens := counts(t, ms, "analyticsbot.model.tokens")
	wantTokens := map[string]int64{"kind=prompt": 3300, "kind=completion": 200}
	assert.Equal(t, wantTokens, gotTokens, "tokens: got %v, want %v", gotTokens, wantTokens)

	gotRejections := counts(t, ms, "analyticsbot.validation.rejections")
	assert.Equal(t, map[string]int64{"class=write": 1}, gotRejections, "rejections: got %v, want one write", gotRejections)
}

func TestTurnOutcome(t *testing.T) {
	t.Parallel()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	answered, answeredRes := answeredTurn()
	failedNode := workflow.Result{Steps: []workflow.Step{
		step(nodes.NodeRouteIntent, 1, workflow.OutcomeOK), {Node: nodes.NodeGenerateSQL, Outcome: workflow.OutcomeError, Err: errors.New("boom")},
	}}
	tests := []struct {
		name string
		ctx  context.Context
		s    *nodes.State
		res  workflow.Result
		want string
	}{
		{name: "answered", ctx: context.Background(), s: answered, res: answeredRes, want: "ok"},
		{name: "an error reply is its kind", ctx: context.Background(),
			s: &nodes.State{ErrorKind: nodes.ErrQueryTimeout}, res: answeredRes, want: "query_timeout"},
		{name: "a node error without a kind", ctx: context.Background(), s: &nodes.State{}, res: failedNode, want: "internal"},
		{name: "stopped by the context before any node", ctx: canceled, s: &nodes.State{}, res: workflow.Result{}, want: "canceled"},
		{name: "a node canceled", ctx: context.Background(), s: &nodes.State{},
			res: workflow.Result{Steps: []workflow.Step{step(nodes.NodeGenerateSQL, 1, workflow.OutcomeCanceled)}}, want: "canceled"},
		{name: "the step cap hit before save_turn", ctx: context.Background(), s: &nodes.State{},
			res: workflow.Result{Steps: []workflow.Step{step(nodes.NodeGenerateSQL, 1, workflow.OutcomeOK)}}, want: "internal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := turnOutcome(tt.ctx, tt.s, tt.res)
			assert.Equal(t, tt.want, got, "got outcome %q, want %q", got, tt.want)
		})
	}
}

func TestRejectionClass(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		kind   nodes.ErrorKind
		detail string
		want   string
	}{
		{name: "unsafe class", kind: nodes.ErrUnsafeSQL, detail: "write: INSERT statements change data", want: "write"},
		{name: "fixable class", kind: nodes.ErrInvalidSQL, detail: "relation_not_allowed: analytics.secrets is not readable", want: "relation_not_allowed"},
		{name: "reason holding a colon", kind: nodes.ErrInvalidSQL, detail: "syntax_error: at or near \"FROM\": bad", want: "syntax_error"},
		{name: "database error on EXPLAIN", kind: nodes.ErrInvalidSQL, detail: "column \"x\" does not exist"},
		{name: "a class-like word in another kind's detail", kind: nodes.ErrInternal, detail: "explain: the server hung up"},
		{name: "class without a reason", kind: nodes.ErrUnsafeSQL, detail: "write"},
		{name: "unknown class", kind: nodes.ErrInvalidSQL, detail: "the reply held no SQL statement: reply with JSON"},
		{name: "no error", detail: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := rejectionClass(tt.kind, tt.detail)
			assert.Equal(t, tt.want != "", ok, "found a class in %s %q: got %v", tt.kind, tt.detail, ok)
			assert.Equal(t, tt.want, string(got), "class of %s %q: got %q, want %q", tt.kind, tt.detail, got, tt.want)
		})
	}
}
