// Package llm talks to language models through langchaingo: the real
// providers (OpenAI, Anthropic, Ollama, any OpenAI-compatible URL) and a
// scripted model that answers from a file for tests and the offline demo.
package llm

import (
	"strings"
	"unicode/utf8"
)

// Step names the workflow step a model call serves. The scripted model
// matches its rules on it.
type Step string

// The steps that call a model.
const (
	StepClassify Step = "classify"
	// StepSchedule restates schedule words the bot could not read in
	// words it reads; only for schedule requests with unread words.
	StepSchedule    Step = "schedule"
	StepResolve     Step = "resolve"
	StepGenerateSQL Step = "generate_sql"
	// StepGenerateCube writes a Cube query when the bot answers from Cube.
	StepGenerateCube Step = "generate_cube"
	// StepGenerateQuery writes a query for a backend whose dialect names
	// no step of its own.
	StepGenerateQuery Step = "generate_query"
	StepInterpret     Step = "interpret"
)

// Steps lists every step that calls a model, in workflow order.
func Steps() []Step {
	return []Step{StepClassify, StepSchedule, StepResolve, StepGenerateSQL, StepGenerateCube, StepGenerateQuery, StepInterpret}
}

// Valid reports whether s is one of [Steps].
func (s Step) Valid() bool {
	for _, known := range Steps() {
		if s == known {
			return true
		}
	}
	return false
}

// stepList renders the valid steps for error messages.
func stepList() string {
	names := make([]string, 0, len(Steps()))
	for _, s := range Steps() {
		names = append(names, string(s))
	}
	return strings.Join(names, ", ")
}

// Usage counts the tokens of one call.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// EstimateTokens guesses the token count of s as ceil(characters/4), the
// usual rule of thumb for English text with BPE tokenizers. It is used when a
// provider reports no usage and for the scripted model, so budgets and spans
// always carry a number; it is not meant for billing.
func EstimateTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}
