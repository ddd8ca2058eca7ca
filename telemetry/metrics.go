package telemetry

import (
	"context"
	"errors"
	"reflect"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/analyticsbot/analyticsbot/nodes"
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
		nodeTime:    histogram("analyticsbot.node.duration", "Time of one node execution, by node, outcome and, for a rejected or failed one, kind.", nodeBuckets),
		modelCalls:  counter("analyticsbot.model.calls", "Language model calls made by turns.", "{call}"),
		modelTokens: counter("analyticsbot.model.tokens", "Language model tokens used by turns, by kind (prompt or completion).", "{token}"),
		cache:       counter("analyticsbot.cache.requests", "Reads of the result cache, by result (hit or miss).", "{request}"),
		rejections:  counter("analyticsbot.validation.rejections", "Turns that ended on a query the backend rejected, by the rule it broke (the SQL guard's class).", "{rejection}"),
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
// outcome as nodes.Outcome names it, and backend) and its duration, each
// node execution's duration, the model calls and tokens, and a validation
// rejection when the turn ended on a query the backend refused with a
// class. Call it after every run, failed ones included, with the run's
// context and the state and result Run returned; backend is the backend's
// name ("postgres", "cube").
func RecordTurn(ctx context.Context, s *nodes.State, res workflow.Result, backend string) {
	global().recordTurn(ctx, s, res, backend)
}

// RecordCache records one read of the result cache.
func RecordCache(ctx context.Context, hit bool) {
	global().recordCache(ctx, hit)
}

func (r *recorder) recordTurn(ctx context.Context, s *nodes.State, res workflow.Result, backend string) {
	outcome := nodes.Outcome(ctx, s, res)
	attrs := metric.WithAttributeSet(attribute.NewSet(
		attrIntent.String(orUnknown(string(s.Intent))), attrOutcome.String(outcome), attrBackend.String(orUnknown(backend))))
	r.turns.Add(ctx, 1, attrs)
	r.turnTime.Record(ctx, res.Total.Seconds(), attrs)
	for _, st := range res.Steps {
		r.nodeTime.Record(ctx, st.Duration.Seconds(), nodeAttrs(st))
	}
	r.modelCalls.Add(ctx, int64(s.LLMCalls))
	r.modelTokens.Add(ctx, int64(s.PromptTokens), metric.WithAttributes(attrKind.String("prompt")))
	r.modelTokens.Add(ctx, int64(s.CompletionTokens), metric.WithAttributes(attrKind.String("completion")))
	if s.ErrorClass != "" && (s.ErrorKind == nodes.ErrInvalidQuery || s.ErrorKind == nodes.ErrUnsafeQuery) {
		// Classes come from the backends' fixed sets, never from error text.
		r.rejections.Add(ctx, 1, metric.WithAttributes(attrClass.String(s.ErrorClass)))
	}
}

// nodeAttrs labels a node execution: its node, its outcome (ok, rejected,
// failed, error, canceled) and, for a rejection or failure, the kind the
// node reported, from the fixed set of nodes.ErrorKind.
func nodeAttrs(st workflow.Step) metric.MeasurementOption {
	if st.Kind == "" {
		return metric.WithAttributes(attrNode.String(st.Node), attrOutcome.String(st.Outcome))
	}
	return metric.WithAttributes(attrNode.String(st.Node), attrOutcome.String(st.Outcome), attrKind.String(st.Kind))
}

func (r *recorder) recordCache(ctx context.Context, hit bool) {
	result := "miss"
	if hit {
		result = "hit"
	}
	r.cache.Add(ctx, 1, metric.WithAttributes(attrResult.String(result)))
}

func orUnknown(v string) string {
	if v == "" {
		return "unknown"
	}
	return v
}
