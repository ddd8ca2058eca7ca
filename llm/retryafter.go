package llm

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// How a provider's Retry-After is honoured.
const (
	// maxRetryAfter is the longest wait a provider may ask for that the
	// bot waits out; a longer one fails the attempt (Client's own backoff
	// and the turn's deadline take it from there).
	maxRetryAfter = 30 * time.Second
	// retryAfterAttempts is how many times one request is sent again.
	retryAfterAttempts = 3
)

// retryAfter is an http.RoundTripper for the providers' clients that
// honours a rate limit's own wait: a 429 or 503 saying how long to wait
// (Retry-After in seconds or as a date, or OpenAI's retry-after-ms) is sent
// again after that wait, within the request's context. Answers without one
// are returned as they are, for Client's exponential backoff.
type retryAfter struct {
	next http.RoundTripper
	now  func() time.Time
}

// newHTTPClient is the HTTP client every provider is built with.
func newHTTPClient() *http.Client {
	return &http.Client{Transport: retryAfter{next: http.DefaultTransport, now: time.Now}}
}

func (t retryAfter) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		resp, err := t.next.RoundTrip(req)
		if err == nil && resp.StatusCode == http.StatusTooManyRequests {
			markRateLimited(req.Context())
		}
		if err != nil || attempt == retryAfterAttempts ||
			(resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable) {
			return resp, err
		}
		wait, ok := retryAfterWait(resp.Header, t.now())
		if !ok || wait > maxRetryAfter || (req.Body != nil && req.GetBody == nil) {
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		timer := time.NewTimer(wait)
		select {
		case <-req.Context().Done():
			timer.Stop()
			return nil, req.Context().Err()
		case <-timer.C:
		}
		next := req.Clone(req.Context())
		if req.GetBody != nil {
			if next.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
		req = next
	}
}

// retryAfterWait reads how long a rate-limited answer asks to wait.
func retryAfterWait(h http.Header, now time.Time) (time.Duration, bool) {
	if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); err == nil && ms >= 0 {
		return time.Duration(ms * float64(time.Millisecond)), true
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(s, 0)) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}
