package fakeslack

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"
)

// RateLimitNext makes the next n calls of method answer HTTP 429 with a
// Retry-After header of retryAfterSeconds, as Slack's rate limiter does.
func (s *Server) RateLimitNext(method string, n, retryAfterSeconds int) {
	rep := reply{
		status:     http.StatusTooManyRequests,
		retryAfter: retryAfterSeconds,
		err:        "ratelimited",
		body:       map[string]any{"ok": false, "error": "ratelimited"},
	}
	s.inject(method, n, rep)
}

// FailNext makes the next n calls of method answer httpStatus (e.g. 503)
// with an HTML body, as Slack's edge does when the API is down.
func (s *Server) FailNext(method string, n, httpStatus int) {
	s.inject(method, n, edgeFailure(httpStatus))
}

// FailNextMatching is FailNext for the calls of method whose arguments
// match: the next n of them answer httpStatus, and the others go through.
// A test can fail the answer's chat.update and not the progress updates
// before it.
func (s *Server) FailNextMatching(method string, n, httpStatus int, match func(args url.Values) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults[method] = append(s.faults[method], fault{rep: edgeFailure(httpStatus), match: match})
	}
}

// edgeFailure is the HTML page Slack's edge answers httpStatus with.
func edgeFailure(httpStatus int) reply {
	text := http.StatusText(httpStatus)
	return reply{
		status: httpStatus,
		html:   fmt.Sprintf("<html><head><title>%d %s</title></head><body><h1>%s</h1></body></html>\n", httpStatus, text, text),
	}
}

// ErrorNext makes the next n calls of method answer HTTP 200
// {"ok":false,"error":slackError}.
func (s *Server) ErrorNext(method string, n int, slackErr string) {
	s.inject(method, n, slackError(slackErr))
}

// SetError makes every call of method answer {"ok":false,"error":slackError}
// until it is called again with "". Failures injected with the *Next methods
// are used up first.
func (s *Server) SetError(method, slackErr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if slackErr == "" {
		delete(s.stickyErrors, method)
		return
	}
	s.stickyErrors[method] = slackErr
}

// RefuseBlockType makes chat.postMessage and chat.update refuse every
// message carrying a block of type typ with invalid_blocks, as Slack does in
// a workspace where that block is not available. Messages without one go
// through.
func (s *Server) RefuseBlockType(typ string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refusedTypes[typ] = true
}

// refuseBlocks answers invalid_blocks to a post or update carrying a block
// of a type RefuseBlockType refuses. Callers hold s.mu.
func (s *Server) refuseBlocks(method string, args url.Values) (reply, bool) {
	if method != "chat.postMessage" && method != "chat.update" || len(s.refusedTypes) == 0 {
		return reply{}, false
	}
	var blocks []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal([]byte(args.Get("blocks")), &blocks) != nil {
		return reply{}, false // content's checks answer blocks that are not JSON
	}
	for i, b := range blocks {
		if s.refusedTypes[b.Type] {
			return invalid("invalid_blocks", []string{fmt.Sprintf("unsupported type %q [json-pointer:/blocks/%d/type]", b.Type, i)}), true
		}
	}
	return reply{}, false
}

// SetNotInChannel makes posts to channel fail with not_in_channel, as for a
// channel the bot was never invited to.
func (s *Server) SetNotInChannel(channel string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notInChannel[channel] = true
}

// DeleteChannel makes every call naming channel (channel, channel_id)
// answer channel_not_found, as Slack does for a deleted channel, or a
// private one the bot was removed from.
func (s *Server) DeleteChannel(channel string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gone[channel] = true
}

// goneChannel answers channel_not_found to a call naming a channel
// DeleteChannel deleted. Callers hold s.mu.
func (s *Server) goneChannel(args url.Values) (reply, bool) {
	if s.gone[args.Get("channel")] || s.gone[args.Get("channel_id")] {
		return slackError("channel_not_found"), true
	}
	return reply{}, false
}

// SetInChannel undoes SetNotInChannel.
func (s *Server) SetInChannel(channel string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.notInChannel, channel)
}

