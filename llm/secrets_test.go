package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// echoingServer answers every call with status and a body that repeats
// the key the request carried, as LiteLLM's proxy does ("Received API Key
// = sk-proj-…"), in the error shape of OpenAI's API or Anthropic's.
func echoingServer(t *testing.T, status int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if k := r.Header.Get("X-Api-Key"); k != "" {
			key = k
		}
		msg, _ := json.Marshal(fmt.Sprintf("Authentication Error, Received API Key = %s, Key Hash (Token) =1f2e. Unable to find token in cache or `LiteLLM_VerificationTokenTable`; key %s is not valid", key, key))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"type":"error","error":{"message":%s,"type":"auth_error","param":"None","code":"%d"}}`, msg, status)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCallErrorsHoldNoKey: a provider that repeats the key it was sent
// (or the base URL's password) in its error sees it masked in the error
// Complete returns and in the llm.call span, whatever the key's shape,
// and the error still has its kind.
func TestCallErrorsHoldNoKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		provider string
		key      string
		status   int
		password string // in the base URL
		wantKind error
	}{
		{name: "openai's key shape", provider: ProviderOpenAI, key: "sk-proj-AbCdEf0123456789", status: http.StatusUnauthorized},
		{name: "a github token", provider: ProviderOpenAI, key: "ghp_AbCdEf0123456789xyz", status: http.StatusUnauthorized},
		{name: "an azure key", provider: ProviderOpenAI, key: "0123456789abcdef0123456789abcdef", status: http.StatusUnauthorized},
		{name: "retried until unavailable", provider: ProviderOpenAI, key: "0123456789abcdef0123456789abcdef",
			status: http.StatusServiceUnavailable, wantKind: ErrUnavailable},
		{name: "anthropic", provider: ProviderAnthropic, key: "plain-anthropic-key-0123", status: http.StatusUnauthorized},
		{name: "the base URL's password", provider: ProviderOpenAI, key: "pass-w0rd-in-url", password: "pass-w0rd-in-url",
			status: http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := echoingServer(t, tt.status).URL
			cfg := Config{Provider: tt.provider, BaseURL: base, APIKey: tt.key}
			if tt.password != "" {
				cfg.BaseURL = strings.Replace(base, "http://", "http://bot:"+tt.password+"@", 1)
			}
			model, name, err := NewModel(cfg)
			require.NoError(t, err)
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			c := NewClient(model, WithModelName(name), WithTracerProvider(tp), WithSecrets(cfg.Secrets()...), fastRetries)

			_, _, err = c.Complete(context.Background(), StepClassify, "q")
			require.Error(t, err)
			assert.Contains(t, err.Error(), "[masked]", "the provider's words are kept, the key masked")
			assert.NotContains(t, err.Error(), tt.key, "the error")
			if tt.wantKind != nil {
				assert.ErrorIs(t, err, tt.wantKind, "the masked error keeps its kind")
			}

			spans := rec.Ended()
			require.Len(t, spans, 1)
			s := spans[0]
			assert.NotContains(t, s.Status().Description, tt.key, "the span's status")
			require.NotEmpty(t, s.Events(), "the error is recorded on the span")
			for _, ev := range s.Events() {
				for _, a := range ev.Attributes {
					assert.NotContains(t, a.Value.Emit(), tt.key, "the span's event %s, %s", ev.Name, a.Key)
				}
			}
		})
	}
}

// TestEmbedErrorsHoldNoKey: the embedder NewEmbedder builds masks the key
// (and the base URL's password) a provider repeats in its error, as
// Complete does, so grounding's warning cannot log it; the error keeps the
// provider's other words.
func TestEmbedErrorsHoldNoKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		key      string
		password string // in the base URL
	}{
		{name: "openai's key shape", key: "sk-proj-AbCdEf0123456789"},
		{name: "a github token", key: "ghp_AbCdEf0123456789xyz"},
		{name: "an azure key", key: "0123456789abcdef0123456789abcdef"},
		{name: "the base URL's password", key: "pass-w0rd-in-url", password: "pass-w0rd-in-url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := echoingServer(t, http.StatusUnauthorized).URL
			cfg := Config{Provider: ProviderOpenAI, BaseURL: base, APIKey: tt.key}
			if tt.password != "" {
				cfg.BaseURL = strings.Replace(base, "http://", "http://bot:"+tt.password+"@", 1)
			}
			e, _, err := NewEmbedder(cfg, "")
			require.NoError(t, err)

			_, err = e.EmbedQuery(context.Background(), "revenue by month")
			require.Error(t, err)
			assert.Contains(t, err.Error(), "Authentication Error", "the provider's words are kept")
			assert.Contains(t, err.Error(), "[masked]")
			assert.NotContains(t, err.Error(), tt.key, "EmbedQuery's error")

			_, err = e.EmbedDocuments(context.Background(), []string{"revenue by month", "games per year"})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "[masked]")
			assert.NotContains(t, err.Error(), tt.key, "EmbedDocuments' error")
		})
	}
}
