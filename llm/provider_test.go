package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

func TestNewModel(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "demo.yaml")
	require.NoError(t, os.WriteFile(script, []byte("rules:\n- {step: classify, reply: x}\n"), 0o600))
	tests := []struct {
		name     string
		cfg      Config
		wantName string
		wantErr  string
	}{
		{name: "openai default model", cfg: Config{Provider: "openai", APIKey: "sk-test"}, wantName: "openai:gpt-4o-mini"},
		{name: "openai-compatible server needs no key", cfg: Config{Provider: "OpenAI", Model: "qwen2.5", BaseURL: "http://127.0.0.1:8080/v1"}, wantName: "openai:qwen2.5"},
		{name: "openai without key", cfg: Config{Provider: "openai"}, wantErr: "new model: openai: missing API key: set OPENAI_API_KEY"},
		{name: "anthropic default model", cfg: Config{Provider: "anthropic", APIKey: "k"}, wantName: "anthropic:claude-3-5-haiku-latest"},
		{name: "anthropic without key", cfg: Config{Provider: "anthropic", BaseURL: "http://x"}, wantErr: "new model: anthropic: missing API key: set ANTHROPIC_API_KEY"},
		{name: "ollama default model", cfg: Config{Provider: "ollama"}, wantName: "ollama:llama3.1"},
		{name: "ollama bad url", cfg: Config{Provider: "ollama", BaseURL: "localhost"}, wantErr: `new model: ollama: base URL "localhost" is not an absolute URL like http://host:port`},
		{name: "script", cfg: Config{Provider: "script", ScriptPath: script}, wantName: "script:demo.yaml"},
		{name: "script without path", cfg: Config{Provider: "script"}, wantErr: "new model: the script provider needs a script file (set LLM_SCRIPT)"},
		{name: "unknown provider", cfg: Config{Provider: "gemini"}, wantErr: `new model: unknown provider "gemini" (valid: openai, anthropic, ollama, script)`},
		{name: "no provider", cfg: Config{}, wantErr: "new model: no provider set (valid: openai, anthropic, ollama, script)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, name, err := NewModel(tt.cfg)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			assert.NotNil(t, m)
			assert.Equal(t, tt.wantName, name)
		})
	}
}

