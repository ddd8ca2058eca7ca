package telemetry

import (
	"context"
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
		step(nodes.NodeGenerateQuery, 700, workflow.OutcomeOK),
		step(nodes.NodeValidateQuery, 20, workflow.OutcomeOK),
		step(nodes.NodeExecuteQuery, 30, workflow.OutcomeOK),
		step(nodes.NodeInterpret, 400, workflow.OutcomeOK),
		step(nodes.NodeFormatAnswer, 2, workflow.OutcomeOK),
		step(nodes.NodeSaveTurn, 5, workflow.OutcomeOK),
	}}
	return s, res
}

// rejectedTurn ends on SQL the guard refused as a write.
func rejectedTurn() (*nodes.State, workflow.Result) {
	s := &nodes.State{Intent: nodes.IntentAnalytics, LLMCalls: 2, PromptTokens: 900, CompletionTokens: 40,
		ErrorKind: nodes.ErrUnsafeQuery, ErrorDetail: "write: INSERT statements change data", ErrorClass: "write"}
	res := workflow.Result{Total: 900 * time.Millisecond, Steps: []workflow.Step{
		step(nodes.NodeRouteIntent, 300, workflow.OutcomeOK),
		step(nodes.NodeResolveContext, 1, workflow.OutcomeOK),
		step(nodes.NodeGenerateQuery, 500, workflow.OutcomeOK),
		{Node: nodes.NodeValidateQuery, Duration: 3 * time.Millisecond, Outcome: workflow.OutcomeRejected, Kind: string(nodes.ErrUnsafeQuery)},
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
	r.recordTurn(ctx, s, res, "postgres")
	r.recordTurn(ctx, s, res, "postgres")
	s, res = rejectedTurn()
	r.recordTurn(ctx, s, res, "cube")
	ms := collected(t, reader)

	gotTurns := counts(t, ms, "analyticsbot.turns")
	wantTurns := map[string]int64{
		"backend=postgres,intent=analytics_query,outcome=ok":       2,
		"backend=cube,intent=analytics_query,outcome=unsafe_query": 1,
	}
	assert.Equal(t, wantTurns, gotTurns, "turns: got %v, want %v", gotTurns, wantTurns)

	n, sum := histograms(t, ms, "analyticsbot.turn.duration")
	assert.Equal(t, uint64(2), n["backend=postgres,intent=analytics_query,outcome=ok"], "answered turn durations: got %v", n)
	assert.InDelta(t, 3.0, sum["backend=postgres,intent=analytics_query,outcome=ok"], 1e-9, "answered turn seconds: got %v, want 3", sum)
	assert.Equal(t, "s", ms["analyticsbot.turn.duration"].Unit, "turn duration unit")

	n, sum = histograms(t, ms, "analyticsbot.node.duration")
	assert.Equal(t, uint64(3), n["node=generate_query,outcome=ok"], "generate_query executions: got %v, want 3", n)
	assert.InDelta(t, 1.9, sum["node=generate_query,outcome=ok"], 1e-9, "generate_query seconds: got %v, want 1.9", sum)
	assert.Equal(t, uint64(1), n["node=handle_error,outcome=ok"], "handle_error executions: got %v, want 1", n)
	assert.NotContains(t, n, "node=interpret,outcome=error", "no failed interpret was recorded")
	assert.Equal(t, uint64(2), n["node=validate_query,outcome=ok"], "validate_query passes: got %v", n)
	assert.Equal(t, uint64(1), n["kind=unsafe_query,node=validate_query,outcome=rejected"],
		"the refusal is labelled with its outcome and kind: got %v", n)

	gotCalls := counts(t, ms, "analyticsbot.model.calls")
	assert.Equal(t, map[string]int64{"": 8}, gotCalls, "model calls: got %v, want 8 in all", gotCalls)
	gotTokens := counts(t, ms, "analyticsbot.model.tokens")
	wantTokens := map[string]int64{"kind=prompt": 3300, "kind=completion": 200}
	assert.Equal(t, wantTokens, gotTokens, "tokens: got %v, want %v", gotTokens, wantTokens)

	gotRejections := counts(t, ms, "analyticsbot.validation.rejections")
	assert.Equal(t, map[string]int64{"class=write": 1}, gotRejections, "rejections: got %v, want one write", gotRejections)
}

// A rejection counts only with a class from a backend's fixed set, never
// from error text.
func TestRejectionsNeedAClass(t *testing.T) {
	t.Parallel()
	reader := sdkmetric.NewManualReader()
	r := newRecorder(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	ctx := context.Background()
	for _, s := range []*nodes.State{
		{ErrorKind: nodes.ErrInvalidQuery, ErrorDetail: `column "x" does not exist`},
		{ErrorKind: nodes.ErrInvalidQuery, ErrorDetail: "relation_not_allowed: secrets", ErrorClass: "relation_not_allowed"},
		{ErrorKind: nodes.ErrInternal, ErrorDetail: "write: a class-like word in another kind", ErrorClass: "write"},
	} {
		r.recordTurn(ctx, s, workflow.Result{}, "postgres")
	}
	got := counts(t, collected(t, reader), "analyticsbot.validation.rejections")
	assert.Equal(t, map[string]int64{"class=relation_not_allowed": 1}, got)
}

func TestCapacityGauges(t *testing.T) {
	t.Parallel()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	running, held := 3, int64(1<<20)
	stop, err := ObserveCapacity(mp, Capacity{
		Turns: func() (int, int) { return running, 2 },
		Cache: func() (int, int64) { return 4, held },
	})
	require.NoError(t, err)
	gauge := func(ms map[string]metricdata.Metrics, name string) int64 {
		t.Helper()
		g, ok := ms[name].Data.(metricdata.Gauge[int64])
		require.True(t, ok, "%s: got %T, want an int64 gauge", name, ms[name].Data)
		require.Len(t, g.DataPoints, 1)
		return g.DataPoints[0].Value
	}
	ms := collected(t, reader)
	assert.EqualValues(t, 3, gauge(ms, "analyticsbot.turns.running"))
	assert.EqualValues(t, 2, gauge(ms, "analyticsbot.turns.waiting"))
	assert.EqualValues(t, 4, gauge(ms, "analyticsbot.cache.results"))
	assert.EqualValues(t, 1<<20, gauge(ms, "analyticsbot.cache.bytes"))
	assert.Equal(t, "By", ms["analyticsbot.cache.bytes"].Unit)

	running = 7
	assert.EqualValues(t, 7, gauge(collected(t, reader), "analyticsbot.turns.running"), "read at each collection")
	stop()
	_, ok := collected(t, reader)["analyticsbot.turns.running"]
	assert.False(t, ok, "nothing after stop")
}
