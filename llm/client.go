package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/analyticsbot/analyticsbot/internal/redact"
)

// Defaults of a [Client]; see the matching options.
const (
	DefaultTimeout = 60 * time.Second
	DefaultRetries = 2
	DefaultBackoff = 500 * time.Millisecond
)

const tracerName = "github.com/analyticsbot/analyticsbot/llm"

// MetadataStep is the llms.WithMetadata key under which [Client.Complete]
// passes the step, so the scripted model can pick its rules.
const MetadataStep = "step"

// Client is what the workflow nodes call: one prompt in, one reply out, with
// a per-call timeout, retries of transient failures and an "llm.call" span.
// It is safe for concurrent use.
type Client struct {
	model       llms.Model
	name        string
	timeout     time.Duration
	retries     int
	backoff     time.Duration
	temperature float64
	maxTokens   int
	tracers     trace.TracerProvider
	// secrets are masked in every error of a call (see [WithSecrets]).
	secrets []string
	// calls, when not nil, holds a place per model call in flight.
	calls chan struct{}
}

// ClientOption configures a [Client].
type ClientOption func(*Client)

// WithTimeout bounds each attempt of a call (default 60s). Non-positive
// values keep the default.
func WithTimeout(d time.Duration) ClientOption {
	return func(c *Client) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// WithRetries sets how many times a transient failure is retried (default
// 2, so at most 3 attempts). Negative values mean 0.
func WithRetries(n int) ClientOption {
	return func(c *Client) { c.retries = max(n, 0) }
}

// WithBackoff sets the first wait between attempts (default 500ms); each
// later wait roughly doubles, with jitter. Non-positive values keep the
// default.
func WithBackoff(initial time.Duration) ClientOption {
	return func(c *Client) {
		if initial > 0 {
			c.backoff = initial
		}
	}
}

// WithConcurrency bounds the model calls in flight at once to n (0 or
// less: no bound); a call beyond it waits for a place, its wait bounded by
// its context only. A provider's rate limit is what a deployment sets it
// by: a burst of turns then queues here instead of hitting 429s.
func WithConcurrency(n int) ClientOption {
	return func(c *Client) {
		c.calls = nil
		if n > 0 {
			c.calls = make(chan struct{}, n)
		}
	}
}

// WithMaxTokens bounds the tokens of each reply; 0, the default, leaves
// the bound to the provider (Anthropic's client then asks for 2,048,
// OpenAI's and Ollama's for none, the model's own), since a bound above
// what a model or a local server's context allows fails every call. A
// reply the provider cut at a bound, its own or this one, fails with
// [ErrReplyCut] instead of passing for a whole one. Negative values mean
// 0.
func WithMaxTokens(n int) ClientOption {
	return func(c *Client) { c.maxTokens = max(n, 0) }
}

// WithModelName sets the name recorded on spans and logs, such as the
// display name [NewModel] returns ("openai:gpt-4o-mini").
func WithModelName(name string) ClientOption {
	return func(c *Client) { c.name = name }
}

// WithTemperature sets the sampling temperature (default 0, so the same
// prompt tends to give the same SQL).
func WithTemperature(t float64) ClientOption {
	return func(c *Client) { c.temperature = t }
}

// WithTracerProvider sets where spans go (default: the global provider at
// call time).
func WithTracerProvider(tp trace.TracerProvider) ClientOption {
	return func(c *Client) { c.tracers = tp }
}

// WithSecrets names the values no error of a call may show, such as
// [Config.Secrets]: the configured key and the base URL's password. A
// provider may repeat the key it refused (LiteLLM's proxy: "Received API
// Key = …"), and a key of no known shape passes the shape masking all
// errors also get; the values are masked before the error reaches the
// span, a log line or the caller.
func WithSecrets(values ...string) ClientOption {
	return func(c *Client) { c.secrets = append(c.secrets, values...) }
}

// NewClient wraps model for the workflow nodes.
func NewClient(model llms.Model, opts ...ClientOption) *Client {
	c := &Client{
		model:   model,
		name:    "unknown",
		timeout: DefaultTimeout,
		retries: DefaultRetries,
		backoff: DefaultBackoff,
	}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// ModelName returns the name set with [WithModelName].
func (c *Client) ModelName() string { return c.name }

// Complete sends prompt as a single human message for step and returns the
// reply text and its token usage. Errors are wrapped with the step
// ("classify: model call: ...") and match [ErrTimeout] or [ErrUnavailable]
// when retries ran out on those kinds of failures; their text has secrets
// masked (see [WithSecrets]), and they do not unwrap to the provider's own. When ctx comes from
// [WithStream], the reply's text is also streamed as it arrives.
func (c *Client) Complete(ctx context.Context, step Step, prompt string) (string, Usage, error) {
	ctx, span := c.tracer().Start(ctx, "llm.call", trace.WithAttributes(
		attribute.String("llm.step", string(step)),
		attribute.String("llm.model", c.name),
	))
	defer span.End()

	attempts := 0
	var lastErr error
	var choice *llms.ContentChoice
	operation := func() error {
		attempts++
		ch, err := c.attempt(ctx, step, prompt)
		if err == nil {
			choice = ch
			return nil
		}
		lastErr = err
		if ctx.Err() != nil || !isTransient(err) {
			return backoff.Permanent(err)
		}
		return err
	}
	notify := func(err error, wait time.Duration) {
		slog.DebugContext(ctx, "llm call failed, retrying",
			"step", step, "model", c.name, "attempt", attempts, "wait", wait, "err", c.masked(err))
	}
	retryErr := backoff.RetryNotify(operation, c.policy(ctx), notify)
	span.SetAttributes(attribute.Int("llm.attempts", attempts))
	if retryErr != nil {
		err := c.masked(c.callError(ctx, step, attempts, lastErr))
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
		return "", Usage{}, err
	}

	usage := usageOf(choice.GenerationInfo, prompt, choice.Content)
	span.SetAttributes(
		attribute.Int("llm.prompt_tokens", usage.PromptTokens),
		attribute.Int("llm.completion_tokens", usage.CompletionTokens),
	)
	return choice.Content, usage, nil
}

// attempt makes one model call under the per-call timeout, once a place
// among the calls in flight is free (the wait is not part of the timeout).
func (c *Client) attempt(ctx context.Context, step Step, prompt string) (*llms.ContentChoice, error) {
	if c.calls != nil {
		start := time.Now()
		select {
		case c.calls <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		defer func() { <-c.calls }()
		trace.SpanFromContext(ctx).SetAttributes(attribute.Int64("llm.queue_ms", time.Since(start).Milliseconds()))
	}
	actx, cancel := context.WithTimeoutCause(ctx, c.timeout, errAttemptTimeout)
	defer cancel()
	// The providers' clients flatten HTTP failures into text: the
	// transport marks the attempt when the provider answered 429.
	actx, limited := withRateLimitMark(actx)
	opts := []llms.CallOption{
		llms.WithTemperature(c.temperature),
		llms.WithMetadata(map[string]any{MetadataStep: string(step)}),
	}
	if c.maxTokens > 0 {
		opts = append(opts, llms.WithMaxTokens(c.maxTokens))
	}
	streaming := false
	if f := streamFrom(ctx); f != nil {
		stream := &attemptStream{f: f, step: step}
		defer stream.close()
		opts = append(opts, llms.WithStreamingFunc(stream.send))
		streaming = true
	}
	resp, err := c.model.GenerateContent(actx,
		[]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, prompt)}, opts...)
	if err == nil && streaming && actx.Err() != nil {
		// langchaingo's OpenAI client ends a stream cut by its context
		// without an error, so the "reply" may be only its first chunks.
		err = fmt.Errorf("stream ended early: %w", context.Cause(actx))
	}
	if err != nil {
		if limited.seen.Load() {
			err = &rateLimitedError{err: err}
		}
		if ctx.Err() == nil && errors.Is(context.Cause(actx), errAttemptTimeout) {
			return nil, &attemptTimeoutError{after: c.timeout, err: err}
		}
		return nil, err
	}
	if resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil {
		return nil, errors.New("empty response from model")
	}
	if choice := resp.Choices[0]; c.cut(choice) {
		if c.maxTokens > 0 {
			return nil, fmt.Errorf("%w (%d tokens)", ErrReplyCut, c.maxTokens)
		}
		return nil, fmt.Errorf("%w (the provider's own bound)", ErrReplyCut)
	}
	return resp.Choices[0], nil
}

// cutReasons are the stop reasons of a reply the provider ended at its
// token bound: OpenAI's (and compatible servers') and Anthropic's.
var cutReasons = map[string]bool{"length": true, "max_tokens": true}

// cut reports whether choice ended at a token bound rather than where
// the model ended it, by the provider's stop reason. A provider that gives
// none (langchaingo's Ollama client) is judged by its count of the reply's
// tokens against the bound set, when one is.
func (c *Client) cut(choice *llms.ContentChoice) bool {
	if choice.StopReason != "" {
		return cutReasons[strings.ToLower(choice.StopReason)]
	}
	return c.maxTokens > 0 && firstCount(choice.GenerationInfo, "CompletionTokens", "OutputTokens") >= c.maxTokens
}

// policy is the retry policy of one call: exponential backoff, at most
// c.retries retries, stopped by ctx.
func (c *Client) policy(ctx context.Context) backoff.BackOff {
	b := backoff.NewExponentialBackOff(
		backoff.WithInitialInterval(c.backoff),
		backoff.WithMaxElapsedTime(0), // the retry count and ctx bound the call
	)
	return backoff.WithContext(backoff.WithMaxRetries(b, uint64(c.retries)), ctx)
}

// callError turns the last failure of a call into the error the node sees.
func (c *Client) callError(ctx context.Context, step Step, attempts int, last error) error {
	var timeout *attemptTimeoutError
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%s: model call: %w", step, ctx.Err())
	case last == nil:
		return fmt.Errorf("%s: model call: no attempt made", step)
	case isTransient(last) && isRateLimited(last):
		return fmt.Errorf("%s: model call: %w after %s: %w", step, ErrRateLimited, plural(attempts, "attempt"), last)
	case errors.As(last, &timeout):
		return fmt.Errorf("%s: model call: %w after %s (%s)", step, ErrTimeout, c.timeout, plural(attempts, "attempt"))
	case isTransient(last):
		return fmt.Errorf("%s: model call: %w after %s: %w", step, ErrUnavailable, plural(attempts, "attempt"), last)
	default:
		return fmt.Errorf("%s: model call: %w", step, last)
	}
}

