package llm

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/analyticsbot/analyticsbot/internal/redact"
)

// Providers [NewModel] knows.
const (
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
	ProviderOllama    = "ollama"
	ProviderScript    = "script"
)

// Default models and addresses, used when [Config] leaves them empty.
const (
	DefaultOpenAIModel    = "gpt-4o-mini"
	DefaultOpenAIBaseURL  = "https://api.openai.com/v1"
	DefaultAnthropicModel = "claude-3-5-haiku-latest"
	DefaultOllamaModel    = "llama3.1"
	DefaultOllamaBaseURL  = "http://127.0.0.1:11434"
)

// localServerKey is sent to OpenAI-compatible servers at a custom BaseURL
// when no key is set: most local servers (llama.cpp, vLLM, LM Studio) ignore
// it, but langchaingo refuses an empty one.
const localServerKey = "unused"

// Config selects and sets up a model. The caller fills it from the
// environment (LLM_PROVIDER, LLM_MODEL, LLM_BASE_URL, OPENAI_API_KEY or
// ANTHROPIC_API_KEY, LLM_SCRIPT); see docs/scripted-model.md.
type Config struct {
	Provider   string // openai, anthropic, ollama or script
	Model      string // provider's model name; empty for the default
	BaseURL    string // OpenAI-compatible server or Ollama address
	APIKey     string // OpenAI or Anthropic key
	ScriptPath string // rules file for the script provider
}

// Secrets are the values of cfg that no error may show: the key and the
// base URL's password, for [WithSecrets].
func (cfg Config) Secrets() []string {
	var s []string
	if cfg.APIKey != "" {
		s = append(s, cfg.APIKey)
	}
	if u, err := url.Parse(cfg.BaseURL); err == nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			s = append(s, pw, url.PathEscape(pw))
		}
	}
	return s
}

// NewModel builds the model cfg names and its display name, such as
// "openai:gpt-4o-mini". It makes no network call.
func NewModel(cfg Config) (llms.Model, string, error) {
	provider := strings.ToLower(strings.TrimSpace(cfg.Provider))
	var (
		model llms.Model
		name  string
		err   error
	)
	switch provider {
	case ProviderOpenAI:
		model, name, err = newOpenAI(cfg)
	case ProviderAnthropic:
		model, name, err = newAnthropic(cfg)
	case ProviderOllama:
		model, name, err = newOllama(cfg)
	case ProviderScript:
		if cfg.ScriptPath == "" {
			return nil, "", errors.New("new model: the script provider needs a script file (set LLM_SCRIPT)")
		}
		model, err = LoadScript(cfg.ScriptPath)
		name = "script:" + filepath.Base(cfg.ScriptPath)
	case "":
		err = fmt.Errorf("no provider set (valid: %s)", providerList())
	default:
		err = fmt.Errorf("unknown provider %q (valid: %s)", cfg.Provider, providerList())
	}
	if err != nil {
		return nil, "", fmt.Errorf("new model: %w", err)
	}
	return model, name, nil
}

func providerList() string {
	return strings.Join([]string{ProviderOpenAI, ProviderAnthropic, ProviderOllama, ProviderScript}, ", ")
}

func newOpenAI(cfg Config) (llms.Model, string, error) {
	name := cmpOr(cfg.Model, DefaultOpenAIModel)
	key := cfg.APIKey
	if key == "" {
		if cfg.BaseURL == "" {
			return nil, "", errors.New("openai: missing API key: set OPENAI_API_KEY")
		}
		key = localServerKey
	}
	base, err := checkURL(cmpOr(cfg.BaseURL, DefaultOpenAIBaseURL))
	if err != nil {
		return nil, "", fmt.Errorf("openai: %w", err)
	}
	m, err := openai.New(openai.WithToken(key), openai.WithModel(name), openai.WithBaseURL(base),
		openai.WithHTTPClient(newHTTPClient()))
	if err != nil {
		return nil, "", fmt.Errorf("openai: %w", err)
	}
	return withoutStepMetadata{m}, ProviderOpenAI + ":" + name, nil
}

func newAnthropic(cfg Config) (llms.Model, string, error) {
	name := cmpOr(cfg.Model, DefaultAnthropicModel)
	if cfg.APIKey == "" {
		return nil, "", errors.New("anthropic: missing API key: set ANTHROPIC_API_KEY")
	}
	opts := []anthropic.Option{anthropic.WithToken(cfg.APIKey), anthropic.WithModel(name), anthropic.WithHTTPClient(newHTTPClient())}
	if cfg.BaseURL != "" {
		base, err := checkURL(cfg.BaseURL)
		if err != nil {
			return nil, "", fmt.Errorf("anthropic: %w", err)
		}
		opts = append(opts, anthropic.WithBaseURL(base))
	}
	m, err := anthropic.New(opts...)
	if err != nil {
		return nil, "", fmt.Errorf("anthropic: %w", err)
	}
	return m, ProviderAnthropic + ":" + name, nil
}

func newOllama(cfg Config) (llms.Model, string, error) {
	name := cmpOr(cfg.Model, DefaultOllamaModel)
	// Checked here because ollama.WithServerURL calls log.Fatal on a bad URL.
	base, err := checkURL(cmpOr(cfg.BaseURL, DefaultOllamaBaseURL))
	if err != nil {
		return nil, "", fmt.Errorf("ollama: %w", err)
	}
	m, err := ollama.New(ollama.WithModel(name), ollama.WithServerURL(base), ollama.WithHTTPClient(newHTTPClient()))
	if err != nil {
		return nil, "", fmt.Errorf("ollama: %w", err)
	}
	return m, ProviderOllama + ":" + name, nil
}

func checkURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("base URL %q is not an absolute URL like http://host:port", redact.URL(raw))
	}
	return strings.TrimRight(raw, "/"), nil
}

func cmpOr(v, fallback string) string {
	if v == "" {
		return fallback
	}
	return v
}

// withoutStepMetadata drops the "step" metadata before an OpenAI call:
// langchaingo v0.1.14 forwards metadata to the API, which rejects it with
// HTTP 400 unless "store" is on (tmc/langchaingo#1484).
type withoutStepMetadata struct {
	llms.Model
}

func (m withoutStepMetadata) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	drop := func(o *llms.CallOptions) {
		if _, ok := o.Metadata[MetadataStep]; !ok {
			return
		}
		md := maps.Clone(o.Metadata)
		delete(md, MetadataStep)
		if len(md) == 0 {
			md = nil
		}
		o.Metadata = md
	}
	return m.Model.GenerateContent(ctx, messages, append(options, drop)...)
}

func (m withoutStepMetadata) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}
