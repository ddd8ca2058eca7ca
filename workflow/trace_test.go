package workflow

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func recordingTracer(t *testing.T) (*tracetest.SpanRecorder, CompileOption) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return rec, WithTracer(tp.Tracer("test"))
}

type spanSummary struct {
	Name  string
	Attrs map[attribute.Key]string
	Code  codes.Code
}

func summarize(spans []sdktrace.ReadOnlySpan) []spanSummary {
	out := make([]spanSummary, len(spans))
	for i, s := range spans {
		attrs := map[attribute.Key]string{}
		for _, kv := range s.Attributes() {
			attrs[kv.Key] = kv.Value.Emit()
		}
		out[i] = spanSummary{Name: s.Name(), Attrs: attrs, Code: s.Status().Code}
	}
	return out
}

func nodeSpan(node, attempt, outcome string, code codes.Code) spanSummary {
	return spanSummary{
		Name: "workflow.node " + node,
		Attrs: map[attribute.Key]string{
			AttrGraph: "retry", AttrNode: node, AttrAttempt: attempt, AttrOutcome: outcome,
		},
		Code: code,
	}
}

func TestRunSpans(t *testing.T) {
	t.Parallel()
	rec, tracer := recordingTracer(t)
	_, err := compile(t, retryGraph(), tracer).Run(t.Context(), &testState{Tries: 1})
	require.NoError(t, err)

	spans := rec.Ended()
	want := []spanSummary{
		nodeSpan("generator", "1", OutcomeOK, codes.Unset),
		nodeSpan("validator", "1", OutcomeOK, codes.Unset),
		nodeSpan("generator", "2", OutcomeOK, codes.Unset),
		nodeSpan("validator", "2", OutcomeOK, codes.Unset),
		{
			Name:  "workflow.run retry",
			Attrs: map[attribute.Key]string{AttrGraph: "retry", AttrSteps: "4", AttrOutcome: OutcomeOK},
		},
	}
	assert.Equal(t, want, summarize(spans))
	run := spans[len(spans)-1]
	for _, s := range spans[:len(spans)-1] {
		assert.Equal(t, run.SpanContext().SpanID(), s.Parent().SpanID(), "span %s is not a child of the run", s.Name())
	}
}

func TestRunSpansRecordNodeError(t *testing.T) {
	t.Parallel()
	rec, tracer := recordingTracer(t)
	g := New[testState]("retry").
		AddNode("generator", func(context.Context, *testState) error { return errors.New("model down") }).
		AddEdge(Start, "generator").AddEdge("generator", End)
	_, err := compile(t, g, tracer).Run(t.Context(), &testState{})
	require.Error(t, err)

	spans := rec.Ended()
	require.Len(t, spans, 2)
	got := summarize(spans)
	assert.Equal(t, nodeSpan("generator", "1", OutcomeError, codes.Error), got[0])
	assert.Equal(t, "model down", spans[0].Status().Description)
	require.Len(t, spans[0].Events(), 1, "want one exception event")
	assert.Equal(t, "exception", spans[0].Events()[0].Name)
	assert.Equal(t, codes.Error, got[1].Code, "run span status")
	assert.Equal(t, OutcomeError, got[1].Attrs[AttrOutcome])
}
