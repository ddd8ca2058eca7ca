package llm

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/tmc/langchaingo/llms"
)

// rateLimitMark records that a provider answered an attempt with 429.
// The providers' clients turn HTTP failures into text, and a timeout
// while waiting out a Retry-After into "request timeout", so the
// transport marks the attempt's context instead.
type rateLimitMark struct{ seen atomic.Bool }

type rateLimitKey struct{}

// withRateLimitMark returns ctx carrying a fresh mark for one attempt.
func withRateLimitMark(ctx context.Context) (context.Context, *rateLimitMark) {
	m := &rateLimitMark{}
	return context.WithValue(ctx, rateLimitKey{}, m), m
}

// markRateLimited notes on ctx's attempt, if any, that the provider
// answered 429.
func markRateLimited(ctx context.Context) {
	if m, ok := ctx.Value(rateLimitKey{}).(*rateLimitMark); ok {
		m.seen.Store(true)
	}
}

// rateLimitedError is an attempt that failed after the provider answered
// it 429, whatever the error says; its text is the error's.
type rateLimitedError struct{ err error }

func (e *rateLimitedError) Error() string { return e.err.Error() }

func (e *rateLimitedError) Unwrap() error { return e.err }

// rateLimitPhrases are the error texts of rate limits, lower-cased:
// OpenAI's "Rate limit reached", Anthropic's "rate_limit_error", a 429's
// reason phrase.
var rateLimitPhrases = []string{"too many requests", "rate limit", "rate_limit"}

// isRateLimited reports whether err is a provider's rate limit.
func isRateLimited(err error) bool {
	var marked *rateLimitedError
	if errors.As(err, &marked) {
		return true
	}
	var llmErr *llms.Error
	if errors.As(err, &llmErr) && llmErr.Code == llms.ErrCodeRateLimit {
		return true
	}
	if code, ok := statusCode(err.Error()); ok {
		return code == 429
	}
	msg := strings.ToLower(err.Error())
	for _, phrase := range rateLimitPhrases {
		if strings.Contains(msg, phrase) {
			return true
		}
	}
	return false
}
