package slackapp

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

// Content types of Slack's HTTP deliveries.
const (
	jsonType = "application/json"
	formType = "application/x-www-form-urlencoded"
)

// httpClient posts to the app under test; the timeout keeps a hung
// handler from hanging the test.
var httpClient = &http.Client{Timeout: 10 * time.Second}

// mentionBody is the Events API callback of user mentioning the bot with
// text at ts in channel, as Slack POSTs it to /slack/events.
func mentionBody(channel, ts, text string) []byte {
	return fakeslack.EventCallback("Ev"+strings.ReplaceAll(ts, ".", "")+channel,
		fakeslack.AppMention(channel, user, "<@"+fakeslack.BotUserID+"> "+text, ts, ""))
}

// signed builds a request to the app's path signed with its secret now.
func (h *harness) signed(path, contentType string, body []byte) *http.Request {
	h.t.Helper()
	return fakeslack.SignedRequest(h.t, h.secret, h.url+path, contentType, body, time.Now())
}

// do sends req and returns the response's status and body.
func do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	status, body, err := roundTrip(req)
	require.NoError(t, err, "%s %s", req.Method, req.URL.Path)
	return status, body
}

// roundTrip is do for goroutines, which must not fail the test themselves.
func roundTrip(req *http.Request) (int, string, error) {
	resp, err := httpClient.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", fmt.Errorf("read the response of %s: %w", req.URL.Path, err)
	}
	return resp.StatusCode, string(b), nil
}

func TestHTTPURLVerification(t *testing.T) {
	t.Parallel()
	h := start(t, overHTTP())
	body := []byte(`{"token":"x","challenge":"abc123","type":"url_verification"}`)

	status, got := do(t, h.signed("/slack/events", jsonType, body))
	assert.Equal(t, http.StatusOK, status, "got status %d, want 200", status)
	assert.Equal(t, "abc123", got, "the challenge is echoed as the whole body")
}

func TestHTTPMentionIsAckedThenAnswered(t *testing.T) {
	t.Parallel()
	// Every model call takes 300 ms: an app that answered before it
	// acknowledged would return far later than the ack, with the answer
	// already posted.
	h := start(t, overHTTP(), withScript(slowDemoScript(300*time.Millisecond)))
	ch, ts := channelID("CHTTPMEN"), "1700000101.000100"

	status, _ := do(t, h.signed("/slack/events", jsonType, mentionBody(ch, ts, q2018)))
	require.Equal(t, http.StatusOK, status, "got status %d, want 200", status)
	for _, m := range h.threadMessages(ch, ts) {
		assert.NotContains(t, says(m), answer18, "acknowledged before the work, yet the answer was already posted")
	}

	m := h.answerIn(ch, ts, answer18)
	assert.GreaterOrEqual(t, m.Updates, 1, "the answer replaced the progress message")
	assert.Len(t, h.threadMessages(ch, ts), 1, "one message in the thread")
}

func TestHTTPRefusesUnverifiedRequests(t *testing.T) {
	t.Parallel()
	h := start(t, overHTTP())
	ch := channelID("CHTTPSIG")
	now := time.Now()
	// Each case carries a mention of its own, so any one of them processed
	// would show as a job and a message.
	body := func(i int) []byte { return mentionBody(ch, "1700000102.00010"+strconv.Itoa(i), q2018) }
	tests := []struct {
		name string
		req  func(t *testing.T, body []byte) *http.Request
	}{
		{name: "signed with another secret", req: func(t *testing.T, b []byte) *http.Request {
			return fakeslack.SignedRequest(t, "another-secret", h.url+"/slack/events", jsonType, b, now)
		}},
		{name: "stale timestamp", req: func(t *testing.T, b []byte) *http.Request {
			return fakeslack.SignedRequest(t, h.secret, h.url+"/slack/events", jsonType, b, now.Add(-6*time.Minute))
		}},
		{name: "future timestamp", req: func(t *testing.T, b []byte) *http.Request {
			return fakeslack.SignedRequest(t, h.secret, h.url+"/slack/events", jsonType, b, now.Add(6*time.Minute))
		}},
		{name: "no signature header", req: func(t *testing.T, b []byte) *http.Request {
			r := fakeslack.SignedRequest(t, h.secret, h.url+"/slack/events", jsonType, b, now)
			r.Header.Del("X-Slack-Signature")
			return r
		}},
		{name: "no timestamp header", req: func(t *testing.T, b []byte) *http.Request {
			r := fakeslack.SignedRequest(t, h.secret, h.url+"/slack/events", jsonType, b, now)
			r.Header.Del("X-Slack-Request-Timestamp")
			return r
		}},
		{name: "no headers at all", req: func(t *testing.T, b []byte) *http.Request {
			r, err := http.NewRequest(http.MethodPost, h.url+"/slack/events", bytes.NewReader(b))
			require.NoError(t, err)
			r.Header.Set("Content-Type", jsonType)
			return r
		}},
		{name: "tampered body", req: func(t *testing.T, b []byte) *http.Request {
			other := fakeslack.SignedRequest(t, h.secret, h.url+"/slack/events", jsonType, mentionBody(ch, "1700000102.000999", "hello"), now)
			r := fakeslack.SignedRequest(t, h.secret, h.url+"/slack/events", jsonType, b, now)
			r.Header.Set("X-Slack-Signature", other.Header.Get("X-Slack-Signature"))
			return r
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _ := do(t, tt.req(t, body(i)))
			assert.Equal(t, http.StatusUnauthorized, status, "got status %d, want 401", status)
		})
	}

	// Shutting down waits for every job queued, so a request that slipped
	// through would have finished by now.
	h.shutdown()
	assert.Zero(t, h.jobs.Load(), "got %d jobs, want none: a refused request was processed", h.jobs.Load())
	assert.Empty(t, h.slack.Messages(), "nothing may be posted for refused requests")
}

