package telemetry

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlanFromEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		want    plan
		wantErr string
	}{
		{name: "nothing set exports nothing", want: plan{}},
		{name: "endpoint turns on OTLP for both signals",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"},
			want: plan{traces: []string{"otlp"}, metricsOTLP: true}},
		{name: "a traces endpoint turns on OTLP for traces only",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"},
			want: plan{traces: []string{"otlp"}}},
		{name: "a metrics endpoint turns on OTLP for metrics only",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://collector:4318/v1/metrics"},
			want: plan{metricsOTLP: true}},
		{name: "console", env: map[string]string{"OTEL_TRACES_EXPORTER": "console"},
			want: plan{traces: []string{"console"}}},
		{name: "console and OTLP, spaces and case ignored, repeats once",
			env:  map[string]string{"OTEL_TRACES_EXPORTER": " Console , otlp,console"},
			want: plan{traces: []string{"console", "otlp"}}},
		{name: "none wins over the endpoint",
			env:  map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "prometheus", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"},
			want: plan{traces: []string{}}},
		{name: "disabled beats everything",
			env:  map[string]string{"OTEL_SDK_DISABLED": "TRUE", "OTEL_TRACES_EXPORTER": "console", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"},
			want: plan{disabled: true}},
		{name: "disabled=false is not disabled", env: map[string]string{"OTEL_SDK_DISABLED": "false"}, want: plan{}},
		{name: "unknown trace exporter", env: map[string]string{"OTEL_TRACES_EXPORTER": "jaeger"},
			wantErr: `OTEL_TRACES_EXPORTER: unknown exporter "jaeger" (want otlp, console, none)`},
		{name: "console metrics are not built in", env: map[string]string{"OTEL_METRICS_EXPORTER": "console"},
			wantErr: `OTEL_METRICS_EXPORTER: unknown exporter "console"`},
		{name: "gRPC is refused when OTLP is used",
			env:     map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
			wantErr: "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported"},
		{name: "gRPC does not matter without OTLP",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_TRACES_EXPORTER": "console"},
			want: plan{traces: []string{"console"}}},
		{name: "the signal's protocol overrides the general one",
			env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces",
				"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"},
			want: plan{traces: []string{"otlp"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := planFromEnv(func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr, "got error %q, want it to contain %q", err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want.disabled, got.disabled, "disabled: got %v, want %v", got.disabled, tt.want.disabled)
			assert.ElementsMatch(t, tt.want.traces, got.traces, "trace exporters: got %v, want %v", got.traces, tt.want.traces)
			assert.Equal(t, tt.want.metricsOTLP, got.metricsOTLP, "OTLP metrics: got %v, want %v", got.metricsOTLP, tt.want.metricsOTLP)
		})
	}
}
