package llm

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

// A provider's rate limit is reported as such, never as a slow or
// unreachable model: a 429 until the retries run out, a Retry-After wait
// that outlasts the per-call timeout, a provider's rate-limit error and
// the scripted model's transient "429 Too Many Requests".
func TestRateLimitedCalls(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	// Always 429, asking for a wait longer than the per-call timeout.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Retry-After", "2")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"error":{"message":"Rate limit reached","type":"requests"}}`)
	}))
	t.Cleanup(srv.Close)
	model, _, err := NewModel(Config{Provider: "openai", BaseURL: srv.URL, APIKey: "sk-test"})
	require.NoError(t, err)
	_, _, err = NewClient(model, WithTimeout(100*time.Millisecond), WithRetries(1), fastRetries).Complete(context.Background(), StepClassify, "q")
	require.ErrorIs(t, err, ErrRateLimited, "waiting out the rate limit outlasted the timeout: %v", err)
	assert.NotErrorIs(t, err, ErrTimeout)
	assert.EqualValues(t, 2, hits.Load(), "each attempt asked once")

	for _, tt := range []struct {
		name string
		err  error
		want error
	}{
		{"a provider's rate-limit error", llms.NewError(llms.ErrCodeRateLimit, "anthropic", "slow down"), ErrRateLimited},
		{"a scripted 429", &scriptError{rule: 0, msg: "429 Too Many Requests", transient: true}, ErrRateLimited},
		{"a scripted outage", &scriptError{rule: 0, msg: "upstream busy", transient: true}, ErrUnavailable},
		{"any text that says rate limit", &scriptError{rule: 0, msg: "Rate limit exceeded, slow down", transient: true}, ErrRateLimited},
		{"any text that says too many requests", &scriptError{rule: 0, msg: "gateway: too many requests", transient: true}, ErrRateLimited},
		{"Anthropic's error type", &scriptError{rule: 0, msg: `{"type":"rate_limit_error"}`, transient: true}, ErrRateLimited},
		{"a 400 that mentions limits stays the model's refusal", errors.New("API returned unexpected status code: 400: max_tokens is over the rate limit"), nil},
	} {
		c := NewClient(failing{tt.err}, WithRetries(1), fastRetries)
		_, _, err := c.Complete(context.Background(), StepClassify, "q")
		require.Error(t, err, tt.name)
		if tt.want == nil {
			assert.NotErrorIs(t, err, ErrRateLimited, tt.name)
			assert.NotErrorIs(t, err, ErrUnavailable, tt.name)
			continue
		}
		assert.ErrorIs(t, err, tt.want, tt.name)
	}
}

// failing is a model whose every call fails with err.
type failing struct{ err error }

func (f failing) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return nil, f.err
}

func (f failing) Call(context.Context, string, ...llms.CallOption) (string, error) { return "", f.err }
