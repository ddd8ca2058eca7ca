package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/embeddings"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"
)

// Default embedding models, used when EmbeddingModel is empty.
const (
	DefaultOpenAIEmbeddingModel = "text-embedding-3-small"
	DefaultOllamaEmbeddingModel = "nomic-embed-text"
)

// ErrNoEmbeddings means the configured provider offers no embeddings
// (Anthropic, the scripted model).
var ErrNoEmbeddings = errors.New("the model provider offers no embeddings (openai and ollama do)")

// HasEmbeddings reports whether provider can embed text.
func HasEmbeddings(provider string) bool {
	switch strings.ToLower(strings.TrimSpace(provider)) {
	case ProviderOpenAI, ProviderOllama:
		return true
	}
	return false
}

// NewEmbedder builds the embedder of cfg's provider with model (empty: the
// provider's default) and its display name, such as
// "openai:text-embedding-3-small". It makes no network call. Its errors
// have cfg's secrets (see [Config.Secrets]) and key-like text masked, as
// [Client.Complete]'s do: a provider may repeat the key it refused.
func NewEmbedder(cfg Config, model string) (embeddings.Embedder, string, error) {
	provider := strings.ToLower(strings.TrimSpace(cfg.Provider))
	var (
		client embeddings.EmbedderClient
		err    error
	)
	switch provider {
	case ProviderOpenAI:
		model = cmpOr(model, DefaultOpenAIEmbeddingModel)
		key := cfg.APIKey
		if key == "" {
			if cfg.BaseURL == "" {
				return nil, "", errors.New("new embedder: openai: missing API key: set OPENAI_API_KEY")
			}
			key = localServerKey
		}
		base, berr := checkURL(cmpOr(cfg.BaseURL, DefaultOpenAIBaseURL))
		if berr != nil {
			return nil, "", fmt.Errorf("new embedder: openai: %w", berr)
		}
		client, err = openai.New(openai.WithToken(key), openai.WithBaseURL(base), openai.WithEmbeddingModel(model))
	case ProviderOllama:
		model = cmpOr(model, DefaultOllamaEmbeddingModel)
		base, berr := checkURL(cmpOr(cfg.BaseURL, DefaultOllamaBaseURL))
		if berr != nil {
			return nil, "", fmt.Errorf("new embedder: ollama: %w", berr)
		}
		client, err = ollama.New(ollama.WithModel(model), ollama.WithServerURL(base))
	default:
		return nil, "", fmt.Errorf("new embedder: %q: %w", cfg.Provider, ErrNoEmbeddings)
	}
	if err != nil {
		return nil, "", fmt.Errorf("new embedder: %s: %w", provider, err)
	}
	e, err := embeddings.NewEmbedder(client)
	if err != nil {
		return nil, "", fmt.Errorf("new embedder: %w", err)
	}
	return maskingEmbedder{e: e, secrets: cfg.Secrets()}, provider + ":" + model, nil
}

// maskingEmbedder is an embedder whose errors have secrets masked, so no
// caller (grounding's warning, a span) can show the key or the base URL's
// password the provider's words repeat.
type maskingEmbedder struct {
	e       embeddings.Embedder
	secrets []string
}

// EmbedDocuments returns a vector for each of texts.
func (m maskingEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, err := m.e.EmbedDocuments(ctx, texts)
	if err != nil {
		return nil, maskSecrets(err, m.secrets)
	}
	return vecs, nil
}

// EmbedQuery returns text's vector.
func (m maskingEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	vec, err := m.e.EmbedQuery(ctx, text)
	if err != nil {
		return nil, maskSecrets(err, m.secrets)
	}
	return vec, nil
}
