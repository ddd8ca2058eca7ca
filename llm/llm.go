// Package llm talks to language models through langchaingo: the real
// providers (OpenAI, Anthropic, Ollama, any OpenAI-compatible URL) and a
// scripted model that answers from a file for tests and the offline demo.
package llm

// Step names the workflow step a model call serves. The scripted model
// matches its rules on it.
type Step string

// The steps that call a model.
const (
	StepClassify    Step = "classify"
	StepResolve     Step = "resolve"
	StepGenerateSQL Step = "generate_sql"
	StepInterpret   Step = "interpret"
)

// Usage counts the tokens of one call.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}