// openAIServer answers /chat/completions with the given statuses in turn,
// then with a real chat completion, and hands each request body to check.
func openAIServer(t *testing.T, statuses []int, check func(body map[string]any, r *http.Request)) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(hits.Add(1))
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if check != nil {
			check(body, r)
		}
		w.Header().Set("Content-Type", "application/json")
		if n <= len(statuses) {
			w.WriteHeader(statuses[n-1])
			_, _ = io.WriteString(w, `{"error":{"message":"scripted failure","type":"server_error"}}`)
			return
		}
		_, _ = io.WriteString(w, `{
  "id": "chatcmpl-abc123",
  "object": "chat.completion",
  "created": 1730000000,
  "model": "gpt-4o-mini-2024-07-18",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant", "content": "{\"intent\":\"analytics_query\",\"confidence\":0.9}"},
    "logprobs": null,
    "finish_reason": "stop"
  }],
  "usage": {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49}
}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestOpenAIRoundTrip(t *testing.T) {
	t.Parallel()
	var gotBody map[string]any
	var gotAuth, gotPath string
	srv, hits := openAIServer(t, nil, func(body map[string]any, r *http.Request) {
		gotBody, gotAuth, gotPath = body, r.Header.Get("Authorization"), r.URL.Path
	})
	model, name, err := NewModel(Config{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: "sk-test"})
	require.NoError(t, err)
	c := NewClient(model, WithModelName(name))

	got, usage, err := c.Complete(context.Background(), StepClassify, "Question: revenue last week?")
	require.NoError(t, err)
	assert.Equal(t, `{"intent":"analytics_query","confidence":0.9}`, got)
	assert.Equal(t, Usage{PromptTokens: 42, CompletionTokens: 7}, usage)
	assert.Equal(t, int32(1), hits.Load())
	assert.Equal(t, "/v1/chat/completions", gotPath)
	assert.Equal(t, "Bearer sk-test", gotAuth)
	assert.Equal(t, "gpt-4o-mini", gotBody["model"])
	assert.Equal(t, 0.0, gotBody["temperature"])
	assert.NotContains(t, gotBody, "metadata", "the step must not reach OpenAI: it rejects metadata without store")
	assert.Equal(t, []any{map[string]any{"role": "user", "content": "Question: revenue last week?"}}, gotBody["messages"])
}

func TestOpenAIErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		statuses []int
		wantErr  string
		wantIs   error
		wantHits int32
	}{
		{name: "503 then success", statuses: []int{503}, wantHits: 2},
		{name: "429 until retries run out", statuses: []int{429, 429, 429}, wantHits: 3, wantIs: ErrRateLimited,
			wantErr: "classify: model call: rate limited after 3 attempts: API returned unexpected status code: 429: scripted failure"},
		{name: "503 until retries run out", statuses: []int{503, 503, 503}, wantHits: 3, wantIs: ErrUnavailable,
			wantErr: "classify: model call: unavailable after 3 attempts: API returned unexpected status code: 503: scripted failure"},
		{name: "400 is not retried", statuses: []int{400}, wantHits: 1,
			wantErr: "classify: model call: API returned unexpected status code: 400: scripted failure"},
		{name: "401 is not retried", statuses: []int{401}, wantHits: 1,
			wantErr: "classify: model call: API returned unexpected status code: 401: scripted failure"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, hits := openAIServer(t, tt.statuses, nil)
			model, _, err := NewModel(Config{Provider: "openai", BaseURL: srv.URL, APIKey: "sk-test"})
			require.NoError(t, err)
			_, _, err = NewClient(model, fastRetries).Complete(context.Background(), StepClassify, "q")
			if tt.wantErr == "" {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, err.Error())
				if tt.wantIs != nil {
					assert.ErrorIs(t, err, tt.wantIs)
				} else {
					assert.NotErrorIs(t, err, ErrUnavailable)
				}
			}
			assert.Equal(t, tt.wantHits, hits.Load(), "got %d requests, want %d", hits.Load(), tt.wantHits)
		})
	}
}

func TestOpenAIConnectionRefused(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	model, _, err := NewModel(Config{Provider: "openai", BaseURL: url, APIKey: "sk-test"})
	require.NoError(t, err)
	_, _, err = NewClient(model, WithRetries(1), fastRetries).Complete(context.Background(), StepResolve, "q")
	require.ErrorIs(t, err, ErrUnavailable)
	assert.Equal(t, "resolve: model call: unavailable after 2 attempts: network error: failed to reach API server", err.Error())
}

func TestOllamaRoundTrip(t *testing.T) {
	t.Parallel()
	var gotBody map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat" {
			http.NotFound(w, r)
			return
		}
		_ = json.NewDecoder(r.Body).Decode(&gotBody)
		w.Header().Set("Content-Type", "application/x-ndjson")
		_, _ = io.WriteString(w, `{"model":"llama3.1","created_at":"2024-10-01T00:00:00Z","message":{"role":"assistant","content":"{\"answer\":\"12 orders\"}"},"done":true,"done_reason":"stop","prompt_eval_count":31,"eval_count":9}`+"\n")
	}))
	t.Cleanup(srv.Close)
	model, name, err := NewModel(Config{Provider: "ollama", BaseURL: srv.URL})
	require.NoError(t, err)
	assert.Equal(t, "ollama:llama3.1", name)

	got, usage, err := NewClient(model).Complete(context.Background(), StepInterpret, "Question: orders?")
	require.NoError(t, err)
	assert.Equal(t, `{"answer":"12 orders"}`, got)
	assert.Equal(t, Usage{PromptTokens: 31, CompletionTokens: 9}, usage)
	assert.Equal(t, "llama3.1", gotBody["model"])
}

func TestAnthropicRoundTrip(t *testing.T) {
	t.Parallel()
	var gotKey, gotPath string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotKey, gotPath = r.Header.Get("x-api-key"), r.URL.Path
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"msg_01","type":"message","role":"assistant","model":"claude-3-5-haiku-latest",
"content":[{"type":"text","text":"{\"question\":\"revenue by region last week\",\"referenced_query_id\":null}"}],
"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":55,"output_tokens":14}}`)
	}))
	t.Cleanup(srv.Close)
	model, _, err := NewModel(Config{Provider: "anthropic", BaseURL: srv.URL + "/v1", APIKey: "ak-test"})
	require.NoError(t, err)

	got, usage, err := NewClient(model).Complete(context.Background(), StepResolve, "Question: and by region?")
	require.NoError(t, err)
	assert.Equal(t, `{"question":"revenue by region last week","referenced_query_id":null}`, got)
	assert.Equal(t, Usage{PromptTokens: 55, CompletionTokens: 14}, usage)
	assert.Equal(t, "ak-test", gotKey)
	assert.Equal(t, "/v1/messages", gotPath)
}

