package slackapp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

func TestWebAPIClientSpans(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		failures   int
		wantStatus []int64
	}{
		{name: "one call, one span", wantStatus: []int64{200}},
		{name: "a retried 503 gives a span per attempt", failures: 1, wantStatus: []int64{503, 200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := fakeslack.New(t)
			fake.FailNext("auth.test", tt.failures, http.StatusServiceUnavailable)
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			a := &App{cfg: Config{BotToken: fakeslack.BotToken, APIURL: fake.APIURL(), APIRetries: 2}, log: testLogger(t)}
			WithTracerProvider(tp)(a)
			api := slack.New(a.cfg.BotToken, a.apiOptions()...)

			ctx, parent := tp.Tracer("test").Start(context.Background(), "job")
			auth, err := api.AuthTestContext(ctx)
			parent.End()
			require.NoError(t, err, "auth.test through the instrumented client")
			assert.Equal(t, fakeslack.BotUserID, auth.UserID, "auth.test answer")

			var statuses []int64
			for _, s := range rec.Ended() {
				if s.Name() == "job" {
					continue
				}
				assert.Equal(t, "slack auth.test", s.Name(), "span name")
				assert.Equal(t, trace.SpanKindClient, s.SpanKind(), "span kind")
				assert.Equal(t, parent.SpanContext().SpanID(), s.Parent().SpanID(), "the API span is a child of the caller's span")
				for _, kv := range s.Attributes() {
					if kv.Key == "http.response.status_code" {
						statuses = append(statuses, kv.Value.AsInt64())
					}
					assert.NotContains(t, kv.Value.Emit(), fakeslack.BotToken, "the token leaked into attribute %s", kv.Key)
				}
			}
			assert.Equal(t, tt.wantStatus, statuses, "status of each attempt: got %v, want %v", statuses, tt.wantStatus)
		})
	}
}

func TestSlackSpanName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, method, url, want string
	}{
		{name: "Web API method", method: http.MethodPost, url: "https://slack.com/api/chat.postMessage", want: "slack chat.postMessage"},
		{name: "Web API behind a prefix", method: http.MethodPost, url: "http://127.0.0.1:1234/api/auth.test", want: "slack auth.test"},
		{name: "file upload URL holds an id", method: http.MethodPost, url: "https://files.slack.com/upload/v1/CwABAAAAXAoAAV", want: "slack POST"},
		{name: "response URL", method: http.MethodPost, url: "https://hooks.slack.com/actions/T1/123/abc", want: "slack POST"},
		{name: "empty method path", method: http.MethodGet, url: "https://slack.com/api/", want: "slack GET"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := slackSpanName("", httptest.NewRequest(tt.method, tt.url, nil))
			assert.Equal(t, tt.want, got, "span name of %s %s: got %q, want %q", tt.method, tt.url, got, tt.want)
		})
	}
}
