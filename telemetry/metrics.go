package telemetry

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/sqlguard"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// MeterName is the instrumentation scope of the bot's own metrics.
const MeterName = "github.com/analyticsbot/analyticsbot/telemetry"

// Attribute keys of the bot's metrics.
const (
	attrIntent  = attribute.Key("intent")
	attrOutcome = attribute.Key("outcome")
	attrBackend = attribute.Key("backend")
	attrNode    = attribute.Key("node")
	attrKind    = attribute.Key("kind")
	attrResult  = attribute.Key("result")
	attrClass   = attribute.Key("class")
)

// Outcomes of a turn besides the error kinds of nodes.State.
const (
	outcomeOK = "ok"
	// outcomeCanceled: the run was stopped (shutdown, caller gone).
	outcomeCanceled = "canceled"
	// outcomeInternal: the workflow itself failed (a node error, a panic,
	// the step cap) without a node recording an error kind.
	outcomeInternal = string(nodes.ErrInternal)
)

// Bucket boundaries in seconds: turns wait on the model for seconds, nodes
// range from microseconds (routing by keyword) to the model's timeout.
var (
	turnBuckets = []float64{0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60, 120}
	nodeBuckets = []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60}
)

// recorder holds the instruments made from one MeterProvider.
type recorder struct {
	turns       metric.Int64Counter
	turnTime    metric.Float64Histogram
	nodeTime    metric.Float64Histogram
	modelCalls  metric.Int64Counter
	modelTokens metric.Int64Counter
	cache       metric.Int64Counter
	rejections  metric.Int64Counter
}

func newRecorder(mp metric.MeterProvider) *recorder {
	m := mp.Meter(MeterName)
	var errs []error
	counter := func(name, desc, unit string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithDescription(desc), metric.WithUnit(unit))
		errs = append(errs, err)
		return c
	}
	histogram := func(name, desc string, buckets []float64) metric.Float64Histogram {
		h, err := m.Float64Histogram(name, metric.WithDescription(desc), metric.WithUnit("s"),
			metric.WithExplicitBucketBoundaries(buckets...))
		errs = append(errs, err)
		return h
	}
	r := &recorder{
		turns:       counter("analyticsbot.turns", "Turns answered, by intent, outcome and backend.", "{turn}"),
		turnTime:    histogram("analyticsbot.turn.duration", "Time to answer a turn.", turnBuckets),
		nodeTime:    histogram("analyticsbot.node.duration", "Time of one node execution, by node and outcome.", nodeBuckets),
		modelCalls:  counter("analyticsbot.model.calls", "Language model calls made by turns.", "{call}"),
		modelTokens: counter("analyticsbot.model.tokens", "Language model tokens used by turns, by kind (prompt or completion).", "{token}"),
		cache:       counter("analyticsbot.cache.requests", "Reads of the result cache, by result (hit or miss).", "{request}"),
		rejections:  counter("analyticsbot.validation.rejections", "Turns that ended on SQL the guard rejected, by class.", "{rejection}"),
	}
	// An error means a malformed instrument definition; the SDK still
	// returns working instruments, so report it and go on.
	if err := errors.Join(errs...); err != nil {
		otel.Handle(err)
	}
	return r
}

// current caches the recorder of the global MeterProvider, remade when
// Setup (or a test) installs another provider.
var current struct {
	mu       sync.Mutex
	provider metric.MeterProvider
	rec      *recorder
}

func global() *recorder {
	mp := otel.GetMeterProvider()
	current.mu.Lock()
	defer current.mu.Unlock()
	// Providers are pointers in practice; a provider of a type that cannot
	// be compared gets fresh instruments (the SDK dedupes them) each time.
	if current.rec == nil || !reflect.TypeOf(mp).Comparable() || current.provider != mp {
		current.provider, current.rec = mp, newRecorder(mp)
	}
	return current.rec
}

// RecordTurn records one finished run of the workflow: the turn (by intent,
// outcome and backend) and its duration, each node execution's duration,
// the model calls and tokens, and a validation rejection when the turn
// ended on SQL the guard refused. Call it after every run, failed ones
// included, with the state and result Run returned; backend is "sql" or
// "cube".
func RecordTurn(ctx context.Context, s *nodes.State, res workflow.Result, backend string) {
	global().recordTurn(ctx, s, res, backend)
}

