package llm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// fastRetries keeps retry tests quick: the backoff waits about a millisecond.
var fastRetries = WithBackoff(time.Millisecond)

func TestCompleteTimeout(t *testing.T) {
	t.Parallel()
	s := mustScripted(t, Rule{Step: "classify", Reply: "late", Delay: Duration(10 * time.Second)})
	c := NewClient(s, WithTimeout(20*time.Millisecond), WithRetries(1), fastRetries)

	_, _, err := c.Complete(context.Background(), StepClassify, "q")
	require.ErrorIs(t, err, ErrTimeout)
	assert.NotErrorIs(t, err, ErrUnavailable)
	assert.NotErrorIs(t, err, context.DeadlineExceeded, "a per-call timeout must not look like the caller's deadline")
	assert.Equal(t, "classify: model call: timed out after 20ms (2 attempts)", err.Error())
	assert.Equal(t, 2, s.CallCount(StepClassify), "got %d calls, want 2 (one retry)", s.CallCount(StepClassify))
}

func TestCompleteCallerContext(t *testing.T) {
	t.Parallel()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	tests := []struct {
		name string
		ctx  context.Context
		want error
	}{
		{name: "canceled", ctx: canceled, want: context.Canceled},
		{name: "deadline passed", ctx: expired, want: context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := mustScripted(t, Rule{Step: "resolve", Reply: "x", Delay: Duration(time.Hour)})
			c := NewClient(s, fastRetries)
			_, _, err := c.Complete(tt.ctx, StepResolve, "q")
			require.ErrorIs(t, err, tt.want)
			assert.NotErrorIs(t, err, ErrTimeout)
			assert.Equal(t, "resolve: model call: "+tt.want.Error(), err.Error())
			assert.Equal(t, 1, s.CallCount(StepResolve), "got %d calls, want 1: cancellation is never retried", s.CallCount(StepResolve))
		})
	}
}

func TestCompleteRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		rules     []Rule
		opts      []ClientOption
		want      string
		wantErr   string
		wantIs    error
		wantCalls int
	}{
		{
			name:      "transient failure then success",
			rules:     []Rule{{Step: "generate_sql", Error: "transient: 503", Times: 1}, {Step: "generate_sql", Reply: "ok"}},
			want:      "ok",
			wantCalls: 2,
		},
		{
			name:      "transient failures exhaust the retries",
			rules:     []Rule{{Step: "generate_sql", Error: "transient: overloaded"}},
			wantErr:   "generate_sql: model call: unavailable after 3 attempts: scripted model: rules[0]: overloaded (transient)",
			wantIs:    ErrUnavailable,
			wantCalls: 3,
		},
		{
			name:      "no retries configured",
			rules:     []Rule{{Step: "generate_sql", Error: "transient: overloaded"}},
			opts:      []ClientOption{WithRetries(0)},
			wantErr:   "generate_sql: model call: unavailable after 1 attempt: scripted model: rules[0]: overloaded (transient)",
			wantIs:    ErrUnavailable,
			wantCalls: 1,
		},
		{
			name:      "permanent failure is not retried",
			rules:     []Rule{{Step: "generate_sql", Error: "invalid api key"}, {Step: "generate_sql", Reply: "never"}},
			wantErr:   "generate_sql: model call: scripted model: rules[0]: invalid api key",
			wantCalls: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := mustScripted(t, tt.rules...)
			c := NewClient(s, append([]ClientOption{fastRetries}, tt.opts...)...)
			got, _, err := c.Complete(context.Background(), StepGenerateSQL, "q")
			if tt.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
			} else {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, err.Error())
				if tt.wantIs != nil {
					assert.ErrorIs(t, err, tt.wantIs)
				} else {
					assert.NotErrorIs(t, err, ErrUnavailable)
					assert.NotErrorIs(t, err, ErrTimeout)
				}
			}
			assert.Equal(t, tt.wantCalls, s.CallCount(StepGenerateSQL), "got %d calls, want %d", s.CallCount(StepGenerateSQL), tt.wantCalls)
		})
	}
}

