package cube

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
)

// maxBody caps what is read of one answer. Results are capped at 100 rows,
// so only a huge data model comes near it.
const maxBody = 32 << 20

// continueWait is the error text Cube answers (with HTTP 200) while a query
// is still running; the same request must be sent again.
const continueWait = "Continue wait"

// errCallTimeout is the cancel cause of a call's own deadline, so that
// Config.Timeout running out can be told apart from the caller's deadline.
var errCallTimeout = errors.New("cube call timeout")

// statusError is an HTTP answer that is neither data nor a query error.
type statusError struct {
	code int
	msg  string
}

func (e *statusError) Error() string {
	if e.msg == "" {
		return fmt.Sprintf("HTTP %d", e.code)
	}
	return fmt.Sprintf("HTTP %d: %s", e.code, e.msg)
}

// retryable reports whether the status means Cube or a proxy in front of it
// is briefly unable to answer.
func (e *statusError) retryable() bool {
	return e.code == http.StatusBadGateway || e.code == http.StatusServiceUnavailable ||
		e.code == http.StatusGatewayTimeout
}

// transportError is a request that got no HTTP answer (refused, reset,
// unreadable body); always worth retrying.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// progress counts what one call did, for errors, logs and the span.
type progress struct {
	attempts int   // HTTP requests sent
	polls    int   // "Continue wait" answers
	last     error // the last failed attempt, if any
}

// call sends one logical request to path and decodes the data answer into
// out: transient failures are retried with backoff, "Continue wait" answers
// are polled again after PollInterval, all within Config.Timeout.
func (c *Client) call(ctx context.Context, op, method, path string, body, out any) error {
	ctx, span := c.tracer().Start(ctx, "cube."+op)
	defer span.End()
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
	}
	cctx, cancel := context.WithTimeoutCause(ctx, c.cfg.Timeout, errCallTimeout)
	defer cancel()

	p := &progress{}
	err := c.poll(cctx, op, method, path, payload, out, p)
	span.SetAttributes(attribute.Int("cube.attempts", p.attempts), attribute.Int("cube.polls", p.polls))
	if err != nil {
		err = c.callError(ctx, cctx, p, err)
		traced := errors.New(spanText(err))
		span.RecordError(traced)
		span.SetStatus(codes.Error, traced.Error())
	}
	return err
}

// spanText is what a call's span records of its error. A query Cube
// refused is named by its kind and status only: Cube quotes its
// database's errors as they are (`invalid input syntax for type integer:
// "ann@corp.test"`), and a deployment's queryRewrite may quote anything,
// while the redaction that keeps what the query wrote needs the query and
// the asker, which the caller has (cubewarehouse), not the client. Other
// errors (outages, tokens, limits) quote no data and stay whole.
func spanText(err error) string {
	var qe *QueryError
	var re *RefusedError
	switch {
	case errors.As(err, &re):
		return "cube refused the query with an error of its own (HTTP 500)"
	case errors.As(err, &qe):
		return "cube rejected the query"
	}
	return err.Error()
}

