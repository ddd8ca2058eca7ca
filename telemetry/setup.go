// Package telemetry sets up OpenTelemetry for the bot: tracer and meter
// providers configured from the standard OTEL_* environment, a Prometheus
// /metrics handler, trace ids in logs and the per-turn metrics. Spans come
// from the workflow engine and the clients (model, SQL, Cube, Slack); this
// package only decides where they go.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Telemetry holds the providers Setup installed. Shutdown flushes them.
type Telemetry struct {
	tracers  trace.TracerProvider
	meters   *sdkmetric.MeterProvider
	registry *prometheus.Registry
	// shutdown stops the SDK providers, spans first so that their last
	// metrics are still collected.
	shutdown []func(context.Context) error
	// traceExporters and metricExporters name what was installed, for tests
	// and the start-up log line.
	traceExporters  []string
	metricExporters []string
}

// Option configures Setup.
type Option func(*options)

type options struct {
	console io.Writer
	version string
}

// WithConsoleWriter sets where OTEL_TRACES_EXPORTER=console writes spans
// (default os.Stderr, so that stdout stays the program's output).
func WithConsoleWriter(w io.Writer) Option { return func(o *options) { o.console = w } }

// WithVersion sets service.version (default: the main module's version from
// the build information, "dev" for a build from a work tree).
func WithVersion(v string) Option { return func(o *options) { o.version = v } }

// Setup installs global tracer and meter providers and the W3C trace
// context and baggage propagators, configured from the OTEL_* environment:
//
//   - OTEL_SDK_DISABLED=true: no spans are made; metrics still feed /metrics.
//   - OTEL_TRACES_EXPORTER=otlp|console|none (comma-separated): where spans
//     go. Unset, spans go over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT or
//     OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, and nowhere otherwise; they
//     are still made, so logs carry trace ids that tie one turn's lines.
//   - OTEL_METRICS_EXPORTER=otlp|prometheus|none: metrics always feed the
//     Prometheus handler; OTLP is added when asked for or, unset, when an
//     OTLP endpoint is set for metrics.
//
// The exporters read their own variables (endpoint, headers, timeout,
// OTEL_METRIC_EXPORT_INTERVAL, OTEL_TRACES_SAMPLER and so on). service.name
// is OTEL_SERVICE_NAME, else service.
func Setup(ctx context.Context, service string, opts ...Option) (*Telemetry, error) {
	o := options{console: os.Stderr, version: buildVersion()}
	for _, opt := range opts {
		opt(&o)
	}
	p, err := planFromEnv(os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName(service), semconv.ServiceVersion(o.version)),
		// After the attributes, so OTEL_SERVICE_NAME and
		// OTEL_RESOURCE_ATTRIBUTES override them.
		resource.WithFromEnv(),
		resource.WithTelemetrySDK(),
		resource.WithHost(),
	)
	if err != nil {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}

	t := &Telemetry{}
	if err := t.setupTraces(ctx, p, res, o.console); err != nil {
		return nil, errors.Join(fmt.Errorf("telemetry: %w", err), t.Shutdown(ctx))
	}
	if err := t.setupMetrics(ctx, p, res); err != nil {
		return nil, errors.Join(fmt.Errorf("telemetry: %w", err), t.Shutdown(ctx))
	}
	otel.SetTracerProvider(t.tracers)
	otel.SetMeterProvider(t.meters)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	// Export failures (a collector that is down) would otherwise go to the
	// standard logger, outside the structured log.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		slog.WarnContext(context.Background(), "opentelemetry", "err", err)
	}))
	return t, nil
}

func (t *Telemetry) setupTraces(ctx context.Context, p plan, res *resource.Resource, console io.Writer) error {
	if p.disabled {
		t.tracers = noop.NewTracerProvider()
		return nil
	}
	tpOpts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	for _, name := range p.traces {
		switch name {
		case exporterOTLP:
			exp, err := otlptracehttp.New(ctx)
			if err != nil {
				return fmt.Errorf("OTLP trace exporter: %w", err)
			}
			tpOpts = append(tpOpts, sdktrace.WithBatcher(exp))
		case exporterConsole:
			exp, err := stdouttrace.New(stdouttrace.WithWriter(console))
			if err != nil {
				return fmt.Errorf("console trace exporter: %w", err)
			}
			// Synchronous, so a span shows as soon as it ends while debugging.
			tpOpts = append(tpOpts, sdktrace.WithSyncer(exp))
		}
		t.traceExporters = append(t.traceExporters, name)
	}
	tp := sdktrace.NewTracerProvider(tpOpts...)
	t.tracers = tp
	t.shutdown = append(t.shutdown, tp.Shutdown)
	return nil
}

func (t *Telemetry) setupMetrics(ctx context.Context, p plan, res *resource.Resource) error {
	t.registry = prometheus.NewRegistry()
	t.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	prom, err := otelprom.New(otelprom.WithRegisterer(t.registry))
	if err != nil {
		return fmt.Errorf("prometheus exporter: %w", err)
	}
	mpOpts := []sdkmetric.Option{sdkmetric.WithResource(res), sdkmetric.WithReader(prom)}
	t.metricExporters = []string{exporterPrometheus}
	if p.metricsOTLP && !p.disabled {
		exp, err := otlpmetrichttp.New(ctx)
		if err != nil {
			return fmt.Errorf("OTLP metric exporter: %w", err)
		}
		mpOpts = append(mpOpts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
		t.metricExporters = append(t.metricExporters, exporterOTLP)
	}
	t.meters = sdkmetric.NewMeterProvider(mpOpts...)
	t.shutdown = append(t.shutdown, t.meters.Shutdown)
	return nil
}

// Shutdown flushes buffered spans and metrics to the exporters and stops
// the providers. It waits for the exporters until ctx ends: give it a
// deadline of a few seconds, detached from a canceled parent, e.g.
// context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second).
func (t *Telemetry) Shutdown(ctx context.Context) error {
	var errs []error
	for _, stop := range t.shutdown {
		if err := stop(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	t.shutdown = nil
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("telemetry shutdown: %w", err)
	}
	return nil
}

// Exporters describes where spans and metrics go, for a start-up log line:
// e.g. traces "otlp", metrics "prometheus,otlp"; traces "" when spans go
// nowhere.
func (t *Telemetry) Exporters() (traces, metrics []string) {
	return append([]string(nil), t.traceExporters...), append([]string(nil), t.metricExporters...)
}

// MetricsHandler serves the metrics in the Prometheus text format: the
// bot's own, the HTTP and SQL clients', and the Go runtime's.
func (t *Telemetry) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(t.registry, promhttp.HandlerOpts{ErrorLog: promLogger{}})
}

// ServeMetrics serves GET /metrics on ln until ctx ends.
func (t *Telemetry) ServeMetrics(ctx context.Context, ln net.Listener) error {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", t.MetricsHandler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve metrics on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		return fmt.Errorf("shut down metrics server: %w", err)
	}
	return nil
}

// promLogger reports a failed scrape (a metric that could not be gathered)
// in the structured log.
type promLogger struct{}

func (promLogger) Println(v ...any) {
	slog.Warn("prometheus scrape", "err", fmt.Sprint(v...))
}

// buildVersion is the main module's version, "dev" when built from a work
// tree without one.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