// inject queues n copies of rep for method. Failures queued by several
// calls are used in the order they were queued.
func (s *Server) inject(method string, n int, rep reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults[method] = append(s.faults[method], fault{rep: rep})
	}
}

// fault is an injected failure: rep answers the next call of its method
// that match lets through (every call, when match is nil).
type fault struct {
	rep   reply
	match func(args url.Values) bool
}

// takeFault uses up the next injected failure of method that applies to a
// call with args, if any. Callers hold s.mu.
func (s *Server) takeFault(method string, args url.Values) (reply, bool) {
	q := s.faults[method]
	for i, f := range q {
		if f.match == nil || f.match(args) {
			s.faults[method] = append(q[:i:i], q[i+1:]...)
			return f.rep, true
		}
	}
	if code, ok := s.stickyErrors[method]; ok {
		return slackError(code), true
	}
	return reply{}, false
}

// HoldUploads makes the uploads to upload URLs that arrive from now on wait,
// read but unanswered, until release is called, their uploader goes or the
// fake closes: a test can act while a file is on its way (kill the process
// uploading it).
func (s *Server) HoldUploads() (release func()) {
	held := make(chan struct{})
	var once sync.Once
	release = func() {
		once.Do(func() {
			s.mu.Lock()
			if s.uploadHold == held {
				s.uploadHold, s.releaseHold = nil, nil
			}
			s.mu.Unlock()
			close(held)
		})
	}
	s.mu.Lock()
	s.uploadHold, s.releaseHold = held, release
	s.mu.Unlock()
	return release
}

// methodHold is a HoldMethod: the calls of one Web API method wait on
// released until it is closed.
type methodHold struct {
	released chan struct{}
	release  func()
	// waiting counts the calls held now.
	waiting int
}

// HoldMethod makes the calls of the Web API method that arrive from now
// on wait, read but unanswered, until release is called, their caller
// gives up (its deadline, say) or the fake closes; a released call is
// answered as usual. A test can then act while a call is under way: see
// that an acknowledgement does not wait on usergroups.users.list. Holding
// and WaitHolding say how many wait.
func (s *Server) HoldMethod(method string) (release func()) {
	h := &methodHold{released: make(chan struct{})}
	var once sync.Once
	h.release = func() {
		once.Do(func() {
			s.mu.Lock()
			if s.holds[method] == h {
				delete(s.holds, method)
			}
			s.mu.Unlock()
			close(h.released)
		})
	}
	s.mu.Lock()
	s.holds[method] = h
	s.mu.Unlock()
	return h.release
}

// Holding returns how many calls of method HoldMethod holds now.
func (s *Server) Holding(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.holds[method]; h != nil {
		return h.waiting
	}
	return 0
}

// WaitHolding waits until HoldMethod holds exactly n calls of method. It
// fails t after WaitTimeout.
func (s *Server) WaitHolding(t testing.TB, method string, n int) {
	t.Helper()
	s.waitFor(t, fmt.Sprintf("%d held %s calls", n, method), func() bool { return s.Holding(method) == n },
		func() string { return fmt.Sprintf("%d held; %s", s.Holding(method), s.callSummary()) })
}

// hold waits while HoldMethod holds method, and reports whether the call
// is still to be answered: false when its caller is gone.
func (s *Server) hold(r *http.Request, method string) bool {
	s.mu.Lock()
	h := s.holds[method]
	if h == nil {
		s.mu.Unlock()
		return true
	}
	h.waiting++
	s.notify()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		h.waiting--
		s.notify()
		s.mu.Unlock()
	}()
	select {
	case <-h.released:
		return true
	case <-r.Context().Done():
		return false
	}
}

// releaseHolds releases every HoldMethod, for Close. Callers do not hold s.mu.
func (s *Server) releaseHolds() {
	s.mu.Lock()
	var releases []func()
	for _, h := range s.holds {
		releases = append(releases, h.release)
	}
	s.mu.Unlock()
	for _, release := range releases {
		release()
	}
}
