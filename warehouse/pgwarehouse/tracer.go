package pgwarehouse

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/analyticsbot/analyticsbot/pgpool"
)

// redactingTracer is the reader's statement tracer (otelpgx, as
// pgpool.Configure sets it in its pgpool.Tracer) with each statement's error redacted as the
// executor returns it: the span's error event and status would otherwise
// carry what PostgreSQL quoted from the data to the tracing backend. A
// batch's spans (its own, and one for each of its statements) are
// redacted alike.
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

// batchKey carries a batch's statements, joined, from the start of its
// span to the end.
type batchKey struct{}

// TraceBatchStart implements pgx.BatchTracer.
func (t redactingTracer) TraceBatchStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	var sql strings.Builder
	if data.Batch != nil {
		for _, q := range data.Batch.QueuedQueries {
			sql.WriteString(q.SQL)
			sql.WriteByte('\n')
		}
	}
	return context.WithValue(t.SpanTracer.TraceBatchStart(ctx, conn, data), batchKey{}, sql.String())
}

// TraceBatchQuery implements pgx.BatchTracer: each statement of a batch
// has a span of its own.
func (t redactingTracer) TraceBatchQuery(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchQueryData) {
	data.Err = redact(data.Err, data.SQL, namesOf(ctx))
	t.SpanTracer.TraceBatchQuery(ctx, conn, data)
}

// TraceBatchEnd implements pgx.BatchTracer: the batch's span ends with the
// error of the statement that failed.
func (t redactingTracer) TraceBatchEnd(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchEndData) {
	sql, _ := ctx.Value(batchKey{}).(string)
	data.Err = redact(data.Err, sql, namesOf(ctx))
	t.SpanTracer.TraceBatchEnd(ctx, conn, data)
}
