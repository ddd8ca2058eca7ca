package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The OpenAI embedder asks /embeddings with the embedding model and reads
// one vector per text; providers without embeddings say so.
func TestNewEmbedder(t *testing.T) {
	t.Parallel()
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "/v1/embeddings", r.URL.Path)
		assert.NoError(t, json.NewDecoder(r.Body).Decode(&got))
		inputs, _ := got["input"].([]any)
		data := make([]map[string]any, len(inputs))
		for i := range inputs {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": []float32{float32(i), 1}}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": got["model"],
			"usage": map[string]int{"prompt_tokens": 3, "total_tokens": 3}})
	}))
	t.Cleanup(srv.Close)

	e, name, err := NewEmbedder(Config{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: "sk-test"}, "")
	require.NoError(t, err)
	assert.Equal(t, "openai:text-embedding-3-small", name, "OpenAI's default model (docs/examples.md)")
	vecs, err := e.EmbedDocuments(context.Background(), []string{"revenue by month", "games per year"})
	require.NoError(t, err)
	assert.Equal(t, [][]float32{{0, 1}, {1, 1}}, vecs)
	assert.Equal(t, DefaultOpenAIEmbeddingModel, got["model"])

	_, name, err = NewEmbedder(Config{Provider: "ollama"}, "")
	require.NoError(t, err)
	assert.Equal(t, "ollama:nomic-embed-text", name, "Ollama's default model (docs/examples.md)")
	_, name, err = NewEmbedder(Config{Provider: "ollama"}, "mxbai-embed-large")
	require.NoError(t, err)
	assert.Equal(t, "ollama:mxbai-embed-large", name)
	for _, p := range []string{"anthropic", "script", ""} {
		_, _, err := NewEmbedder(Config{Provider: p, APIKey: "k"}, "")
		assert.ErrorIs(t, err, ErrNoEmbeddings, p)
		assert.False(t, HasEmbeddings(p))
	}
	assert.True(t, HasEmbeddings("OpenAI"))
}
