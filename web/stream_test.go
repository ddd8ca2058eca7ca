package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// jsonInterpret makes the interpreter answer as the real prompt asks, in
// JSON, so the stream must unwrap it.
const jsonInterpret = `
  - step: interpret
    match: '(?s)First rows \(tab-separated\):\ngames\n(?P<n>\d+)\n.*\nQuestion: How many games were released in (?P<year>\d{4})'
    reply: '{"answer": "*${n}* games were released on Steam in ${year}."}'
`

// answerPath is the path of a question answered at the first attempt.
var answerPath = []string{
	nodes.NodeRouteIntent, nodes.NodeResolveContext, nodes.NodeGenerateQuery, nodes.NodeValidateQuery,
	nodes.NodeExecuteQuery, nodes.NodeInterpret, nodes.NodeFormatAnswer, nodes.NodeSaveTurn,
}

var (
	webThreadPattern = regexp.MustCompile(`^web-[0-9a-f]{32}$`)
	queryIDPattern   = regexp.MustCompile(`^[0-9a-f]{8}$`)
)

// messageEnd is message_end as the page reads it.
type messageEnd struct {
	ThreadID string     `json:"thread_id"`
	QueryID  string     `json:"query_id"`
	Text     string     `json:"text"`
	Reply    *replyView `json:"reply"`
	Timing   struct {
		LLMMS   float64 `json:"llmMs"`
		DBMS    float64 `json:"dbMs"`
		TotalMS float64 `json:"totalMs"`
	} `json:"timing"`
	Debug struct {
		LLMCalls         int      `json:"llmCalls"`
		PromptTokens     int      `json:"promptTokens"`
		CompletionTokens int      `json:"completionTokens"`
		TextDeltaCount   int      `json:"textDeltaCount"`
		TotalChars       int      `json:"totalChars"`
		ErrorKind        string   `json:"errorKind"`
		Nodes            []string `json:"nodes"`
	} `json:"debug"`
}

// lastMessageEnd checks the stream ended with message_end and decodes it.
func lastMessageEnd(t *testing.T, evs []sseEvent) messageEnd {
	t.Helper()
	require.NotEmpty(t, evs, "events")
	last := evs[len(evs)-1]
	require.Equal(t, "message_end", last.Type, "last event; events %v; last %s", types(evs), last.Raw)
	var end messageEnd
	last.decode(t, &end)
	return end
}

// eventNode is the node and outcome of status and node_result events.
type eventNode struct {
	Node    string  `json:"node"`
	Label   string  `json:"label"`
	Outcome string  `json:"outcome"`
	MS      float64 `json:"ms"`
	Rows    *int    `json:"rows"`
}

