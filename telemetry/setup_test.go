package telemetry

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
)

// These tests install global providers and set the environment, so none of
// them runs in parallel.

// cleanEnv unsets every OTEL_* variable for the test, then sets kv.
func cleanEnv(t *testing.T, kv map[string]string) {
	t.Helper()
	for _, e := range os.Environ() {
		if k, _, _ := strings.Cut(e, "="); strings.HasPrefix(k, "OTEL_") {
			t.Setenv(k, "") // restores the value after the test
			require.NoError(t, os.Unsetenv(k))
		}
	}
	for k, v := range kv {
		t.Setenv(k, v)
	}
}

// syncBuffer is a bytes.Buffer safe for the exporter's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// setup runs Setup and shuts it down when the test ends.
func setup(t *testing.T, opts ...Option) *Telemetry {
	t.Helper()
	tel, err := Setup(context.Background(), "analyticsbot-test", opts...)
	require.NoError(t, err, "setup")
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	return tel
}

// scrape returns what MetricsHandler serves.
func scrape(t *testing.T, tel *Telemetry) string {
	t.Helper()
	rec := httptest.NewRecorder()
	tel.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(t, http.StatusOK, rec.Code, "metrics status")
	return rec.Body.String()
}

func TestSetupConsoleWritesSpans(t *testing.T) {
	tests := []struct {
		name        string
		env         map[string]string
		wantService string
	}{
		{name: "service from the caller", env: map[string]string{"OTEL_TRACES_EXPORTER": "console"}, wantService: "analyticsbot-test"},
		{name: "OTEL_SERVICE_NAME wins",
			env:         map[string]string{"OTEL_TRACES_EXPORTER": "console", "OTEL_SERVICE_NAME": "renamed-bot"},
			wantService: "renamed-bot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cleanEnv(t, tt.env)
			var out syncBuffer
			tel := setup(t, WithConsoleWriter(&out), WithVersion("v1.2.3"))
			traces, _ := tel.Exporters()
			assert.Equal(t, []string{"console"}, traces, "trace exporters")

			_, span := otel.Tracer("test").Start(context.Background(), "console-probe")
			span.End()
			// The console exporter is synchronous: the span is out already.
			got := out.String()
			assert.Contains(t, got, `"Name":"console-probe"`, "console output: %s", got)
			assert.Contains(t, got, `"Value":"`+tt.wantService+`"`, "service.name in the console output: %s", got)
			assert.Contains(t, got, `"Value":"v1.2.3"`, "service.version in the console output: %s", got)
			if tt.wantService != "analyticsbot-test" {
				assert.NotContains(t, got, `"Value":"analyticsbot-test"`, "the caller's name is overridden")
			}
		})
	}
}

func TestSetupWithNothingSetExportsNoSpans(t *testing.T) {
	cleanEnv(t, nil)
	var out syncBuffer
	tel := setup(t, WithConsoleWriter(&out))
	traces, metrics := tel.Exporters()
	assert.Empty(t, traces, "trace exporters")
	assert.Equal(t, []string{"prometheus"}, metrics, "metric exporters")

	ctx, span := otel.Tracer("test").Start(context.Background(), "quiet-probe")
	// Spans are still made, so that logs carry trace ids.
	assert.True(t, span.SpanContext().IsValid(), "spans have ids without an exporter")
	span.End()

	s, res := answeredTurn()
	RecordTurn(ctx, s, res, "postgres")
	RecordCache(ctx, true)
	RecordCache(ctx, false)
	RecordCache(ctx, false)
	require.NoError(t, tel.Shutdown(context.Background()), "shutdown")
	assert.Empty(t, out.String(), "nothing written to the console writer")
}

func TestMetricsHandlerServesTheBotsMetrics(t *testing.T) {
	cleanEnv(t, nil)
	tel := setup(t)
	ctx := context.Background()
	s, res := answeredTurn()
	RecordTurn(ctx, s, res, "postgres")
	RecordCache(ctx, true)
	RecordCache(ctx, false)
	RecordCache(ctx, false)

	body := scrape(t, tel)
	for _, want := range []string{
		`analyticsbot_turns_total\{backend="postgres",intent="analytics_query",[^}]*outcome="ok"[^}]*\} 1`,
		`analyticsbot_turn_duration_seconds_count\{backend="postgres",intent="analytics_query",[^}]*\} 1`,
		`analyticsbot_turn_duration_seconds_bucket\{[^}]*le="2"[^}]*\} 1`,
		`analyticsbot_node_duration_seconds_count\{node="generate_query",[^}]*outcome="ok"[^}]*\} 1`,
		`analyticsbot_model_calls_total\{[^}]*\} 3`,
		`analyticsbot_model_tokens_total\{kind="prompt",[^}]*\} 1200`,
		`analyticsbot_model_tokens_total\{kind="completion",[^}]*\} 80`,
		`analyticsbot_cache_requests_total\{[^}]*result="hit"[^}]*\} 1`,
		`analyticsbot_cache_requests_total\{[^}]*result="miss"[^}]*\} 2`,
		`go_goroutines \d+`,
	} {
		assert.Regexp(t, regexp.MustCompile(want), body, "metrics text should match %s", want)
	}
	assert.NotContains(t, body, "analyticsbot_validation_rejections_total{", "no rejection in an answered turn")
}

