package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// logLines runs log against a JSON logger wrapped by LogHandler and returns
// the decoded lines.
func logLines(t *testing.T, log func(*slog.Logger)) []map[string]any {
	t.Helper()
	var buf bytes.Buffer
	log(slog.New(LogHandler(slog.NewJSONHandler(&buf, nil))))
	var lines []map[string]any
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var line map[string]any
		require.NoError(t, dec.Decode(&line), "log line")
		lines = append(lines, line)
	}
	return lines
}

func TestLogHandlerAddsTraceIDs(t *testing.T) {
	t.Parallel()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tracetest.NewSpanRecorder()))
	ctx, span := tp.Tracer("test").Start(context.Background(), "turn")
	defer span.End()
	sc := span.SpanContext()
	require.True(t, sc.IsValid(), "the test span has ids")

	lines := logLines(t, func(l *slog.Logger) {
		l.InfoContext(ctx, "in a span", "thread", "T1")
		l.With("component", "slack").WithGroup("req").InfoContext(ctx, "grouped", "n", 1)
		l.InfoContext(context.Background(), "outside any span")
		l.Info("no context")
	})
	require.Len(t, lines, 4, "got %d log lines, want 4", len(lines))

	assert.Equal(t, sc.TraceID().String(), lines[0]["trace_id"], "trace_id of a record in a span")
	assert.Equal(t, sc.SpanID().String(), lines[0]["span_id"], "span_id of a record in a span")
	assert.Equal(t, "T1", lines[0]["thread"], "the record's own attributes stay")

	assert.Equal(t, "slack", lines[1]["component"], "WithAttrs survives the wrapper")
	group, ok := lines[1]["req"].(map[string]any)
	require.True(t, ok, "WithGroup survives the wrapper: got %v", lines[1])
	assert.Equal(t, sc.TraceID().String(), group["trace_id"], "trace_id in a group lands in the group")

	for _, line := range lines[2:] {
		assert.NotContains(t, line, "trace_id", "a record outside a span gets no trace_id: %v", line)
		assert.NotContains(t, line, "span_id", "a record outside a span gets no span_id: %v", line)
	}
}

func TestLogHandlerKeepsLevel(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	h := LogHandler(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	assert.False(t, h.Enabled(context.Background(), slog.LevelInfo), "info is below the wrapped handler's level")
	assert.True(t, h.Enabled(context.Background(), slog.LevelWarn), "warn is at the wrapped handler's level")
}
