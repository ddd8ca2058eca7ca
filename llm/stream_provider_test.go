package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openAIStreamServer answers /chat/completions with a server-sent event
// stream of the given content deltas, then the usage and [DONE], the way
// the OpenAI API streams. With hold set, it stops after the first delta and
// waits for the client to go away. It hands each request body to body.
func openAIStreamServer(t *testing.T, deltas []string, hold bool, body chan<- map[string]any) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if body != nil {
			body <- req
		}
		w.Header().Set("Content-Type", "text/event-stream")
		event := func(payload string) {
			_, _ = fmt.Fprintf(w, "data: %s\n\n", payload)
			w.(http.Flusher).Flush()
		}
		const head = `"id":"chatcmpl-1","object":"chat.completion.chunk","created":1730000000,"model":"gpt-4o-mini"`
		event(`{` + head + `,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`)
		for _, d := range deltas {
			content, _ := json.Marshal(d)
			event(`{` + head + `,"choices":[{"index":0,"delta":{"content":` + string(content) + `},"finish_reason":null}]}`)
			if hold {
				<-r.Context().Done()
				return
			}
		}
		event(`{` + head + `,"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
		event(`{` + head + `,"choices":[],"usage":{"prompt_tokens":42,"completion_tokens":7,"total_tokens":49}}`)
		event(`[DONE]`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestOpenAIStreams(t *testing.T) {
	t.Parallel()
	bodies := make(chan map[string]any, 1)
	deltas := []string{"EMEA", " led", " with $1.2M."}
	srv := openAIStreamServer(t, deltas, false, bodies)
	model, _, err := NewModel(Config{Provider: "openai", BaseURL: srv.URL, APIKey: "sk-test"})
	require.NoError(t, err)

	var sk sink
	got, usage, err := NewClient(model).Complete(WithStream(context.Background(), sk.stream), StepInterpret, "Question: revenue?")
	require.NoError(t, err)
	assert.Equal(t, "EMEA led with $1.2M.", got)
	assert.Equal(t, Usage{PromptTokens: 42, CompletionTokens: 7}, usage, "streamed calls must keep the provider's usage")
	assert.Equal(t, deltas, sk.texts(StepInterpret), "the deltas must arrive as sent, without the empty role delta")
	body := <-bodies
	assert.Equal(t, true, body["stream"], "got request %v, want stream: true", body)
	assert.NotContains(t, body, "metadata", "the step must not reach OpenAI, streaming or not")
}

// TestOpenAIStreamCanceled checks that a stream cut by the caller fails
// instead of returning its first chunks as the reply: langchaingo's OpenAI
// client can end a canceled stream without an error.
func TestOpenAIStreamCanceled(t *testing.T) {
	t.Parallel()
	srv := openAIStreamServer(t, []string{"Partial", " never sent"}, true, nil)
	model, _, err := NewModel(Config{Provider: "openai", BaseURL: srv.URL, APIKey: "sk-test"})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sk sink
	ctx = WithStream(ctx, func(step Step, text string) {
		sk.stream(step, text)
		cancel()
	})
	got, _, err := NewClient(model, fastRetries).Complete(ctx, StepInterpret, "q")
	require.ErrorIs(t, err, context.Canceled, "got reply %q, want the cancellation", got)
	assert.Empty(t, got)
	assert.Equal(t, []string{"Partial"}, sk.texts(StepInterpret))
}

func TestOllamaStreams(t *testing.T) {
	t.Parallel()
	var gotStream any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		_ = json.NewDecoder(r.Body).Decode(&req)
		gotStream = req["stream"]
		w.Header().Set("Content-Type", "application/x-ndjson")
		for _, line := range []string{
			`{"model":"llama3.1","message":{"role":"assistant","content":"12"},"done":false}`,
			`{"model":"llama3.1","message":{"role":"assistant","content":" orders"},"done":false}`,
			`{"model":"llama3.1","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":31,"eval_count":9}`,
		} {
			_, _ = io.WriteString(w, line+"\n")
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	model, _, err := NewModel(Config{Provider: "ollama", BaseURL: srv.URL})
	require.NoError(t, err)

	var sk sink
	got, usage, err := NewClient(model).Complete(WithStream(context.Background(), sk.stream), StepInterpret, "Question: orders?")
	require.NoError(t, err)
	assert.Equal(t, "12 orders", got)
	assert.Equal(t, Usage{PromptTokens: 31, CompletionTokens: 9}, usage)
	assert.Equal(t, []string{"12", " orders"}, sk.texts(StepInterpret), "the empty final message must not reach the StreamFunc")
	assert.Equal(t, true, gotStream, "got stream %v in the request, want true", gotStream)
}