func TestChatStreamEventsInOrder(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, demoScript(jsonInterpret))
	srv := newTestServer(t, b, Config{})

	evs := chat(t, srv, "", q2018, nil).all(t)

	// The progress of every node, in order, with the text inside interpret.
	var got, want []string
	for _, n := range answerPath {
		want = append(want, "status "+n)
		if n == nodes.NodeInterpret {
			want = append(want, "text_delta")
		}
		want = append(want, "node_result "+n)
	}
	want = append(want, "message_end")
	var text strings.Builder
	deltas := 0
	for _, ev := range evs {
		switch ev.Type {
		case "status", "node_result":
			var n eventNode
			ev.decode(t, &n)
			got = append(got, ev.Type+" "+n.Node)
			if ev.Type == "status" && n.Node == nodes.NodeGenerateQuery {
				assert.Equal(t, "Writing SQL…", n.Label, "generate_query label")
			}
			if ev.Type == "node_result" {
				assert.Equal(t, workflow.OutcomeOK, n.Outcome, "outcome of %s", n.Node)
				assert.GreaterOrEqual(t, n.MS, 0.0, "ms of %s", n.Node)
				if n.Node == nodes.NodeExecuteQuery {
					assert.Positive(t, n.MS, "a query takes time")
					if assert.NotNil(t, n.Rows, "the executor's node_result has the row count") {
						assert.Equal(t, 1, *n.Rows, "rows of the 2018 count")
					}
				} else {
					assert.Nil(t, n.Rows, "only the executor reports rows, not %s", n.Node)
				}
			}
		case "text_delta":
			var d struct {
				Text string `json:"text"`
			}
			ev.decode(t, &d)
			text.WriteString(d.Text)
			deltas++
			if len(got) == 0 || got[len(got)-1] != "text_delta" {
				got = append(got, "text_delta")
			}
		default:
			got = append(got, ev.Type)
		}
	}
	assert.Equal(t, want, got, "event order (text deltas collapsed)")
	assert.GreaterOrEqual(t, deltas, 2, "the answer must arrive in several text_delta events")
	assert.Equal(t, "*8160* games were released on Steam in 2018.", text.String(), "streamed text: the JSON around the answer dropped")

	end := lastMessageEnd(t, evs)
	assert.Regexp(t, webThreadPattern, end.ThreadID, "a new web thread")
	assert.Regexp(t, queryIDPattern, end.QueryID, "query id")
	assert.Contains(t, end.Text, said2018, "fallback text")
	require.NotNil(t, end.Reply, "the reply")
	assert.Equal(t, answer.Text{{Text: said2018, Bold: true}, {Text: " games were released on Steam in 2018."}}, end.Reply.Text,
		"the reply's text, its emphasis as spans")
	assert.Nil(t, end.Reply.Table, "a single number is said, not put in a table")
	assert.Equal(t, end.QueryID, end.Reply.QueryID, "the buttons carry the query id")
	assert.Equal(t, []actionRef{{Action: "export_csv", Label: "Export CSV"}, {Action: "show_sql", Label: "Show SQL"},
		{Action: "explain", Label: "Explain"}, {Action: "schedule", Label: "Schedule"}}, end.Reply.Actions)
	assert.Regexp(t, `^1 row · in \d+(\.\d)? (ms|s)$`, end.Reply.Status, "one line: rows and time")
	assert.Positive(t, end.Timing.TotalMS, "totalMs")
	assert.Positive(t, end.Timing.LLMMS, "llmMs")
	assert.Positive(t, end.Timing.DBMS, "dbMs")
	assert.Equal(t, len(b.Scripted.Calls()), end.Debug.LLMCalls, "llmCalls: every call the model got")
	assert.Positive(t, end.Debug.PromptTokens, "promptTokens")
	assert.Positive(t, end.Debug.CompletionTokens, "completionTokens")
	assert.Equal(t, deltas, end.Debug.TextDeltaCount, "textDeltaCount")
	assert.Equal(t, utf8.RuneCountInString(text.String()), end.Debug.TotalChars, "totalChars")
	assert.Equal(t, answerPath, end.Debug.Nodes, "nodes")
	assert.Empty(t, end.Debug.ErrorKind, "errorKind")
}

func TestChatStreamFollowUpAndThread(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{})

	first := lastMessageEnd(t, chat(t, srv, "", q2018, nil).all(t))
	require.Regexp(t, webThreadPattern, first.ThreadID)
	second := lastMessageEnd(t, chat(t, srv, first.ThreadID, "And in 2017?", nil).all(t))
	assert.Equal(t, first.ThreadID, second.ThreadID, "the follow-up stays in its thread")
	assert.Contains(t, second.Text, said2017, "the follow-up's answer")
	assert.NotEqual(t, first.QueryID, second.QueryID, "a new query")

	resp, data := doJSON(t, srv, http.MethodGet, "/api/threads/"+first.ThreadID, nil, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "GET thread: %s", data)
	var thread struct {
		ThreadID string `json:"thread_id"`
		Turns    []struct {
			User      string     `json:"user"`
			Bot       string     `json:"bot"`
			Intent    string     `json:"intent"`
			SQL       string     `json:"sql"`
			QueryID   string     `json:"query_id"`
			Reply     *replyView `json:"reply"`
			CreatedAt time.Time  `json:"created_at"`
		} `json:"turns"`
	}
	require.NoError(t, json.Unmarshal(data, &thread), "thread body %s", data)
	assert.Equal(t, first.ThreadID, thread.ThreadID, "thread id")
	require.Len(t, thread.Turns, 2, "turns")
	assert.Equal(t, q2018, thread.Turns[0].User, "first question, oldest first")
	assert.Equal(t, "And in 2017?", thread.Turns[1].User, "second question")
	assert.Contains(t, thread.Turns[0].Bot, games2018, "first answer")
	assert.Equal(t, sql2018, thread.Turns[0].SQL, "first SQL")
	assert.Equal(t, first.QueryID, thread.Turns[0].QueryID, "first query id")
	assert.Equal(t, string(nodes.IntentAnalytics), thread.Turns[0].Intent, "first intent")
	assert.Equal(t, first.Reply, thread.Turns[0].Reply, "the reply comes back as it was shown")
	assert.Equal(t, second.Reply, thread.Turns[1].Reply, "the follow-up's reply too")
	assert.False(t, thread.Turns[0].CreatedAt.IsZero(), "created_at")
	assert.False(t, thread.Turns[1].CreatedAt.Before(thread.Turns[0].CreatedAt), "turns oldest first")

	// A thread the server never issued is unknown: the page starts afresh.
	resp, data = doJSON(t, srv, http.MethodGet, "/api/threads/"+unissuedThreadID(), nil, nil)
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "GET unknown thread: %s", data)
	assert.Equal(t, textNoThread, errorBody(t, data))
}

