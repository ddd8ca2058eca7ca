package llm

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheck makes doctor's one call to servers that answer, refuse or stay
// silent, and wants the setting to look at named after the provider's words.
func TestCheck(t *testing.T) {
	t.Parallel()
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close() // nothing listens there any more
	held := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-held:
		}
	}))
	t.Cleanup(silent.Close)
	t.Cleanup(func() { close(held) }) // runs first: Close waits for the held request
	anthropicRefuses := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)
	}))
	t.Cleanup(anthropicRefuses.Close)

	tests := []struct {
		name     string
		cfg      func() Config
		wantName string
		wantErr  []string // each in the error; none: it answers
	}{
		{name: "answers", wantName: "openai:gpt-4o-mini", cfg: func() Config {
			srv, _ := openAIServer(t, nil, nil)
			return Config{Provider: "openai", BaseURL: srv.URL, APIKey: "sk-test"}
		}},
		{name: "wrong key", cfg: func() Config {
			srv, _ := openAIServer(t, []int{401}, nil)
			return Config{Provider: "openai", BaseURL: srv.URL, APIKey: "sk-test"}
		}, wantErr: []string{"401: scripted failure", "the provider refused the key: check OPENAI_API_KEY"}},
		{name: "a key the provider repeats", cfg: func() Config {
			return Config{Provider: "openai", BaseURL: echoingServer(t, 401).URL, APIKey: "ghp_AbCdEf0123456789xyz"}
		}, wantErr: []string{"Received API Key = [masked]", "the provider refused the key: check OPENAI_API_KEY"}},
		{name: "anthropic's key", cfg: func() Config {
			return Config{Provider: "anthropic", BaseURL: anthropicRefuses.URL, APIKey: "ak-test"}
		}, wantErr: []string{"check ANTHROPIC_API_KEY"}},
		{name: "no such model", cfg: func() Config {
			srv, _ := openAIServer(t, []int{404}, nil)
			return Config{Provider: "openai", BaseURL: srv.URL, APIKey: "sk-test", Model: "gpt-nope"}
		}, wantErr: []string{"404", "no such model or path: check LLM_MODEL and LLM_BASE_URL"}},
		{name: "rate limited", cfg: func() Config {
			srv, _ := openAIServer(t, []int{429}, nil)
			return Config{Provider: "openai", BaseURL: srv.URL, APIKey: "sk-test"}
		}, wantErr: []string{"rate limit or quota", "check the account"}},
		{name: "provider fails", cfg: func() Config {
			srv, _ := openAIServer(t, []int{503}, nil)
			return Config{Provider: "openai", BaseURL: srv.URL, APIKey: "sk-test"}
		}, wantErr: []string{"503", "the provider failed: try again later"}},
		{name: "nothing there", cfg: func() Config {
			return Config{Provider: "openai", BaseURL: strings.Replace(downURL, "http://", "http://me:hunter2@", 1), APIKey: "sk-test"}
		}, wantErr: []string{"nothing answered at http://me:xxxxx@", "check LLM_BASE_URL and the network"}},
		{name: "silent", cfg: func() Config {
			return Config{Provider: "ollama", BaseURL: silent.URL}
		}, wantErr: []string{"no answer within 200ms: check LLM_BASE_URL, or raise LLM_TIMEOUT for a slow model"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := tt.cfg()
			name, err := Check(context.Background(), cfg, 200*time.Millisecond)
			if len(tt.wantErr) == 0 {
				require.NoError(t, err)
				assert.Equal(t, tt.wantName, name)
				return
			}
			require.Error(t, err)
			for _, want := range tt.wantErr {
				assert.Contains(t, err.Error(), want)
			}
			if cfg.APIKey != "" {
				assert.NotContains(t, err.Error(), cfg.APIKey, "the key is never shown")
			}
			assert.NotContains(t, err.Error(), "hunter2", "nor the URL's password")
		})
	}
}
