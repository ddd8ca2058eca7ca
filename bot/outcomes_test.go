package bot_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// nodeOutcome is what an operator reads about one node execution: in its
// span (outcome and kind attributes, status) and in the node metric's
// labels.
type nodeOutcome struct {
	Node    string
	Outcome string
	Kind    string
	Status  codes.Code
}

// TestNodeOutcomes runs the real graph through the bot and reads the spans
// and the node metric it leaves: a refused query and a timed-out one are
// told apart from an answer, where they used to say "ok". It sets the
// global tracer and meter providers, so it does not run in parallel.
func TestNodeOutcomes(t *testing.T) {
	e := newEnv(t)
	const question = "How many games were released in 2018?"
	ok := func(node string) nodeOutcome { return nodeOutcome{Node: node, Outcome: workflow.OutcomeOK} }
	tests := []struct {
		name   string
		rules  string
		adjust func(*bot.Config)
		want   []nodeOutcome
	}{
		{
			name: "answered",
			want: []nodeOutcome{
				ok(nodes.NodeRouteIntent), ok(nodes.NodeResolveContext), ok(nodes.NodeGenerateQuery),
				ok(nodes.NodeValidateQuery), ok(nodes.NodeExecuteQuery), ok(nodes.NodeInterpret),
				ok(nodes.NodeFormatAnswer), ok(nodes.NodeSaveTurn),
			},
		},
		{
			name:  "refused query",
			rules: "  - step: generate_sql\n    reply: '{\"sql\": \"DELETE FROM analytics.apps\", \"assumptions\": [], \"explanation\": \"x\"}'\n",
			want: []nodeOutcome{
				ok(nodes.NodeRouteIntent), ok(nodes.NodeResolveContext), ok(nodes.NodeGenerateQuery),
				// The guard worked: a refusal, not an error of the bot's.
				{Node: nodes.NodeValidateQuery, Outcome: workflow.OutcomeRejected, Kind: string(nodes.ErrUnsafeQuery), Status: codes.Unset},
				ok(nodes.NodeHandleError), ok(nodes.NodeSaveTurn),
			},
		},
		{
			// The EXPLAIN of the check is quick; the count of 700 million
			// pairs takes far longer than the statement timeout.
			name:   "timed-out query",
			rules:  "  - step: generate_sql\n    reply: '{\"sql\": \"SELECT count(*) AS pairs FROM analytics.apps a, analytics.apps b\", \"assumptions\": [], \"explanation\": \"x\"}'\n",
			adjust: func(c *bot.Config) { c.Postgres.StatementTimeout = time.Second },
			want: []nodeOutcome{
				ok(nodes.NodeRouteIntent), ok(nodes.NodeResolveContext), ok(nodes.NodeGenerateQuery),
				ok(nodes.NodeValidateQuery),
				{Node: nodes.NodeExecuteQuery, Outcome: workflow.OutcomeFailed, Kind: string(nodes.ErrQueryTimeout), Status: codes.Error},
				ok(nodes.NodeHandleError), ok(nodes.NodeSaveTurn),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans, reader := recordTelemetry(t)
			var adjust []func(*bot.Config)
			if tt.adjust != nil {
				adjust = append(adjust, tt.adjust)
			}
			b := newBot(t, e, script(tt.rules), adjust...)
			s, res := ask(t, b, bot.NewThreadID(), question)
			require.Len(t, res.Steps, len(tt.want), "path %v (error %s: %s)", res.Path(), s.ErrorKind, s.ErrorDetail)

			assert.Equal(t, tt.want, nodeSpans(spans.Ended()), "node spans")
			wantMetric := map[string]uint64{}
			for _, w := range tt.want {
				wantMetric[metricKey(w.Node, w.Outcome, w.Kind)]++
			}
			assert.Equal(t, wantMetric, nodeMetric(t, reader), "analyticsbot.node.duration executions by labels")
		})
	}
}

// recordTelemetry installs global providers that record spans and metrics
// for the rest of the test.
func recordTelemetry(t *testing.T) (*tracetest.SpanRecorder, *sdkmetric.ManualReader) {
	t.Helper()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	prevTP, prevMP := otel.GetTracerProvider(), otel.GetMeterProvider()
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	t.Cleanup(func() {
		otel.SetTracerProvider(prevTP)
		otel.SetMeterProvider(prevMP)
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	return spans, reader
}

// nodeSpans reads the node spans in the order they ended.
func nodeSpans(spans []sdktrace.ReadOnlySpan) []nodeOutcome {
	var out []nodeOutcome
	for _, s := range spans {
		if !strings.HasPrefix(s.Name(), "workflow.node ") {
			continue
		}
		o := nodeOutcome{Status: s.Status().Code}
		for _, kv := range s.Attributes() {
			switch kv.Key {
			case workflow.AttrNode:
				o.Node = kv.Value.AsString()
			case workflow.AttrOutcome:
				o.Outcome = kv.Value.AsString()
			case workflow.AttrOutcomeKind:
				o.Kind = kv.Value.AsString()
			}
		}
		out = append(out, o)
	}
	return out
}

func metricKey(node, outcome, kind string) string {
	return fmt.Sprintf("node=%s outcome=%s kind=%s", node, outcome, kind)
}

// nodeMetric counts the executions analyticsbot.node.duration recorded, by
// its labels.
func nodeMetric(t *testing.T, reader *sdkmetric.ManualReader) map[string]uint64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	out := map[string]uint64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "analyticsbot.node.duration" {
				continue
			}
			h, ok := m.Data.(metricdata.Histogram[float64])
			require.True(t, ok, "node duration is a histogram, got %T", m.Data)
			for _, dp := range h.DataPoints {
				label := func(k string) string { v, _ := dp.Attributes.Value(attribute.Key(k)); return v.AsString() }
				out[metricKey(label("node"), label("outcome"), label("kind"))] += dp.Count
			}
		}
	}
	return out
}
