package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/scheduler"
	"github.com/analyticsbot/analyticsbot/store"
)

// The identities of the thread ownership test: HTTP_TOKEN's ("web") and
// named tokens, each with its secret.
const (
	httpSecret   = "http-token-secret-0123456789"
	anaSecret    = "ana-token-secret-0123456789"
	zedSecret    = "zed-token-secret-0123456789"
	nobodySecret = "nobody-token-secret-0123456789"
)

// threadsAccess gives ana and HTTP_TOKEN's user every table, zed one, and
// nobody no policy at all.
const threadsAccess = `
access:
  channels: [web]
policies:
  - name: full
    users: ["token:ana", web]
    tables: ["analytics.*"]
  - name: narrow
    users: ["token:zed"]
    tables: ["analytics.apps"]
default: none
`

// bearerOf is the header a request of the identity with secret carries.
func bearerOf(secret string) http.Header {
	return http.Header{"Authorization": {"Bearer " + secret}}
}

// pressAs posts a button press as the identity of header and returns the
// response with its body.
func pressAs(t *testing.T, srv *httptest.Server, header http.Header, body map[string]string) (*http.Response, []byte) {
	t.Helper()
	return doJSON(t, srv, http.MethodPost, "/api/actions", body, header)
}

// threadFacts are what a thread holds in the bot's database: what a
// refused request must leave as it was.
type threadFacts struct {
	Turns, Feedback, QueryLogs int
	Schedule                   store.ScheduleState
}

func factsOf(t *testing.T, b *bot.Bot, thread, schedule string) threadFacts {
	t.Helper()
	ctx := context.Background()
	var f threadFacts
	require.NoError(t, b.DB().Pool().QueryRow(ctx, `SELECT (SELECT count(*) FROM conversation_turns WHERE thread_id = $1),
		(SELECT count(*) FROM feedback WHERE thread_id = $1)`, thread).Scan(&f.Turns, &f.Feedback))
	logs, err := b.DB().QueryLogs(ctx, store.QueryLogFilter{ThreadID: thread})
	require.NoError(t, err)
	f.QueryLogs = len(logs)
	sch, err := b.DB().ScheduleByID(ctx, schedule)
	require.NoError(t, err)
	f.Schedule = sch.State
	return f
}

