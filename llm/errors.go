package llm

import (
	"context"
	"errors"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tmc/langchaingo/llms"
)

// Error kinds a caller can test with errors.Is. Anything else a model call
// returns is a permanent failure (bad request, bad key, unknown model).
var (
	// ErrTimeout means the model did not answer within the per-call timeout
	// (see [WithTimeout]) on every attempt. It is never returned when the
	// caller's own context was canceled or ran out: that error wraps
	// context.Canceled or context.DeadlineExceeded instead.
	ErrTimeout = errors.New("timed out")
	// ErrUnavailable means the model kept failing with transient errors
	// (5xx, connection failures) until the retries ran out.
	ErrUnavailable = errors.New("unavailable")
	// ErrRateLimited means the provider kept turning the calls away for
	// its rate limit (HTTP 429, "too many requests"), or its wait outlasted
	// the per-call timeout, until the retries ran out: the account's
	// quota, not the model, is what failed.
	ErrRateLimited = errors.New("rate limited")
	// ErrReplyCut means the provider ended the reply at a token bound
	// (its own, or LLM_MAX_TOKENS: see [WithMaxTokens]) before the model
	// did: a query or an answer cut short is worse than none. It is not
	// retried: the same prompt runs on as far again.
	ErrReplyCut = errors.New("reply cut at a token bound")
)

// errAttemptTimeout is the cancel cause of an attempt's own deadline, so a
// timeout of the attempt can be told apart from the caller's deadline.
var errAttemptTimeout = errors.New("llm attempt timeout")

// attemptTimeoutError is one attempt that ran past the per-call timeout.
type attemptTimeoutError struct {
	after time.Duration
	err   error
}

func (e *attemptTimeoutError) Error() string {
	return "no answer within " + e.after.String() + ": " + e.err.Error()
}

func (e *attemptTimeoutError) Unwrap() error { return e.err }

// transienter is implemented by errors that know whether a retry may help,
// such as the scripted model's "transient:" errors.
type transienter interface {
	Transient() bool
}

// langchaingo flattens HTTP failures into strings ("API returned unexpected
// status code: 503: ..."; Ollama's "503 Service Unavailable: ..."), so the
// status code has to be read back from the text.
var (
	statusInText = regexp.MustCompile(`status code: (\d{3})`)
	statusPrefix = regexp.MustCompile(`^(\d{3}) [A-Z]`)
)

// transientPhrases are the error texts of failures worth retrying that carry
// no status code, lower-cased.
var transientPhrases = []string{
	"network error: failed to reach api server", // openai, sanitized dial errors
	"request timeout", // openai, sanitized timeouts
	"connection refused",
	"connection reset",
	"broken pipe",
	"too many requests",
	"rate limit",
	"overloaded",
	"service unavailable",
}

// isTransient reports whether another attempt may succeed. Cancellation is
// never transient; 4xx answers other than 429 are not either.
func isTransient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var timeout *attemptTimeoutError
	if errors.As(err, &timeout) {
		return true
	}
	var t transienter
	if errors.As(err, &t) {
		return t.Transient()
	}
	var llmErr *llms.Error
	if errors.As(err, &llmErr) {
		switch llmErr.Code {
		case llms.ErrCodeRateLimit, llms.ErrCodeProviderUnavailable, llms.ErrCodeTimeout:
			return true
		}
	}
	if code, ok := statusCode(err.Error()); ok {
		return code == 429 || code >= 500
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) {
		return true
	}
	msg := strings.ToLower(err.Error())
	for _, phrase := range transientPhrases {
		if strings.Contains(msg, phrase) {
			return true
		}
	}
	return false
}

// statusCode finds an HTTP status code in a provider's error text.
func statusCode(msg string) (int, bool) {
	m := statusInText.FindStringSubmatch(msg)
	if m == nil {
		m = statusPrefix.FindStringSubmatch(msg)
	}
	if m == nil {
		return 0, false
	}
	code, err := strconv.Atoi(m[1])
	return code, err == nil
}