// docs/scripted-model.md states the providers' default models and
// addresses: they are the ones NewModel uses.
func TestDocumentedProviderDefaults(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/scripted-model.md")
	require.NoError(t, err)
	for _, says := range []string{
		"defaults: `" + DefaultOpenAIModel + "`, `" + DefaultAnthropicModel + "`, `" + DefaultOllamaModel + "`",
		"(default `" + DefaultOpenAIBaseURL + "`)",
		"Ollama: the server (default `" + DefaultOllamaBaseURL + "`)",
	} {
		assert.Contains(t, string(doc), says)
	}
}

// providerAt is a provider's own client of a server that answers path
// with reply, counting the requests in hits (when not nil) and handing
// each request's body on.
func providerAt(t *testing.T, provider, path, reply string, hits *atomic.Int32) (llms.Model, <-chan map[string]any) {
	t.Helper()
	bodies := make(chan map[string]any, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		if hits != nil {
			hits.Add(1)
		}
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		bodies <- body
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, reply)
	}))
	t.Cleanup(srv.Close)
	base := srv.URL
	if provider == "anthropic" {
		base += "/v1"
	}
	model, _, err := NewModel(Config{Provider: provider, BaseURL: base, APIKey: "k"})
	require.NoError(t, err)
	return model, bodies
}