// runEnd is what Config.RunDone reports.
type runEnd struct {
	thread string
	reply  bot.Reply
	err    error
}

// waitRun waits for the next run to end.
func waitRun(t *testing.T, done <-chan runEnd) runEnd {
	t.Helper()
	select {
	case end := <-done:
		return end
	case <-time.After(testTimeout):
		t.Fatal("no run ended within", testTimeout)
		return runEnd{}
	}
}

// slowRule makes SQL for "the slow question" take an hour: only a cancel
// ends it.
const slowRule = `
  - step: generate_sql
    match: '(?im)^Question: .*\bslow question\b'
    reply: '{"sql": "SELECT 1"}'
    delay: 1h
`

func TestChatStreamClientGoneCancelsTheRun(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, demoScript(slowRule))
	done := make(chan runEnd, 1)
	srv := newTestServer(t, b, Config{RunDone: func(thread string, r bot.Reply, err error) {
		done <- runEnd{thread, r, err}
	}})

	s := chat(t, srv, "", "Answer the slow question", nil)
	s.until(t, "status", nodes.NodeGenerateQuery)
	s.close()

	end := waitRun(t, done)
	require.ErrorIs(t, end.err, context.Canceled, "the run stops with the request's context")
	path := end.reply.Path()
	require.NotEmpty(t, path)
	assert.Equal(t, nodes.NodeGenerateQuery, path[len(path)-1], "the run stopped in the slow node; path %v", path)
	assert.NotContains(t, path, nodes.NodeSaveTurn, "nothing ran after the cancel")

}

// A question beyond the bot's bound waits, its stream saying so, and is
// answered once a place frees; one beyond the queue is refused at once
// with 503 and Retry-After.
func TestChatStreamWaitsForAPlace(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, demoScript(slowRule), func(c *bot.Config) { c.MaxTurns, c.TurnQueue, c.TurnWait = 1, 1, time.Hour })
	srv := newTestServer(t, b, Config{})

	slow := chat(t, srv, "", "Answer the slow question", nil)
	slow.until(t, "status", nodes.NodeGenerateQuery)

	waiting := chat(t, srv, "", q2018, nil)
	first, ok := waiting.next(t)
	require.True(t, ok)
	var status statusEvent
	first.decode(t, &status)
	assert.Equal(t, statusEvent{Type: "status", Node: "queue", Label: "Waiting for a free place: many questions are being answered…"}, status,
		"the stream says the question waits")

	resp, data := doJSON(t, srv, http.MethodPost, "/api/chat/stream",
		map[string]any{"messages": []map[string]string{{"role": "user", "content": q2018}}}, nil)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "a third question while one runs and one waits")
	assert.Equal(t, textBusy, errorBody(t, data), "busy message")
	assert.Equal(t, "30", resp.Header.Get("Retry-After"), "Retry-After")

	slow.close() // the place frees
	end := lastMessageEnd(t, waiting.all(t))
	assert.Contains(t, end.Text, said2018, "the waiting question is answered")
	assert.Equal(t, 0, b.Turns().Running(), "every place given back")
}

// A question that waits longer than TURN_WAIT is told the bot is busy.
func TestChatStreamWaitDeadline(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, demoScript(slowRule), func(c *bot.Config) { c.MaxTurns, c.TurnWait = 1, 50*time.Millisecond })
	srv := newTestServer(t, b, Config{})
	slow := chat(t, srv, "", "Answer the slow question", nil)
	slow.until(t, "status", nodes.NodeGenerateQuery)
	defer slow.close()

	evs := chat(t, srv, "", q2018, nil).all(t)
	require.Equal(t, []string{"status", "error"}, types(evs), "waited, then told")
	var e errorEvent
	evs[1].decode(t, &e)
	assert.Equal(t, textBusy, e.Message)
}