// A web thread is its asker's: another identity (HTTP_TOKEN's, a named
// token of a narrower policy, a token with no policy) that reads,
// continues, presses or rates in it gets the 404 of an unknown thread,
// and nothing is saved or asked of the model; a thread id the client
// chose itself is refused alike. The owner reads and continues it,
// scheduled runs included.
func TestThreadsBelongToTheirAskers(t *testing.T) {
	t.Parallel()
	path := accessFile(t, threadsAccess)
	b := newTestBot(t, "", func(c *bot.Config) {
		c.AccessFile = path
		c.ExampleAdmins = []string{"web", "token:zed", "token:nobody"} // Verify is refused for the thread, not the admin list
	})
	srv := newTestServer(t, b, Config{Token: httpSecret,
		Tokens: map[string]string{anaSecret: "token:ana", zedSecret: "token:zed", nobodySecret: "token:nobody"}})
	ana := bearerOf(anaSecret)

	// Ana asks, schedules the answer, and its first run posts in her thread.
	end := lastMessageEnd(t, chat(t, srv, "", q2018, ana).all(t))
	require.Equal(t, answer.KindAnswer, end.Reply.Kind)
	thread, query := end.ThreadID, end.QueryID
	resp, body := pressAs(t, srv, ana, map[string]string{"thread_id": thread, "action": nodes.ActionSchedulePreset, "value": query + " 0 9 * * 1"})
	require.Equal(t, http.StatusOK, resp.StatusCode, "preset: %s", body)
	var confirm struct {
		Reply *replyView `json:"reply"`
	}
	require.NoError(t, json.Unmarshal(body, &confirm))
	schedule := actionValue(t, confirm.Reply, nodes.ActionScheduleSave)
	resp, body = pressAs(t, srv, ana, map[string]string{"thread_id": thread, "action": nodes.ActionScheduleSave, "value": schedule})
	require.Equal(t, http.StatusOK, resp.StatusCode, "save: %s", body)
	sch, err := b.DB().ScheduleByID(context.Background(), schedule)
	require.NoError(t, err)
	n, err := scheduler.New(b, scheduler.Options{Now: func() time.Time { return sch.NextRunAt.Add(time.Second) }, Only: schedule}).
		Tick(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, n, "the scheduled run")

	// What every refusal answers: the 404 of a thread that does not exist.
	resp, unknown := doJSON(t, srv, http.MethodGet, "/api/threads/"+unissuedThreadID(), nil, ana)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Equal(t, textNoThread, errorBody(t, unknown))

	before := factsOf(t, b, thread, schedule)
	require.Equal(t, threadFacts{Turns: 3, QueryLogs: 2, Schedule: store.ScheduleActive}, before,
		"turns of the question, the preset and the scheduled run (a save keeps none); logs of the first two")
	calls := len(b.Scripted.Calls())
	chatBody := func(text string) map[string]any {
		return map[string]any{"thread_id": thread, "messages": []map[string]string{{"role": "user", "content": text}}}
	}
	press := func(action, value string) map[string]string {
		return map[string]string{"thread_id": thread, "action": action, "value": value}
	}
	requests := []struct {
		name, method, path string
		body               any
	}{
		{"read", http.MethodGet, "/api/threads/" + thread, nil},
		{"continue", http.MethodPost, "/api/chat/stream", chatBody("And in 2017?")},
		{"a note in words", http.MethodPost, "/api/chat/stream", chatBody("feedback: wrong")},
		{"their schedules", http.MethodPost, "/api/chat/stream", chatBody("my schedules")},
		{"Show SQL", http.MethodPost, "/api/actions", press(string(nodes.IntentShowSQL), query)},
		{"Export CSV", http.MethodPost, "/api/actions", press(string(nodes.IntentExportCSV), query)},
		{"Refresh", http.MethodPost, "/api/actions", press(string(nodes.IntentRefresh), query)},
		{"👍", http.MethodPost, "/api/actions", press(bot.ActionFeedbackUp, query)},
		{"👍 as Slack's element", http.MethodPost, "/api/actions", press("feedback", bot.ActionFeedbackUp+":"+query)},
		{"👎", http.MethodPost, "/api/actions", press(bot.ActionFeedbackDown, query)},
		{"a note", http.MethodPost, "/api/actions", map[string]string{"thread_id": thread, "action": actionFeedbackNote, "value": query, "note": "wrong"}},
		{"Verify", http.MethodPost, "/api/actions", press(bot.ActionVerify, query)},
		{"Schedule", http.MethodPost, "/api/actions", press(nodes.ActionSchedule, query)},
		{"a preset", http.MethodPost, "/api/actions", press(nodes.ActionSchedulePreset, query+" 0 9 * * 1")},
		{"Pause", http.MethodPost, "/api/actions", press(nodes.ActionSchedulePause, schedule)},
		{"Delete", http.MethodPost, "/api/actions", press(nodes.ActionScheduleDelete, schedule)},
		{"a bad action", http.MethodPost, "/api/actions", press("drop_table", query)},
	}
	for _, who := range []struct{ name, secret string }{
		{"HTTP_TOKEN", httpSecret}, {"a narrower named token", zedSecret}, {"a token without a policy", nobodySecret},
	} {
		for _, r := range requests {
			resp, got := doJSON(t, srv, r.method, r.path, r.body, bearerOf(who.secret))
			assert.Equal(t, http.StatusNotFound, resp.StatusCode, "%s by %s: %s", r.name, who.name, got)
			assert.Equal(t, string(unknown), string(got), "%s by %s: the body of an unknown thread", r.name, who.name)
		}
	}
	assert.Equal(t, before, factsOf(t, b, thread, schedule), "nothing of the refused requests is saved")
	assert.Len(t, b.Scripted.Calls(), calls, "no model call for a refused request")

	// A thread id the client chose is refused: threads are issued by the server.
	chosen := unissuedThreadID()
	resp, got := doJSON(t, srv, http.MethodPost, "/api/chat/stream",
		map[string]any{"thread_id": chosen, "messages": []map[string]string{{"role": "user", "content": q2018}}}, ana)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Equal(t, string(unknown), string(got), "a chosen id: the body of an unknown thread")
	resp, _ = doJSON(t, srv, http.MethodGet, "/api/threads/"+chosen, nil, ana)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "still unknown afterwards")
	assert.Len(t, b.Scripted.Calls(), calls, "no model call for a chosen id")

	// Ana still reads her thread, the scheduled run in it, and continues it.
	resp, got = doJSON(t, srv, http.MethodGet, "/api/threads/"+thread, nil, ana)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", got)
	var read threadResponse
	require.NoError(t, json.Unmarshal(got, &read))
	require.Len(t, read.Turns, 3)
	assert.Equal(t, q2018, read.Turns[0].User)
	assert.Equal(t, string(nodes.IntentScheduledRun), read.Turns[2].Intent, "the schedule's run is in her thread")
	assert.Contains(t, read.Turns[2].Reply.Text.Plain(), "8,160", "with its result")
	next := lastMessageEnd(t, chat(t, srv, thread, "And in 2017?", ana).all(t))
	assert.Equal(t, thread, next.ThreadID)
	assert.Contains(t, next.Text, said2017, "the follow-up, in her thread")
	resp, got = pressAs(t, srv, ana, press(string(nodes.IntentShowSQL), query))
	assert.Equal(t, http.StatusOK, resp.StatusCode, "her own press: %s", got)
	resp, got = pressAs(t, srv, ana, press(bot.ActionFeedbackUp, query))
	assert.Equal(t, http.StatusOK, resp.StatusCode, "her own 👍: %s", got)
}

