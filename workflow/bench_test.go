package workflow

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/trace/noop"
)

// BenchmarkRun measures engine overhead: six nodes that do nothing, so the
// time and allocations are the engine's own (spans go to a no-op tracer).
func BenchmarkRun(b *testing.B) {
	nop := func(context.Context, *testState) error { return nil }
	g := New[testState]("bench")
	prev := Start
	for _, n := range []string{"classify", "resolve", "generate", "validate", "execute", "format"} {
		g.AddNode(n, nop).AddEdge(prev, n)
		prev = n
	}
	g.AddEdge(prev, End)
	r, err := g.Compile(WithTracer(noop.NewTracerProvider().Tracer("bench")))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		var s testState
		if _, err := r.Run(ctx, &s); err != nil {
			b.Fatal(err)
		}
	}
}