// TestReplyCutAtTheBound checks, against each provider's own client, that
// every call asks for at most the bound and that a reply the provider ended
// there fails with ErrReplyCut, once, instead of passing for a whole one.
func TestReplyCutAtTheBound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		provider string
		path     string
		bound    string // where the request carries the bound
		reply    func(cut bool) string
	}{
		{provider: "openai", path: "/chat/completions", bound: "max_completion_tokens", reply: func(cut bool) string {
			reason := map[bool]string{true: "length", false: "stop"}[cut]
			return `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,` +
				`"message":{"role":"assistant","content":"SELECT 1"},"finish_reason":"` + reason + `"}],` +
				`"usage":{"prompt_tokens":5,"completion_tokens":300,"total_tokens":305}}`
		}},
		{provider: "anthropic", path: "/v1/messages", bound: "max_tokens", reply: func(cut bool) string {
			reason := map[bool]string{true: "max_tokens", false: "end_turn"}[cut]
			return `{"id":"msg_01","type":"message","role":"assistant","model":"claude-3-5-haiku-latest",` +
				`"content":[{"type":"text","text":"SELECT 1"}],"stop_reason":"` + reason + `",` +
				`"usage":{"input_tokens":5,"output_tokens":300}}`
		}},
		{provider: "ollama", path: "/api/chat", bound: "options.num_predict", reply: func(cut bool) string {
			count := map[bool]string{true: "300", false: "299"}[cut] // langchaingo passes no done_reason on
			return `{"model":"llama3.1","created_at":"2024-10-01T00:00:00Z","message":{"role":"assistant","content":"SELECT 1"},` +
				`"done":true,"prompt_eval_count":5,"eval_count":` + count + `}` + "\n"
		}},
	}
	for _, tt := range tests {
		for _, cut := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s cut %v", tt.provider, cut), func(t *testing.T) {
				t.Parallel()
				var hits atomic.Int32
				model, bodies := providerAt(t, tt.provider, tt.path, tt.reply(cut), &hits)

				got, _, err := NewClient(model, WithMaxTokens(300), fastRetries).Complete(context.Background(), StepGenerateSQL, "q")
				body := <-bodies
				sent := any(body)
				for _, key := range strings.Split(tt.bound, ".") {
					sent = sent.(map[string]any)[key]
				}
				assert.EqualValues(t, 300, sent, "got request %v, want %s 300", body, tt.bound)
				if !cut {
					require.NoError(t, err)
					assert.Equal(t, "SELECT 1", got)
					return
				}
				require.ErrorIs(t, err, ErrReplyCut, "got reply %q", got)
				assert.Equal(t, "generate_sql: model call: reply cut at a token bound (300 tokens)", err.Error())
				assert.Equal(t, int32(1), hits.Load(), "a cut reply is not asked for again")
			})
		}
	}
}

// With no bound set (LLM_MAX_TOKENS=0, the default), no bound is sent, and
// a reply the provider cut at its own bound still fails with ErrReplyCut
// where the provider says so (OpenAI's "length", Anthropic's
// "max_tokens"); Ollama's client says nothing, and its reply passes.
func TestReplyCutAtTheProvidersBound(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		provider, path, reply string
		sent                  []string // keys that must not be in the request
		cut                   bool
	}{
		{provider: "openai", path: "/chat/completions", sent: []string{"max_tokens", "max_completion_tokens"}, cut: true,
			reply: `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,` +
				`"message":{"role":"assistant","content":"SELECT"},"finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":16384,"total_tokens":16389}}`},
		{provider: "anthropic", path: "/v1/messages", cut: true,
			reply: `{"id":"msg_01","type":"message","role":"assistant","model":"claude-3-5-haiku-latest",` +
				`"content":[{"type":"text","text":"SELECT"}],"stop_reason":"max_tokens","usage":{"input_tokens":5,"output_tokens":2048}}`},
		{provider: "ollama", path: "/api/chat", sent: []string{"options.num_predict"},
			reply: `{"model":"llama3.1","created_at":"2024-10-01T00:00:00Z","message":{"role":"assistant","content":"SELECT"},` +
				`"done":true,"prompt_eval_count":5,"eval_count":128}` + "\n"},
	} {
		t.Run(tt.provider, func(t *testing.T) {
			t.Parallel()
			model, bodies := providerAt(t, tt.provider, tt.path, tt.reply, nil)
			got, _, err := NewClient(model, fastRetries).Complete(context.Background(), StepGenerateSQL, "q")
			body := <-bodies
			for _, key := range tt.sent {
				v := any(body)
				for _, k := range strings.Split(key, ".") {
					m, _ := v.(map[string]any)
					v = m[k]
				}
				assert.Nil(t, v, "no bound sent: %s in %v", key, body)
			}
			if !tt.cut {
				require.NoError(t, err)
				assert.Equal(t, "SELECT", got)
				return
			}
			require.ErrorIs(t, err, ErrReplyCut, "got reply %q", got)
			assert.Equal(t, "generate_sql: model call: reply cut at a token bound (the provider's own bound)", err.Error())
		})
	}
}