// maskedError is a call's (or an embedding's) error with its secrets masked. It matches what
// its cause matches (errors.Is: the kinds, cancellation) but neither
// unwraps to the cause nor shows its words, so no caller can print them.
type maskedError struct {
	msg   string
	cause error
}

func (e *maskedError) Error() string { return e.msg }

func (e *maskedError) Is(target error) bool { return errors.Is(e.cause, target) }

// masked is err with the values of [WithSecrets] and key-like text masked.
func (c *Client) masked(err error) error {
	return maskSecrets(err, c.secrets)
}

// maskSecrets is err with secrets and key-like text masked.
func maskSecrets(err error, secrets []string) error {
	return &maskedError{msg: redact.Values(err.Error(), secrets...), cause: err}
}

func (c *Client) tracer() trace.Tracer {
	tp := c.tracers
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return tp.Tracer(tracerName)
}

// usageOf reads the provider's token counts from GenerationInfo (OpenAI and
// Ollama: PromptTokens/CompletionTokens; Anthropic: InputTokens/OutputTokens)
// and estimates any count that is missing or zero.
func usageOf(info map[string]any, prompt, reply string) Usage {
	u := Usage{
		PromptTokens:     firstCount(info, "PromptTokens", "InputTokens"),
		CompletionTokens: firstCount(info, "CompletionTokens", "OutputTokens"),
	}
	if u.PromptTokens <= 0 {
		u.PromptTokens = EstimateTokens(prompt)
	}
	if u.CompletionTokens <= 0 {
		u.CompletionTokens = EstimateTokens(reply)
	}
	return u
}

// firstCount returns the first positive count among keys.
func firstCount(info map[string]any, keys ...string) int {
	for _, k := range keys {
		var n int
		switch v := info[k].(type) {
		case int:
			n = v
		case int32:
			n = int(v)
		case int64:
			n = int(v)
		case float64:
			n = int(math.Round(v))
		}
		if n > 0 {
			return n
		}
	}
	return 0
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
