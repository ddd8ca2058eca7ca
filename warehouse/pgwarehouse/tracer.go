package pgwarehouse

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/analyticsbot/analyticsbot/pgpool"
)

// redactingTracer is the reader's statement tracer (otelpgx, as
// pgpool.Configure sets it in its pgpool.Tracer) with each statement's error redacted as the
// executor returns it: the span's error event and status would otherwise
// carry what PostgreSQL quoted from the data to the tracing backend.
type redactingTracer struct{ pgpool.SpanTracer }

// statementKey carries a statement's text from the start of its span to
// the end.
type statementKey struct{}

// TraceQueryStart implements pgx.QueryTracer.
func (t redactingTracer) TraceQueryStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	return context.WithValue(t.SpanTracer.TraceQueryStart(ctx, conn, data), statementKey{}, data.SQL)
}

// TraceQueryEnd implements pgx.QueryTracer.
func (t redactingTracer) TraceQueryEnd(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryEndData) {
	sql, _ := ctx.Value(statementKey{}).(string)
	data.Err = redact(data.Err, sql, namesOf(ctx))
	t.SpanTracer.TraceQueryEnd(ctx, conn, data)
}
