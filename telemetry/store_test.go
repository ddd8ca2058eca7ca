package telemetry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// These tests install global providers, as Setup does in the program, so
// they do not run in parallel.

// spanText is everything a span carries as text: its name and attributes.
func spanText(s sdktrace.ReadOnlySpan) string {
	var b strings.Builder
	b.WriteString(s.Name())
	for _, kv := range s.Attributes() {
		fmt.Fprintf(&b, " %s=%s", kv.Key, kv.Value.Emit())
	}
	return b.String()
}

func TestSQLSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })
	db := storetest.New(t) // store.Open after the provider is in place, as in the program

	const secret = "alice-secret-thread-42"
	ctx, parent := tp.Tracer("test").Start(context.Background(), "turn")
	var echoed string
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT $1::text AS telemetry_probe", secret).Scan(&echoed), "probe query")
	_, err := db.RecentTurns(ctx, secret, 5)
	require.NoError(t, err, "recent turns")
	_, err = db.Pool().Exec(context.Background(), "SELECT 1 AS outside_any_span")
	require.NoError(t, err)
	parent.End()

	var probe, turns sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		text := spanText(s)
		assert.NotContains(t, text, secret, "a statement parameter leaked into span %q", s.Name())
		assert.NotContains(t, text, "outside_any_span", "a statement outside any span made one")
		switch {
		case strings.Contains(text, "telemetry_probe"):
			probe = s
		case strings.Contains(text, "FROM conversation_turns"):
			turns = s
		}
	}
	require.NotNil(t, probe, "no span for the probe query among %d spans", len(rec.Ended()))
	require.NotNil(t, turns, "no span for RecentTurns among %d spans", len(rec.Ended()))
	for _, s := range []sdktrace.ReadOnlySpan{probe, turns} {
		assert.Equal(t, "SELECT", s.Name(), "span named by the statement kind")
		assert.Equal(t, trace.SpanKindClient, s.SpanKind(), "span kind of %s", s.Name())
		assert.Equal(t, parent.SpanContext().SpanID(), s.Parent().SpanID(), "the SQL span is a child of the caller's span")
		assert.Equal(t, parent.SpanContext().TraceID(), s.SpanContext().TraceID(), "the SQL span is in the caller's trace")
	}
	assert.Contains(t, spanText(probe), "db.query.text=SELECT $1::text AS telemetry_probe", "the statement text is kept")
}

func TestInstrumentCacheCountsHitsAndMisses(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	prev := otel.GetMeterProvider()
	otel.SetMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	t.Cleanup(func() { otel.SetMeterProvider(prev) })

	c, err := store.NewCache(storetest.New(t), store.CacheLimits{})
	require.NoError(t, err)
	cache := InstrumentCache(c)
	ctx := context.Background()
	result := store.CachedResult{ThreadID: "T1", QueryID: "0123abcd", Query: warehouse.Query{Backend: "postgres", Text: "SELECT 1"}, Question: "one?",
		Result: warehouse.Result{Columns: []warehouse.Column{{Name: "n", Type: "int8"}}, Rows: [][]any{{int64(1)}}, RowCount: 1}}
	require.NoError(t, cache.Put(ctx, result), "put")

	steps := []struct {
		name    string
		read    func() (store.CachedResult, error)
		wantHit bool
	}{
		{name: "get a stored result", read: func() (store.CachedResult, error) { return cache.Get(ctx, "T1", "0123abcd") }, wantHit: true},
		{name: "get an unknown query", read: func() (store.CachedResult, error) { return cache.Get(ctx, "T1", "ffffffff") }},
		{name: "get from another thread", read: func() (store.CachedResult, error) { return cache.Get(ctx, "T2", "0123abcd") }},
		{name: "latest of the thread", read: func() (store.CachedResult, error) { return cache.Latest(ctx, "T1") }, wantHit: true},
		{name: "latest of an empty thread", read: func() (store.CachedResult, error) { return cache.Latest(ctx, "T3") }},
	}
	for _, st := range steps {
		got, err := st.read()
		if st.wantHit {
			require.NoError(t, err, st.name)
			assert.Equal(t, "0123abcd", got.QueryID, "%s: got query %q", st.name, got.QueryID)
		} else {
			assert.True(t, errors.Is(err, store.ErrNotFound), "%s: got %v, want ErrNotFound", st.name, err)
		}
	}

	gotCounts := counts(t, collected(t, reader), "analyticsbot.cache.requests")
	want := map[string]int64{"result=hit": 2, "result=miss": 3}
	assert.Equal(t, want, gotCounts, "cache requests: got %v, want %v (Put is not a read)", gotCounts, want)
}
