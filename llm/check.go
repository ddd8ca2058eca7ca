package llm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/analyticsbot/analyticsbot/internal/redact"
)

// StepCheck is the one call `analyticsbot doctor` makes to see that the
// configured model answers. It is not a workflow step (not among [Steps]).
const StepCheck Step = "check"

// checkPrompt is that call's whole prompt, answered in a word or two.
const checkPrompt = "Reply with the single word: ready"

// Check sends the model cfg names one short prompt, within timeout and
// without retries, and returns the model's display name. Its error says
// which setting to look at, after the provider's own words; the key and
// the base URL's password are masked in them, even where the provider
// repeats them.
func Check(ctx context.Context, cfg Config, timeout time.Duration) (string, error) {
	model, name, err := NewModel(cfg)
	if err != nil {
		return "", err
	}
	c := NewClient(model, WithModelName(name), WithTimeout(timeout), WithRetries(0), WithSecrets(cfg.Secrets()...))
	if _, _, err := c.Complete(ctx, StepCheck, checkPrompt); err != nil {
		return name, fmt.Errorf("%w (%s)", err, advice(cfg, timeout, err))
	}
	return name, nil
}

// advice names the setting a failed call points at.
func advice(cfg Config, timeout time.Duration, err error) string {
	keyVar := map[string]string{ProviderOpenAI: "OPENAI_API_KEY", ProviderAnthropic: "ANTHROPIC_API_KEY"}[cfg.Provider]
	where := "the provider's API"
	if cfg.BaseURL != "" {
		where = redact.URL(cfg.BaseURL)
	}
	code, ok := statusCode(err.Error())
	switch {
	case ok && (code == 401 || code == 403) && keyVar != "":
		return "the provider refused the key: check " + keyVar
	case ok && (code == 401 || code == 403):
		return "the server at " + where + " refused the bot: check LLM_BASE_URL"
	case ok && code == 404:
		return "no such model or path: check LLM_MODEL and LLM_BASE_URL"
	case ok && code == 429, errors.Is(err, ErrRateLimited):
		return "the provider's rate limit or quota turned the call away: check the account"
	case errors.Is(err, ErrTimeout):
		return fmt.Sprintf("no answer within %s: check LLM_BASE_URL, or raise LLM_TIMEOUT for a slow model", timeout)
	case ok && code >= 500:
		return "the provider failed: try again later"
	case errors.Is(err, ErrUnavailable):
		return "nothing answered at " + where + ": check LLM_BASE_URL and the network"
	}
	return "check LLM_PROVIDER, LLM_MODEL and LLM_BASE_URL"
}