func TestCompleteSpans(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	s := mustScripted(t,
		Rule{Step: "interpret", Error: "transient: blip", Times: 1},
		Rule{Step: "interpret", Reply: "Revenue grew 12%."}, // 17 characters → 5 tokens
		Rule{Step: "classify", Error: "no such model"},
	)
	c := NewClient(s, WithTracerProvider(tp), WithModelName("script:demo.yaml"), fastRetries)

	parent, span := tp.Tracer("test").Start(context.Background(), "node.interpret")
	_, _, err := c.Complete(parent, StepInterpret, "Question: revenue?") // 18 characters → 5 tokens
	require.NoError(t, err)
	_, _, err = c.Complete(parent, StepClassify, "q")
	require.Error(t, err)
	span.End()

	var calls []sdktrace.ReadOnlySpan
	for _, sp := range rec.Ended() {
		if sp.Name() == "llm.call" {
			calls = append(calls, sp)
		}
	}
	require.Len(t, calls, 2)
	ok, failed := calls[0], calls[1]

	assert.Equal(t, span.SpanContext().SpanID(), ok.Parent().SpanID(), "llm.call must be a child of the node span")
	assert.Equal(t, map[attribute.Key]attribute.Value{
		"llm.step":              attribute.StringValue("interpret"),
		"llm.model":             attribute.StringValue("script:demo.yaml"),
		"llm.attempts":          attribute.IntValue(2),
		"llm.prompt_tokens":     attribute.IntValue(5),
		"llm.completion_tokens": attribute.IntValue(5),
	}, attrMap(ok.Attributes()))
	assert.Equal(t, codes.Unset, ok.Status().Code)

	assert.Equal(t, codes.Error, failed.Status().Code)
	assert.Equal(t, "classify: model call: scripted model: rules[2]: no such model", failed.Status().Description)
	assert.Equal(t, attribute.IntValue(1), attrMap(failed.Attributes())["llm.attempts"])
	require.Len(t, failed.Events(), 1)
	assert.Equal(t, "exception", failed.Events()[0].Name, "got event %q, want the recorded error", failed.Events()[0].Name)
}

func attrMap(kvs []attribute.KeyValue) map[attribute.Key]attribute.Value {
	m := make(map[attribute.Key]attribute.Value, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

func TestIsTransient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{name: "openai 429", err: errors.New("API returned unexpected status code: 429: Rate limit reached"), want: true},
		{name: "openai 503", err: errors.New("API returned unexpected status code: 503"), want: true},
		{name: "openai 400", err: errors.New("API returned unexpected status code: 400: The 'metadata' parameter is only allowed when 'store' is enabled."), want: false},
		{name: "openai 401 mentioning rate limit", err: errors.New("API returned unexpected status code: 401: rate limit key invalid"), want: false},
		{name: "anthropic 529", err: errors.New("anthropic: failed to create message: API returned unexpected status code: 529: Overloaded"), want: true},
		{name: "ollama 503", err: errors.New("503 Service Unavailable: loading model"), want: true},
		{name: "ollama 404", err: errors.New("404 Not Found: model \"llama9\" not found"), want: false},
		{name: "openai sanitized dial error", err: errors.New("network error: failed to reach API server"), want: true},
		{name: "dial error", err: fmt.Errorf("send request: %w", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}), want: true},
		{name: "connection reset", err: fmt.Errorf("read: %w", syscall.ECONNRESET), want: true},
		{name: "llms rate limit code", err: llms.NewError(llms.ErrCodeRateLimit, "x", "slow down"), want: true},
		{name: "llms auth code", err: llms.NewError(llms.ErrCodeAuthentication, "x", "bad key"), want: false},
		{name: "canceled", err: fmt.Errorf("call: %w", context.Canceled), want: false},
		{name: "attempt timeout", err: &attemptTimeoutError{after: time.Second, err: context.DeadlineExceeded}, want: true},
		{name: "plain", err: errors.New("something odd"), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := isTransient(tt.err)
			assert.Equal(t, tt.want, got, "isTransient(%q): got %v, want %v", tt.err, got, tt.want)
		})
	}
}

func TestUsageOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		info map[string]any
		want Usage
	}{
		{name: "openai and ollama keys", info: map[string]any{"PromptTokens": 120, "CompletionTokens": 30}, want: Usage{120, 30}},
		{name: "anthropic keys", info: map[string]any{"InputTokens": 90, "OutputTokens": 12}, want: Usage{90, 12}},
		{name: "float counts", info: map[string]any{"PromptTokens": 7.0, "CompletionTokens": int64(3)}, want: Usage{7, 3}},
		{name: "missing: estimated", info: nil, want: Usage{3, 2}},
		{name: "zero: estimated", info: map[string]any{"PromptTokens": 0, "CompletionTokens": 0}, want: Usage{3, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := usageOf(tt.info, "ten chars!", "hello")
			assert.Equal(t, tt.want, got, "got %+v, want %+v", got, tt.want)
		})
	}
}

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want int
	}{
		{name: "empty", in: "", want: 0},
		{name: "one char", in: "a", want: 1},
		{name: "four chars", in: "abcd", want: 1},
		{name: "five chars", in: "abcde", want: 2},
		{name: "runes not bytes", in: "ééééé", want: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, EstimateTokens(tt.in), "EstimateTokens(%q)", tt.in)
		})
	}
}