func TestSetupDisabled(t *testing.T) {
	cleanEnv(t, map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "console"})
	var out syncBuffer
	tel := setup(t, WithConsoleWriter(&out))
	_, span := otel.Tracer("test").Start(context.Background(), "disabled-probe")
	span.End()
	assert.False(t, span.SpanContext().IsValid(), "no span is made when the SDK is disabled")
	assert.Empty(t, out.String(), "nothing written to the console")

	s, res := rejectedTurn()
	RecordTurn(context.Background(), s, res, "postgres")
	assert.Regexp(t, `analyticsbot_validation_rejections_total\{class="write",[^}]*\} 1`, scrape(t, tel),
		"metrics still feed /metrics when the SDK is disabled")
}

func TestSetupRefusesUnknownExporter(t *testing.T) {
	cleanEnv(t, map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"})
	before := otel.GetTracerProvider()
	_, err := Setup(context.Background(), "analyticsbot-test")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `OTEL_TRACES_EXPORTER: unknown exporter "zipkin"`, "got %v", err)
	assert.Equal(t, before, otel.GetTracerProvider(), "a failed Setup leaves the global provider alone")
}

// otlpRequest is one export a fake collector received.
type otlpRequest struct {
	path string
	body []byte
}

func TestSetupExportsOverOTLP(t *testing.T) {
	got := make(chan otlpRequest, 64)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- otlpRequest{path: r.URL.Path, body: body}
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(collector.Close)
	cleanEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL, "OTEL_SERVICE_NAME": "otlp-bot"})

	tel := setup(t)
	traces, metrics := tel.Exporters()
	assert.Equal(t, []string{"otlp"}, traces, "trace exporters")
	assert.Equal(t, []string{"prometheus", "otlp"}, metrics, "metric exporters")

	ctx, span := otel.Tracer("test").Start(context.Background(), "otlp-probe")
	s, res := answeredTurn()
	RecordTurn(ctx, s, res, "cube")
	span.End()
	shutCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, tel.Shutdown(shutCtx), "shutdown flushes to the collector")

	// Shutdown returned after the collector answered every export.
	bodies := map[string][]byte{}
	for len(got) > 0 {
		req := <-got
		bodies[req.path] = append(bodies[req.path], req.body...)
	}
	require.Contains(t, bodies, "/v1/traces", "the collector got spans; paths: %v", keys(bodies))
	require.Contains(t, bodies, "/v1/metrics", "the collector got metrics; paths: %v", keys(bodies))
	assert.True(t, bytes.Contains(bodies["/v1/traces"], []byte("otlp-probe")), "the span is in the trace export")
	assert.True(t, bytes.Contains(bodies["/v1/traces"], []byte("otlp-bot")), "service.name is in the trace export")
	assert.True(t, bytes.Contains(bodies["/v1/metrics"], []byte("analyticsbot.turns")), "the turn counter is in the metric export")
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestServeMetrics(t *testing.T) {
	cleanEnv(t, nil)
	tel := setup(t)
	s, res := answeredTurn()
	RecordTurn(context.Background(), s, res, "postgres")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- tel.ServeMetrics(ctx, ln) }()

	resp, err := http.Get("http://" + ln.Addr().String() + "/metrics")
	require.NoError(t, err, "scrape")
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "scrape status")
	assert.Contains(t, string(body), "analyticsbot_turns_total{", "the scrape holds the turn counter")

	resp, err = http.Post("http://"+ln.Addr().String()+"/metrics", "text/plain", nil)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode, "only GET is served")

	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err, "ServeMetrics after ctx ended")
	case <-time.After(10 * time.Second):
		t.Fatal("ServeMetrics did not return within 10s of ctx ending")
	}
}