// A question without a thread starts one, issued to whoever asked: the
// same identity continues it, another does not, and each identity's new
// threads are its own.
func TestNewThreadsAreTheirAskers(t *testing.T) {
	t.Parallel()
	path := accessFile(t, threadsAccess)
	b := newTestBot(t, "", func(c *bot.Config) { c.AccessFile = path })
	srv := newTestServer(t, b, Config{Token: httpSecret, Tokens: map[string]string{zedSecret: "token:zed"}})

	web := lastMessageEnd(t, chat(t, srv, "", q2018, bearerOf(httpSecret)).all(t))
	zed := lastMessageEnd(t, chat(t, srv, "", q2018, bearerOf(zedSecret)).all(t))
	require.Regexp(t, webThreadPattern, web.ThreadID)
	require.Regexp(t, webThreadPattern, zed.ThreadID)
	assert.NotEqual(t, web.ThreadID, zed.ThreadID, "a thread each")
	for _, c := range []struct {
		thread, secret string
		want           int
	}{
		{web.ThreadID, httpSecret, http.StatusOK}, {zed.ThreadID, zedSecret, http.StatusOK},
		{web.ThreadID, zedSecret, http.StatusNotFound}, {zed.ThreadID, httpSecret, http.StatusNotFound},
	} {
		resp, got := doJSON(t, srv, http.MethodGet, "/api/threads/"+c.thread, nil, bearerOf(c.secret))
		assert.Equal(t, c.want, resp.StatusCode, "%s read with %s: %s", c.thread, c.secret, got)
	}
}

// When the bot's database cannot say whose a thread is, or record a new
// one, the request is refused as unavailable (503) rather than answered:
// no thread is opened to anyone meanwhile.
func TestThreadsWithoutTheDatabase(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{})
	b.Close()
	ask := func(thread string) map[string]any {
		body := map[string]any{"messages": []map[string]string{{"role": "user", "content": q2018}}}
		if thread != "" {
			body["thread_id"] = thread
		}
		return body
	}
	for _, r := range []struct {
		name, method, path string
		body               any
		want               string
	}{
		{"a new thread", http.MethodPost, "/api/chat/stream", ask(""), textThreadDown},
		{"a thread named", http.MethodPost, "/api/chat/stream", ask(unissuedThreadID()), textThreadDown},
		{"reading a thread", http.MethodGet, "/api/threads/" + unissuedThreadID(), nil, "The conversation could not be loaded right now."},
	} {
		resp, body := doJSON(t, srv, r.method, r.path, r.body, nil)
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "%s: %s", r.name, body)
		assert.Contains(t, errorBody(t, body), r.want, r.name)
	}
}

// README: GET /api/threads/{id} gives the thread's last 100 turns, oldest
// first: a long thread reloads its latest turns, not its first.
func TestThreadGivesItsLast100Turns(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{Token: httpSecret})
	end := lastMessageEnd(t, chat(t, srv, "", q2018, bearerOf(httpSecret)).all(t))
	thread := end.ThreadID
	ctx := context.Background()
	for i := range 110 {
		_, err := b.DB().AddTurn(ctx, store.Turn{ThreadID: thread, UserID: "web", ChannelID: "web",
			UserMessage: fmt.Sprintf("question %d", i), BotResponse: fmt.Sprintf("answer %d", i), Intent: "off_topic"})
		require.NoError(t, err)
	}
	resp, body := doJSON(t, srv, http.MethodGet, "/api/threads/"+thread, nil, bearerOf(httpSecret))
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	var got threadResponse
	require.NoError(t, json.Unmarshal(body, &got))
	require.Len(t, got.Turns, 100)
	assert.Equal(t, "question 10", got.Turns[0].User, "the oldest of the last 100")
	assert.Equal(t, "question 109", got.Turns[99].User, "the latest last")
}
