package bot_test

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// loggedTurn writes the turn with logTurn and reads back its only log row.
// Rows the bot itself wrote for the thread go first, so the row read back
// is logTurn's whether or not bot.run logs the turn too.
func loggedTurn(t *testing.T, ctx context.Context, e *testEnv, b *bot.Bot, s *nodes.State, res workflow.Result) store.QueryLog {
	t.Helper()
	_, err := e.admin.Pool().Exec(context.Background(), `DELETE FROM chat_query_logs WHERE thread_id = $1`, s.ThreadTS)
	require.NoError(t, err, "clear the thread's logs")
	bot.LogTurn(b, ctx, s, res)
	logs, err := e.admin.QueryLogs(context.Background(), store.QueryLogFilter{ThreadID: s.ThreadTS})
	require.NoError(t, err, "read the thread's logs")
	require.Len(t, logs, 1, "log rows of thread %s", s.ThreadTS)
	return logs[0]
}

// TestLogTurn answers questions on the demo data and checks the row each
// turn leaves in chat_query_logs against the turn's own state and trace.
func TestLogTurn(t *testing.T) {
	testLogTurn(t, newEnv(t))
}

// testLogTurn is TestLogTurn on a database with the demo data; it can also
// run as a group of TestBot, sharing its database.
func testLogTurn(t *testing.T, e *testEnv) {
	answerOnRetry := []string{
		nodes.NodeRouteIntent, nodes.NodeResolveContext, nodes.NodeGenerateQuery, nodes.NodeValidateQuery,
		nodes.NodeGenerateQuery, nodes.NodeValidateQuery, nodes.NodeExecuteQuery, nodes.NodeInterpret,
		nodes.NodeFormatAnswer, nodes.NodeSaveTurn,
	}
	tests := []struct {
		name      string
		rules     string
		question  string
		wantPath  []string
		intent    nodes.Intent
		errorKind string
		calls     int
		rows      int
		ranSQL    bool // database time > 0
	}{
		{
			name: "answered", question: "How many games were released in 2018?", wantPath: answerPath,
			intent: nodes.IntentAnalytics, calls: 3, rows: 1, ranSQL: true,
		},
		{
			name:  "answered after a retry",
			rules: "  - step: generate_sql\n    times: 1\n    reply: '{\"sql\": \"" + badSQL + "\", \"assumptions\": [], \"explanation\": \"Counts games.\"}'\n",
			// The retried nodes' times are summed per node.
			question: "How many games were released in 2018?", wantPath: answerOnRetry,
			intent: nodes.IntentAnalytics, calls: 4, rows: 1, ranSQL: true,
		},
		{
			name: "off topic", question: "Tell me a joke", intent: nodes.IntentOffTopic, calls: 1,
			wantPath: []string{nodes.NodeRouteIntent, nodes.NodeDecline, nodes.NodeSaveTurn},
		},
		{
			name:     "unsafe sql",
			rules:    "  - step: generate_sql\n    reply: '{\"sql\": \"DELETE FROM analytics.apps\", \"assumptions\": [], \"explanation\": \"x\"}'\n",
			question: "How many games were released in 2018?", intent: nodes.IntentAnalytics, calls: 2,
			errorKind: string(nodes.ErrUnsafeQuery),
			wantPath: []string{nodes.NodeRouteIntent, nodes.NodeResolveContext, nodes.NodeGenerateQuery,
				nodes.NodeValidateQuery, nodes.NodeHandleError, nodes.NodeSaveTurn},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBot(t, e, script(tt.rules))
			thread := bot.NewThreadID()
			s, res := ask(t, b, thread, tt.question)
			require.Equal(t, tt.wantPath, res.Path(), "path of the turn (error %s: %s)", s.ErrorKind, s.ErrorDetail)

			got := loggedTurn(t, context.Background(), e, b, s, res)
			assert.Equal(t, tt.question, got.Question, "question")
			assert.Equal(t, thread, got.ThreadID, "thread")
			assert.Equal(t, "U1", got.UserID, "user")
			assert.Equal(t, "C1", got.ChannelID, "channel")
			assert.Equal(t, string(tt.intent), got.Intent, "intent")
			assert.Equal(t, tt.wantPath, got.Path, "path")
			assert.Equal(t, tt.errorKind, got.ErrorKind, "error kind")
			assert.Equal(t, "postgres", got.Backend, "backend")
			assert.Equal(t, tt.calls, got.ModelCalls, "model calls")
			assert.Equal(t, s.PromptTokens, got.PromptTokens, "prompt tokens")
			assert.Equal(t, s.CompletionTokens, got.CompletionTokens, "completion tokens")
			assert.Positive(t, got.PromptTokens, "prompt tokens")
			assert.Equal(t, tt.rows, got.RowCount, "row count")
			assert.Equal(t, utf8.RuneCountInString(s.ResponseText), got.ResponseChars, "response length")
			assert.Positive(t, got.ResponseChars, "response length")

			assert.Positive(t, got.ModelTime, "model time")
			assert.Equal(t, tt.ranSQL, got.DBTime > 0, "database time %s", got.DBTime)
			assert.GreaterOrEqual(t, got.Total, res.Total.Truncate(time.Microsecond), "total covers the whole run")
			assert.GreaterOrEqual(t, got.Total, got.ModelTime, "total covers the model's time")
			nodeNames := slices.Compact(slices.Sorted(slices.Values(tt.wantPath)))
			var gotNames []string
			for name, d := range got.NodeTime {
				gotNames = append(gotNames, name)
				assert.Equal(t, res.Duration(name).Truncate(time.Microsecond), d, "time of node %s, all attempts", name)
			}
			slices.Sort(gotNames)
			assert.Equal(t, nodeNames, gotNames, "nodes with a time")
		})
	}

	t.Run("canceled", func(t *testing.T) {
		t.Parallel()
		b := newBot(t, e, script())
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s, res, err := b.AskState(ctx, bot.Message{ThreadID: bot.NewThreadID(), UserID: "U1", ChannelID: "C1", Text: "How many games were released in 2018?"})
		require.ErrorIs(t, err, context.Canceled, "ask with a canceled context")

		got := loggedTurn(t, ctx, e, b, s, res)
		assert.Equal(t, "canceled", got.ErrorKind, "a run the caller canceled is logged as such, despite the canceled context")
		assert.Empty(t, got.Path, "path")
	})

	t.Run("insert failure is logged", func(t *testing.T) {
		t.Parallel()
		var buf syncBuffer
		b := bottest.Start(t, testConfig(t, e, script()), slog.New(slog.NewTextHandler(&buf, nil)))
		s, res := ask(t, b, bot.NewThreadID(), "How many games were released in 2018?")
		b.DB().Close()

		bot.LogTurn(b, context.Background(), s, res)
		out := buf.String()
		assert.Contains(t, out, "level=WARN", "log: %s", out)
		assert.Contains(t, out, `msg="record the turn"`, "log: %s", out)
		assert.Contains(t, out, "thread="+s.ThreadTS, "log: %s", out)
		assert.Contains(t, out, "closed pool", "the error is in the log: %s", out)
		// docs/observability.md: the warning's query_log= says what became
		// of the row: kept, to be written once the database is back.
		assert.Contains(t, out, `query_log="pending: the database is away; written when it is back"`, "log: %s", out)
	})

	// docs/workflow.md and observability.md: a failure the user is given a
	// reference for is logged at WARN as "answer failed" with the same
	// reference, the detail with key-like text masked, and where the query
	// log row went; a failure the user can act on alone is logged at INFO.
	t.Run("a failure's log line", func(t *testing.T) {
		t.Parallel()
		var buf syncBuffer
		b := bottest.Start(t, testConfig(t, e, script(`  - step: generate_sql
    error: 'model exploded: api_key=sk-live-abc123 in request https://user:hunter2@llm.example/v1'
`)), slog.New(slog.NewTextHandler(&buf, nil)))
		s, _ := ask(t, b, bot.NewThreadID(), "How many games were released in 2018?")
		require.Regexp(t, `^e-[0-9a-f]{8}$`, s.ErrorRef, "reply: %s", s.ResponseText)
		out := buf.String()
		line := ""
		for l := range strings.Lines(out) {
			if strings.Contains(l, `msg="answer failed"`) {
				line = l
			}
		}
		require.NotEmpty(t, line, "log: %s", out)
		assert.Contains(t, line, "level=WARN")
		assert.Contains(t, line, "kind=model_refused")
		assert.Contains(t, line, "ref="+s.ErrorRef, "the reference the user was given")
		assert.Contains(t, line, "thread="+s.ThreadTS)
		assert.Contains(t, line, "query_log=written")
		assert.Contains(t, line, "model exploded", "what went wrong")
		for _, secret := range []string{"sk-live-abc123", "hunter2"} {
			assert.NotContains(t, out, secret, "keys are masked in the log")
		}

		buf.Reset()
		s, _ = ask(t, b, bot.NewThreadID(), "")
		require.Equal(t, nodes.ErrEmptyMessage, s.ErrorKind)
		out = buf.String()
		assert.Contains(t, out, `level=INFO msg="answer failed" kind=empty_message ref=""`, "no reference, not a warning: %s", out)
	})
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Clone(s.buf.String())
}

func (s *syncBuffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Reset()
}