// RecordCache records one read of the result cache.
func RecordCache(ctx context.Context, hit bool) {
	global().recordCache(ctx, hit)
}

func (r *recorder) recordTurn(ctx context.Context, s *nodes.State, res workflow.Result, backend string) {
	outcome := turnOutcome(ctx, s, res)
	attrs := metric.WithAttributeSet(attribute.NewSet(
		attrIntent.String(orUnknown(string(s.Intent))), attrOutcome.String(outcome), attrBackend.String(orUnknown(backend))))
	r.turns.Add(ctx, 1, attrs)
	r.turnTime.Record(ctx, res.Total.Seconds(), attrs)
	for _, st := range res.Steps {
		r.nodeTime.Record(ctx, st.Duration.Seconds(), metric.WithAttributes(attrNode.String(st.Node), attrOutcome.String(st.Outcome)))
	}
	r.modelCalls.Add(ctx, int64(s.LLMCalls))
	r.modelTokens.Add(ctx, int64(s.PromptTokens), metric.WithAttributes(attrKind.String("prompt")))
	r.modelTokens.Add(ctx, int64(s.CompletionTokens), metric.WithAttributes(attrKind.String("completion")))
	if class, ok := rejectionClass(s.ErrorKind, s.ErrorDetail); ok {
		r.rejections.Add(ctx, 1, metric.WithAttributes(attrClass.String(string(class))))
	}
}

func (r *recorder) recordCache(ctx context.Context, hit bool) {
	result := "miss"
	if hit {
		result = "hit"
	}
	r.cache.Add(ctx, 1, metric.WithAttributes(attrResult.String(result)))
}

// turnOutcome is "ok", the error kind a node recorded, or, for a run that
// stopped without one, "canceled" or "internal". Every complete run ends
// with save_turn, so a run that ended elsewhere failed.
func turnOutcome(ctx context.Context, s *nodes.State, res workflow.Result) string {
	if s.ErrorKind != "" {
		return string(s.ErrorKind)
	}
	n := len(res.Steps)
	if n > 0 && res.Steps[n-1].Node == nodes.NodeSaveTurn && res.Steps[n-1].Outcome == workflow.OutcomeOK {
		return outcomeOK
	}
	if ctx.Err() != nil || n > 0 && res.Steps[n-1].Outcome == workflow.OutcomeCanceled {
		return outcomeCanceled
	}
	return outcomeInternal
}

// guardClasses are the sqlguard rejection classes, the prefixes of the
// "class: reason" detail validate_sql records.
var guardClasses = []sqlguard.Class{
	sqlguard.ClassEmpty, sqlguard.ClassTooLong, sqlguard.ClassTooDeep, sqlguard.ClassSyntax,
	sqlguard.ClassStacked, sqlguard.ClassWrite, sqlguard.ClassDDL, sqlguard.ClassMaintenance,
	sqlguard.ClassWritingCTE, sqlguard.ClassSelectInto, sqlguard.ClassExplain, sqlguard.ClassSession,
	sqlguard.ClassSettings, sqlguard.ClassPrivilege, sqlguard.ClassSleep, sqlguard.ClassUnbounded,
	sqlguard.ClassFileAccess, sqlguard.ClassCopy, sqlguard.ClassLargeObject, sqlguard.ClassCodeExecution,
	sqlguard.ClassDynamicSQL, sqlguard.ClassForeignData, sqlguard.ClassSideEffect, sqlguard.ClassLocking,
	sqlguard.ClassCatalog, sqlguard.ClassRelation, sqlguard.ClassFunction, sqlguard.ClassNameResolution,
}

// rejectionClass returns the guard class that starts the detail of an SQL
// rejection (validate_sql records "class: reason" with kind invalid_sql or
// unsafe_sql). Only known classes count, so that arbitrary error text never
// becomes a metric attribute.
func rejectionClass(kind nodes.ErrorKind, detail string) (sqlguard.Class, bool) {
	if kind != nodes.ErrInvalidSQL && kind != nodes.ErrUnsafeSQL {
		return "", false
	}
	prefix, _, ok := strings.Cut(detail, ": ")
	if !ok {
		return "", false
	}
	for _, c := range guardClasses {
		if string(c) == prefix {
			return c, true
		}
	}
	return "", false
}

func orUnknown(v string) string {
	if v == "" {
		return "unknown"
	}
	return v
}