// poll repeats the request while Cube answers "Continue wait".
func (c *Client) poll(ctx context.Context, op, method, path string, payload []byte, out any, p *progress) error {
	for {
		data, err := c.retrying(ctx, op, method, path, payload, p)
		if err != nil {
			return err
		}
		p.last = nil // Cube answered: an earlier failure no longer explains a timeout
		if data != nil {
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber() // keep integers exact and tell them from floats
			if err := dec.Decode(out); err != nil {
				return fmt.Errorf("%w: unreadable answer: %w", ErrUnavailable, err)
			}
			return nil
		}
		p.polls++
		slog.DebugContext(ctx, "cube query still running", "op", op, "polls", p.polls)
		t := time.NewTimer(c.cfg.PollInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// retrying sends the request until it gets an answer that is not a
// transient failure, at most Retries+1 times. A nil body with a nil error
// means "Continue wait".
func (c *Client) retrying(ctx context.Context, op, method, path string, payload []byte, p *progress) ([]byte, error) {
	var data []byte
	operation := func() error {
		p.attempts++
		var err error
		data, err = c.attempt(ctx, method, path, payload)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return backoff.Permanent(err) // the deadline's own error says nothing new
		}
		p.last = err
		var st *statusError
		var te *transportError
		if errors.As(err, &te) || (errors.As(err, &st) && st.retryable()) {
			return err
		}
		return backoff.Permanent(err)
	}
	notify := func(err error, wait time.Duration) {
		slog.DebugContext(ctx, "cube request failed, retrying",
			"op", op, "attempt", p.attempts, "wait", wait, "err", err)
	}
	if err := backoff.RetryNotify(operation, c.policy(ctx), notify); err != nil {
		return nil, err
	}
	return data, nil
}

// policy is the retry policy of one request: exponential backoff between
// BackoffInitial and BackoffMax, at most Retries retries, stopped by ctx.
func (c *Client) policy(ctx context.Context) backoff.BackOff {
	b := backoff.NewExponentialBackOff(
		backoff.WithInitialInterval(c.cfg.BackoffInitial),
		backoff.WithMaxInterval(c.cfg.BackoffMax),
		backoff.WithMaxElapsedTime(0), // Timeout and the retry count bound the call
	)
	return backoff.WithContext(backoff.WithMaxRetries(b, uint64(c.cfg.Retries)), ctx)
}

// attempt sends the request once. It returns the body of a data answer, nil
// for "Continue wait", or an error saying what kind of failure it was.
func (c *Client) attempt(ctx context.Context, method, path string, payload []byte) ([]byte, error) {
	token, err := c.requestToken(ctx)
	if err != nil {
		return nil, err
	}
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Authorization", token) // raw, as every Cube version accepts it
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.httpc.Do(req)
	if err != nil {
		return nil, &transportError{err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, &transportError{err: fmt.Errorf("read answer: %w", err)}
	}
	if len(data) > maxBody {
		return nil, fmt.Errorf("%w: answer larger than %d MiB", ErrUnavailable, maxBody>>20)
	}
	msg, hasErr := errorMessage(data)
	switch {
	case hasErr && msg == continueWait:
		return nil, nil
	case hasErr && strings.TrimPrefix(msg, "Error: ") == queryLimitExceeded:
		// Not Cube failing: the query asks for more rows than it allows.
		return nil, fmt.Errorf("%w (HTTP %d)", ErrQueryLimit, resp.StatusCode)
	case resp.StatusCode == http.StatusBadRequest && databaseDown(msg):
		return nil, fmt.Errorf("%w: Cube could not reach its database: %s", ErrUnavailable, msg)
	case resp.StatusCode == http.StatusBadRequest || (resp.StatusCode/100 == 2 && hasErr):
		if msg == "" {
			msg = snippet(data)
		}
		return nil, &QueryError{Message: msg}
	case resp.StatusCode == http.StatusInternalServerError && hasErr:
		return nil, &RefusedError{Message: msg}
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("%w (HTTP %d: %s)", ErrUnauthorized, resp.StatusCode, msg)
	case resp.StatusCode/100 == 2:
		return data, nil
	}
	if msg == "" {
		msg = snippet(data)
	}
	return nil, &statusError{code: resp.StatusCode, msg: msg}
}

// errorMessage reads the "error" field of an answer: a string in both Cube
// versions, though an object is tolerated. hasErr is false for data answers
// and bodies that are not JSON objects.
func errorMessage(data []byte) (msg string, hasErr bool) {
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &body) != nil || len(body.Error) == 0 || string(body.Error) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(body.Error, &s) == nil {
		return s, true
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body.Error, &obj) == nil && obj.Message != "" {
		return obj.Message, true
	}
	return string(body.Error), true
}

// databaseDownText matches Cube's answer when the database behind it
// cannot be reached: Cube 0.33 sends it as HTTP 400, like an error of the
// query itself ("Error: connect ECONNREFUSED 127.0.0.1:5432"), yet no
// rewrite of the query helps. Node's network errors as its socket writes
// them (the call, the code, the address) and the PostgreSQL driver's words
// for a connection lost or refused; read outside quoted text, so a value a
// query's own error quotes ("invalid input syntax for type integer:
// "ECONNREFUSED"") is not taken for one.
var databaseDownText = regexp.MustCompile(`\b(?:connect|read|write) (?:ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH) \S|` +
	`\bgetaddrinfo (?:ENOTFOUND|EAI_AGAIN) \S|^(?:Error: )?Connection terminated|password authentication failed for user |` +
	`the database system is (?:starting up|shutting down)|sorry, too many clients already`)

// quotedText is a double-quoted part of an error's text.
var quotedText = regexp.MustCompile(`"[^"]*"`)

// databaseDown reports whether msg, Cube's error, says its database
// could not be reached.
func databaseDown(msg string) bool {
	return databaseDownText.MatchString(quotedText.ReplaceAllString(msg, `""`))
}

// snippet is the start of a body that is not Cube's JSON (a proxy's HTML
// page), enough to recognise it in an error.
func snippet(data []byte) string {
	s := oneLine(string(data))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// callError turns the failure of a call into the error its caller sees:
// the caller's own cancellation as is, Timeout running out and exhausted
// retries as ErrUnavailable, query and token errors as they are.
func (c *Client) callError(parent, cctx context.Context, p *progress, err error) error {
	switch {
	case parent.Err() != nil:
		return parent.Err()
	case errors.Is(context.Cause(cctx), errCallTimeout):
		if p.last == nil && p.polls > 0 {
			return fmt.Errorf("%w: the query did not finish within %s (%s)",
				ErrUnavailable, c.cfg.Timeout, plural(p.polls, "poll"))
		}
		if p.last != nil {
			// %v, not %w: the error must not match the deadline or the last
			// failure's kind, only ErrUnavailable.
			return fmt.Errorf("%w: no answer within %s (%s; last error: %v)",
				ErrUnavailable, c.cfg.Timeout, plural(p.attempts, "attempt"), p.last)
		}
		return fmt.Errorf("%w: no answer within %s", ErrUnavailable, c.cfg.Timeout)
	}
	var qe *QueryError
	var re *RefusedError
	if errors.As(err, &qe) || errors.As(err, &re) || errors.Is(err, ErrUnauthorized) || errors.Is(err, ErrUnavailable) || errors.Is(err, ErrQueryLimit) {
		return err
	}
	var st *statusError
	var te *transportError
	if errors.As(err, &st) || errors.As(err, &te) {
		return fmt.Errorf("%w after %s: %w", ErrUnavailable, plural(p.attempts, "attempt"), err)
	}
	return err
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