// patientRule makes "the patient question" take a moment, so a second
// question of its thread arrives while it is answered.
const patientRule = `
  - step: generate_sql
    match: '(?im)^Question: .*\bpatient question\b'
    reply: '{"sql": "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2017"}'
    delay: 300ms
`

// Two questions of one thread asked at once are answered in the order
// they came, the second saying it waits for the first.
func TestChatStreamKeepsThreadOrder(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, demoScript(patientRule))
	srv := newTestServer(t, b, Config{})
	// A thread the server issued to the web chat's user, so the two can be
	// sent at once.
	started, err := b.StartThread(t.Context(), bot.Message{UserID: webUser, ChannelID: webChannel})
	thread := started.ThreadID
	require.NoError(t, err)

	first := chat(t, srv, thread, "Answer the patient question", nil)
	first.until(t, "status", nodes.NodeGenerateQuery)
	second := chat(t, srv, thread, q2018, nil)
	ev, ok := second.next(t)
	require.True(t, ok)
	var status statusEvent
	ev.decode(t, &status)
	assert.Equal(t, "Waiting for the previous answer in this conversation…", status.Label)
	lastMessageEnd(t, first.all(t))
	assert.Contains(t, lastMessageEnd(t, second.all(t)).Text, said2018)

	resp, data := doJSON(t, srv, http.MethodGet, "/api/threads/"+thread, nil, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "GET thread: %s", data)
	var got struct {
		Turns []struct {
			User string `json:"user"`
		} `json:"turns"`
	}
	require.NoError(t, json.Unmarshal(data, &got))
	require.Len(t, got.Turns, 2)
	assert.Equal(t, "Answer the patient question", got.Turns[0].User, "the first question's turn first")
	assert.Equal(t, q2018, got.Turns[1].User)
}

func TestChatStreamWorkflowFailureIsAnErrorEvent(t *testing.T) {
	t.Parallel()
	// A run that fails as only a defect of the bot would make it (the
	// workflow's step cap, a node's panic: the settings cannot reach them,
	// bot's TestBot/RetriesAtTheBound), after its first steps were shown.
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{ask: func(ctx context.Context, m bot.Message, opts ...bot.AskOption) (bot.Reply, error) {
		r, _ := b.Ask(ctx, m, opts...)
		return r, fmt.Errorf("answer in thread %s: %w", m.ThreadID, workflow.ErrMaxSteps)
	}})

	evs := chat(t, srv, "", "Show me something never valid", nil).all(t)
	require.NotEmpty(t, evs)
	last := evs[len(evs)-1]
	require.Equal(t, "error", last.Type, "last event; events %v", types(evs))
	var e struct {
		Message string `json:"message"`
	}
	last.decode(t, &e)
	assert.Equal(t, textInternal, e.Message, "the error event says it in words, without internals")
	assert.NotContains(t, types(evs), "message_end", "no answer after a failure")
}

func TestChatStreamTooLongQuestion(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{})

	end := lastMessageEnd(t, chat(t, srv, "", strings.Repeat("how many games ", 400), nil).all(t))
	assert.Equal(t, string(nodes.ErrMessageTooLong), end.Debug.ErrorKind, "the bot's own limit applies")
	assert.Contains(t, end.Text, "too long", "the user is told")
	assert.Zero(t, end.Debug.LLMCalls, "no model call for a refused question")

	// A message near the body limit is refused, and its turn keeps only
	// what the bot reads, saying it was cut.
	long := "é" + strings.Repeat("x", 60_003)
	end = lastMessageEnd(t, chat(t, srv, "", long, nil).all(t))
	assert.Contains(t, end.Text, "Your message is too long (60004 characters); I read questions of up to 4000 characters.")
	resp, data := doJSON(t, srv, http.MethodGet, "/api/threads/"+end.ThreadID, nil, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
	var thread threadResponse
	require.NoError(t, json.Unmarshal(data, &thread))
	require.Len(t, thread.Turns, 1)
	assert.Equal(t, long[:4001]+" … [cut: the message had 60004 characters; the first 4000 are kept]", thread.Turns[0].User,
		"the first 4,000 characters, and that it was cut")
	var stored int
	require.NoError(t, b.DB().Pool().QueryRow(t.Context(),
		`SELECT length(user_message) FROM conversation_turns WHERE thread_id = $1`, end.ThreadID).Scan(&stored))
	assert.Less(t, stored, 4100, "what the database keeps")
}
