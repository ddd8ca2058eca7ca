package pgpool

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultTimeout bounds each round trip to the database (DATABASE_TIMEOUT):
// a wait for a connection of the pool, a statement with the reading of its
// rows, a batch, a copy. A server that stops answering without closing the
// connection (a hung proxy, a partition) then fails the call instead of
// holding it for as long as TCP keeps retransmitting.
const DefaultTimeout = 10 * time.Second

// Overrun is how long past its deadline a round trip can still hold its
// caller: after the deadline a cancel request asks the server to end the
// statement, and the connection is cut when this grace has passed without
// an answer (pgconn.CancelRequestContextWatcherHandler's DeadlineDelay).
const Overrun = 2 * time.Second

// roundTripKey carries a round-trip bound that replaces the pool's.
type roundTripKey struct{}

// WithRoundTrip returns ctx under which each round trip of a pool that
// Configure set up may take d instead of the pool's timeout: a statement
// the server bounds itself (statement_timeout) gets that and some more;
// d ≤ 0 lifts the bound, for waits that are meant to be long (the
// migrations, an advisory lock that takes turns with another process).
// The caller's own deadline, if earlier, still holds.
func WithRoundTrip(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, roundTripKey{}, d)
}

// SpanTracer is what records statements as spans (otelpgx's tracer), which
// Tracer passes every call on to.
type SpanTracer interface {
	pgx.QueryTracer
	pgx.BatchTracer
	pgx.CopyFromTracer
	pgx.PrepareTracer
	pgx.ConnectTracer
}

// Tracer gives every round trip of a pool a deadline: pgx runs a
// statement, batch, copy, prepare or pool acquire under the context its
// tracer's start returns, and calls the end with it, so the deadline
// covers the whole call (a query's rows included) and ends with it. It
// passes every call on to Spans.
type Tracer struct {
	// Spans records the statements; nil records none.
	Spans SpanTracer
	// Timeout bounds each round trip unless the context says otherwise
	// (WithRoundTrip); 0 bounds none.
	Timeout time.Duration
}

// cancelKey carries the cancel function of the deadline a start set, for
// its end.
type cancelKey struct{}

// bound returns ctx with the round trip's deadline and its cancel
// function. Always a context of its own: an end must never cancel an
// outer call's deadline.
func (t *Tracer) bound(ctx context.Context) context.Context {
	d := t.Timeout
	if v, ok := ctx.Value(roundTripKey{}).(time.Duration); ok {
		d = v
	}
	cancel := context.CancelFunc(func() {})
	if d > 0 {
		ctx, cancel = context.WithTimeout(ctx, d)
	}
	return context.WithValue(ctx, cancelKey{}, cancel)
}

// release ends the deadline bound set on ctx.
func release(ctx context.Context) {
	if cancel, ok := ctx.Value(cancelKey{}).(context.CancelFunc); ok {
		cancel()
	}
}

// TraceQueryStart implements pgx.QueryTracer.
func (t *Tracer) TraceQueryStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if rt := roundTripsOf(ctx); rt != nil {
		rt.add("query", data.SQL)
	}
	ctx = t.bound(ctx)
	if t.Spans != nil {
		ctx = t.Spans.TraceQueryStart(ctx, conn, data)
	}
	return ctx
}

// TraceQueryEnd implements pgx.QueryTracer.
func (t *Tracer) TraceQueryEnd(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryEndData) {
	if t.Spans != nil {
		t.Spans.TraceQueryEnd(ctx, conn, data)
	}
	release(ctx)
}

// TraceBatchStart implements pgx.BatchTracer.
func (t *Tracer) TraceBatchStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	if rt := roundTripsOf(ctx); rt != nil {
		rt.add("batch", batchStatements(data.Batch)...)
	}
	ctx = t.bound(ctx)
	if t.Spans != nil {
		ctx = t.Spans.TraceBatchStart(ctx, conn, data)
	}
	return ctx
}

// TraceBatchQuery implements pgx.BatchTracer.
func (t *Tracer) TraceBatchQuery(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchQueryData) {
	if t.Spans != nil {
		t.Spans.TraceBatchQuery(ctx, conn, data)
	}
}

// TraceBatchEnd implements pgx.BatchTracer.
func (t *Tracer) TraceBatchEnd(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchEndData) {
	if t.Spans != nil {
		t.Spans.TraceBatchEnd(ctx, conn, data)
	}
	release(ctx)
}

// TraceCopyFromStart implements pgx.CopyFromTracer.
func (t *Tracer) TraceCopyFromStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceCopyFromStartData) context.Context {
	if rt := roundTripsOf(ctx); rt != nil {
		rt.add("copy", "COPY "+data.TableName.Sanitize())
	}
	ctx = t.bound(ctx)
	if t.Spans != nil {
		ctx = t.Spans.TraceCopyFromStart(ctx, conn, data)
	}
	return ctx
}

// TraceCopyFromEnd implements pgx.CopyFromTracer.
func (t *Tracer) TraceCopyFromEnd(ctx context.Context, conn *pgx.Conn, data pgx.TraceCopyFromEndData) {
	if t.Spans != nil {
		t.Spans.TraceCopyFromEnd(ctx, conn, data)
	}
	release(ctx)
}

// TracePrepareStart implements pgx.PrepareTracer.
func (t *Tracer) TracePrepareStart(ctx context.Context, conn *pgx.Conn, data pgx.TracePrepareStartData) context.Context {
	ctx = t.bound(ctx)
	if t.Spans != nil {
		ctx = t.Spans.TracePrepareStart(ctx, conn, data)
	}
	return ctx
}

// TracePrepareEnd implements pgx.PrepareTracer.
func (t *Tracer) TracePrepareEnd(ctx context.Context, conn *pgx.Conn, data pgx.TracePrepareEndData) {
	if t.Spans != nil {
		t.Spans.TracePrepareEnd(ctx, conn, data)
	}
	release(ctx)
}

// TraceConnectStart implements pgx.ConnectTracer. A connection attempt is
// bounded by the connect timeout instead (Configure).
func (t *Tracer) TraceConnectStart(ctx context.Context, data pgx.TraceConnectStartData) context.Context {
	if t.Spans != nil {
		return t.Spans.TraceConnectStart(ctx, data)
	}
	return ctx
}

// TraceConnectEnd implements pgx.ConnectTracer.
func (t *Tracer) TraceConnectEnd(ctx context.Context, data pgx.TraceConnectEndData) {
	if t.Spans != nil {
		t.Spans.TraceConnectEnd(ctx, data)
	}
}

// TraceAcquireStart implements pgxpool.AcquireTracer: the wait for a
// connection of the pool (all of them held by calls that hang, say) has a
// deadline too. It makes no span (a wait shows as a gap).
func (t *Tracer) TraceAcquireStart(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireStartData) context.Context {
	return t.bound(ctx)
}

// TraceAcquireEnd implements pgxpool.AcquireTracer.
func (t *Tracer) TraceAcquireEnd(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireEndData) {
	release(ctx)
}

// Bound returns ctx with a deadline timeout away (unless ctx ends sooner),
// for a round trip pgx does not trace: a ping.
func Bound(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, timeout)
}