// A body over 1 MiB is refused (413) before its signature is checked.
func TestHTTPRefusesHugeBodies(t *testing.T) {
	t.Parallel()
	h := start(t, overHTTP())
	body := bytes.Repeat([]byte("x"), 1<<20+1) // docs/slack.md: at most 1 MiB

	status, _ := do(t, h.signed("/slack/events", jsonType, body))
	assert.Equal(t, http.StatusRequestEntityTooLarge, status, "got status %d, want 413", status)
}

// form encodes the fields of a slash command.
func form(fields map[string]string) []byte {
	v := url.Values{}
	for k, s := range fields {
		v.Set(k, s)
	}
	return []byte(v.Encode())
}

func TestHTTPSlashCommand(t *testing.T) {
	t.Parallel()
	h := start(t, overHTTP())
	ch := channelID("CHTTPCMD")

	status, body := do(t, h.signed("/slack/commands", formType, form(h.slack.SlashCommand("/ask", q2018, user, ch))))
	require.Equal(t, http.StatusOK, status, "got status %d, want 200; body %s", status, body)
	assert.Empty(t, body, "a question is acknowledged with nothing shown: the question posted is what the asker reads")

	asked := h.slack.WaitMessage(t, "the question posted in the channel", func(m fakeslack.Message) bool {
		return m.Channel == ch && m.ThreadTS == "" && strings.Contains(m.Text, "asked: "+q2018)
	})
	assert.Contains(t, asked.Text, "<@"+user+">", "the question names who asked")
	h.answerIn(ch, asked.TS, answer18)

	status, help := do(t, h.signed("/slack/commands", formType, form(h.slack.SlashCommand("/ask", "help", user, ch))))
	require.Equal(t, http.StatusOK, status, "got status %d, want 200; body %s", status, help)
	assert.Contains(t, help, `"response_type":"ephemeral"`)
	assert.Contains(t, help, "Try asking", "help lists example questions")
	assert.Contains(t, help, q2018)
}

func TestHTTPShowSQLButton(t *testing.T) {
	t.Parallel()
	h := start(t, overHTTP())
	ch, ts := channelID("CHTTPSQL"), "1700000103.000100"
	status, _ := do(t, h.signed("/slack/events", jsonType, mentionBody(ch, ts, q2018)))
	require.Equal(t, http.StatusOK, status)
	m := h.answerIn(ch, ts, answer18)

	payload := h.slack.BlockAction(user, m.Channel, m.TS, m.ThreadTS, "show_sql", queryID(t, m))
	body := []byte(url.Values{"payload": {string(payload)}}.Encode())
	status, _ = do(t, h.signed("/slack/interactions", formType, body))
	require.Equal(t, http.StatusOK, status, "got status %d, want 200", status)

	got := h.answerIn(ch, ts, "FROM analytics.apps\nWHERE release_year = 2018")
	assert.False(t, got.Ephemeral, "the SQL is posted for the whole thread")
}

func TestHTTPRetriedEventIsAnsweredOnce(t *testing.T) {
	t.Parallel()
	h := start(t, overHTTP())
	ch, ts := channelID("CHTTPRTY"), "1700000104.000100"
	body := mentionBody(ch, ts, q2018)

	for retry := range 3 {
		req := h.signed("/slack/events", jsonType, body)
		if retry > 0 {
			req.Header.Set("X-Slack-Retry-Num", strconv.Itoa(retry))
			req.Header.Set("X-Slack-Retry-Reason", "http_timeout")
		}
		status, _ := do(t, req)
		require.Equal(t, http.StatusOK, status, "delivery %d: got status %d, want 200", retry, status)
	}

	h.answerIn(ch, ts, answer18)
	h.waitJobs(3)
	assert.Len(t, h.threadMessages(ch, ts), 1, "three deliveries of one event, one answer")
}

func TestHTTPTwoProcessesAnswerOnce(t *testing.T) {
	t.Parallel()
	h1 := start(t, overHTTP())
	h2 := start(t, overHTTP(), sharing(h1.slack))
	ch, ts := channelID("CHTTPTWO"), "1700000105.000100"
	body := mentionBody(ch, ts, q2018)

	// Slack delivers to one URL; behind a load balancer the same event may
	// reach both processes at once.
	reqs := []*http.Request{h1.signed("/slack/events", jsonType, body), h2.signed("/slack/events", jsonType, body)}
	type result struct {
		status int
		err    error
	}
	results := make(chan result, len(reqs))
	for _, req := range reqs {
		go func() {
			status, _, err := roundTrip(req)
			results <- result{status, err}
		}()
	}
	for range reqs {
		r := <-results
		require.NoError(t, r.err)
		require.Equal(t, http.StatusOK, r.status, "got status %d, want 200", r.status)
	}

	h1.answerIn(ch, ts, answer18)
	h1.waitJobs(1)
	h2.waitJobs(1)
	assert.Len(t, h1.threadMessages(ch, ts), 1, "two processes, one answer")
	assert.Len(t, h1.slack.Calls("chat.postMessage"), 1, "only one process posted (the progress message the answer replaced)")
}
