package bot_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/prompts"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// testOffTopic declines a message that is not about the data for the price
// of the classification alone, and offers questions to ask instead.
func testOffTopic(t *testing.T, e *testEnv) {
	b := newBot(t, e, script())
	s, res := ask(t, b, bot.NewThreadID(), "tell me a joke")

	assert.Equal(t, nodes.IntentOffTopic, s.Intent, "intent")
	assert.Empty(t, s.ErrorKind, "error kind")
	assert.Equal(t, []string{nodes.NodeRouteIntent, nodes.NodeDecline, nodes.NodeSaveTurn}, res.Path(), "path")
	assert.Equal(t, 1, s.LLMCalls, "model calls")
	assert.Equal(t, 1, b.Scripted.CallCount(llm.StepClassify), "classify calls")
	assert.Equal(t, 1, len(b.Scripted.Calls()), "model calls received")
	assert.Contains(t, s.ResponseText, "I can only answer questions about "+b.Config().Domain, "reply")
	shown := blocksJSON(t, s)
	for _, ex := range prompts.DefaultExamples()[:3] {
		assert.Contains(t, shown, ex.Question, "the reply must suggest an example question")
	}
	assert.Empty(t, s.Query.Text, "sql")
}

// badSQL names a column the demo schema does not have, so Postgres rejects
// it when the validator plans it.
const badSQL = "SELECT count(*) AS games FROM analytics.apps WHERE release_yr = 2018"

// testInvalidSQL feeds the validator SQL that Postgres rejects: the retries
// carry the error back to the model, and the user gets a friendly reply
// when they run out.
func testInvalidSQL(t *testing.T, e *testEnv) {
	badRule := `
  - step: generate_sql
    times: %d
    reply: '{"sql": "` + badSQL + `", "assumptions": [], "explanation": "Counts games."}'
`
	tests := []struct {
		name         string
		rules        string
		maxRetries   int // SQL_MAX_RETRIES; 2 when zero here
		wantKind     nodes.ErrorKind
		wantGenerate int
		wantRetries  int
		wantPath     []string
	}{
		{
			name:         "stays invalid",
			rules:        strings.Replace(badRule, "%d", "0", 1),
			wantKind:     nodes.ErrInvalidQuery,
			wantGenerate: 3,
			wantRetries:  2,
			wantPath: []string{
				nodes.NodeRouteIntent, nodes.NodeResolveContext,
				nodes.NodeGenerateQuery, nodes.NodeValidateQuery,
				nodes.NodeGenerateQuery, nodes.NodeValidateQuery,
				nodes.NodeGenerateQuery, nodes.NodeValidateQuery,
				nodes.NodeHandleError, nodes.NodeSaveTurn,
			},
		},
		{
			name:         "retries disabled",
			rules:        strings.Replace(badRule, "%d", "0", 1),
			maxRetries:   -1, // the configuration says SQL_MAX_RETRIES=0
			wantKind:     nodes.ErrInvalidQuery,
			wantGenerate: 1,
			wantPath: []string{
				nodes.NodeRouteIntent, nodes.NodeResolveContext,
				nodes.NodeGenerateQuery, nodes.NodeValidateQuery,
				nodes.NodeHandleError, nodes.NodeSaveTurn,
			},
		},
		{
			name:         "invalid once",
			rules:        strings.Replace(badRule, "%d", "1", 1),
			wantGenerate: 2,
			wantRetries:  1,
			wantPath: []string{
				nodes.NodeRouteIntent, nodes.NodeResolveContext,
				nodes.NodeGenerateQuery, nodes.NodeValidateQuery,
				nodes.NodeGenerateQuery, nodes.NodeValidateQuery,
				nodes.NodeExecuteQuery, nodes.NodeInterpret, nodes.NodeFormatAnswer, nodes.NodeSaveTurn,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBot(t, e, script(tt.rules), func(c *bot.Config) {
				switch {
				case tt.maxRetries < 0:
					c.MaxRetries = 0
				case tt.maxRetries > 0:
					c.MaxRetries = tt.maxRetries
				}
			})
			s, res := ask(t, b, bot.NewThreadID(), "How many games were released in 2018?")

			assert.Equal(t, tt.wantKind, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
			assert.Equal(t, tt.wantPath, res.Path(), "path")
			assert.Equal(t, tt.wantGenerate, b.Scripted.CallCount(llm.StepGenerateSQL), "generate_sql calls")
			assert.Equal(t, tt.wantRetries, s.RetryCount, "retry count")

			var generates []llm.Call
			for _, c := range b.Scripted.Calls() {
				if c.Step == llm.StepGenerateSQL {
					generates = append(generates, c)
				}
			}
			require.Len(t, generates, tt.wantGenerate, "generate_sql calls")
			assert.NotContains(t, generates[0].Prompt, "Your previous attempt failed", "first prompt")
			for i, c := range generates[1:] {
				assert.Contains(t, c.Prompt, "Your previous attempt failed", "retry %d prompt", i+1)
				assert.Contains(t, c.Prompt, "Previous SQL:\n"+badSQL+"\n", "retry %d prompt must quote the SQL", i+1)
				assert.Contains(t, c.Prompt, `Error: column "release_yr" does not exist`, "retry %d prompt must quote Postgres", i+1)
			}

			if tt.wantKind != "" {
				assert.NotContains(t, res.Path(), nodes.NodeExecuteQuery, "invalid SQL must never run")
				want := fmt.Sprintf("I couldn't write a query that works for this question, even after %d attempt", tt.wantGenerate)
				assert.Contains(t, s.ResponseText, want, "reply")
				assert.NotContains(t, s.ResponseText, "release_yr", "the raw error stays out of the reply")
				assert.Empty(t, s.Result.Rows, "rows")
				return
			}
			assert.Equal(t, [][]any{{int64(games2018)}}, s.Result.Rows, "rows")
			assert.Contains(t, s.Answer, strconv.Itoa(games2018), "answer")
			assert.Equal(t, 4, s.LLMCalls, "model calls")
		})
	}
}

// testRetriesAtTheBound asks with as many regenerations as SQL_MAX_RETRIES
// allows (nodes.MostSQLRetries) of a query that plans but fails as it runs.
// The question's longest path fails every attempt but the last, which is
// answered: route and resolve, generate, validate and execute per attempt,
// then interpret, format and save. It fits the workflow's step cap, and one
// more retry would not. When every attempt fails (a step shorter: handle
// the error and save), the asker is still told, in words, that no query
// worked, rather than the run stopping at the cap.
func testRetriesAtTheBound(t *testing.T, e *testEnv) {
	const failsAsItRuns = "SELECT count(*) / (count(*) - count(*)) AS games FROM analytics.apps WHERE release_year = 2018"
	attempts := nodes.MostSQLRetries + 1
	// longest is the steps of the longest path: 2 before the attempts, 3
	// for each, 3 after the last.
	longest := func(attempts int) int { return 2 + 3*attempts + 3 }
	t.Run("the last attempt works", func(t *testing.T) {
		t.Parallel()
		b := newBot(t, e, script(fmt.Sprintf(`
  - step: generate_sql
    times: %d
    reply: '{"sql": "%s", "assumptions": [], "explanation": "Counts games."}'
`, nodes.MostSQLRetries, failsAsItRuns)), func(c *bot.Config) { c.MaxRetries = nodes.MostSQLRetries })
		s, res := ask(t, b, bot.NewThreadID(), "How many games were released in 2018?")

		assert.Empty(t, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
		assert.Contains(t, s.Answer, strconv.Itoa(games2018), "the answer of the last attempt")
		assert.Equal(t, attempts, b.Scripted.CallCount(llm.StepGenerateSQL), "generate_sql calls")
		path := res.Path()
		assert.Equal(t, attempts, countOf(path, nodes.NodeExecuteQuery), "each attempt ran; path %v", path)
		assert.Equal(t, []string{nodes.NodeExecuteQuery, nodes.NodeInterpret, nodes.NodeFormatAnswer, nodes.NodeSaveTurn}, path[len(path)-4:], "path %v", path)
		assert.Len(t, path, longest(attempts), "the longest path's steps; path %v", path)
		assert.LessOrEqual(t, len(path), workflow.DefaultMaxSteps, "within the workflow's step cap")
		assert.Greater(t, longest(attempts+1), workflow.DefaultMaxSteps, "one more retry would not fit the cap: MostSQLRetries is the most")
	})
	t.Run("every attempt fails", func(t *testing.T) {
		t.Parallel()
		b := newBot(t, e, script(`
  - step: generate_sql
    reply: '{"sql": "`+failsAsItRuns+`", "assumptions": [], "explanation": "Counts games."}'
`), func(c *bot.Config) { c.MaxRetries = nodes.MostSQLRetries })
		s, res := ask(t, b, bot.NewThreadID(), "How many games were released in 2018?")

		assert.Equal(t, nodes.ErrInvalidQuery, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
		assert.Equal(t, attempts, b.Scripted.CallCount(llm.StepGenerateSQL), "generate_sql calls")
		path := res.Path()
		assert.Equal(t, attempts, countOf(path, nodes.NodeExecuteQuery), "each attempt ran; path %v", path)
		assert.Equal(t, []string{nodes.NodeHandleError, nodes.NodeSaveTurn}, path[len(path)-2:], "path %v", path)
		assert.Len(t, path, longest(attempts)-1, "a step shorter than the longest path; path %v", path)
		assert.Contains(t, s.ResponseText, fmt.Sprintf("I couldn't write a query that works for this question, even after %d attempts", attempts), "reply")
		assert.NotContains(t, s.ResponseText, "division by zero", "the raw error stays out of the reply")
	})
}

// countOf counts name in path.
func countOf(path []string, name string) int {
	n := 0
	for _, p := range path {
		if p == name {
			n++
		}
	}
	return n
}

// testUnsafeSQL refuses SQL that writes at once: no retry could make it
// acceptable.
func testUnsafeSQL(t *testing.T, e *testEnv) {
	tests := []struct {
		name string
		sql  string
	}{
		{name: "delete", sql: "DELETE FROM analytics.apps WHERE release_year = 2018"},
		{name: "stacked drop", sql: "SELECT 1; DROP TABLE analytics.apps"},
		{name: "writing cte", sql: "WITH gone AS (DELETE FROM analytics.apps RETURNING app_id) SELECT count(*) FROM gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBot(t, e, script(`
  - step: generate_sql
    reply: '{"sql": "`+tt.sql+`", "assumptions": [], "explanation": "Cleans up."}'
`))
			s, res := ask(t, b, bot.NewThreadID(), "How many games were released in 2018?")

			assert.Equal(t, nodes.ErrUnsafeQuery, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
			assert.Equal(t, 1, b.Scripted.CallCount(llm.StepGenerateSQL), "generate_sql calls")
			assert.Equal(t, []string{
				nodes.NodeRouteIntent, nodes.NodeResolveContext, nodes.NodeGenerateQuery, nodes.NodeValidateQuery,
				nodes.NodeHandleError, nodes.NodeSaveTurn,
			}, res.Path(), "path")
			assert.Contains(t, s.ResponseText, "I can only read data, never change it", "reply")

			var n int
			err := e.admin.Pool().QueryRow(context.Background(),
				"SELECT count(*) FROM analytics.apps WHERE release_year = 2018").Scan(&n)
			require.NoError(t, err, "count apps")
			assert.Equal(t, games2018, n, "the data must be untouched")
		})
	}
}

// testBadMessages sends messages no question can be read from, and
// messages with bytes Slack should never send.
func testBadMessages(t *testing.T, e *testEnv) {
	const declineGarbage = `
  - step: classify
    match: '(?m)^Question: \x{FFFD}+\s*$'
    reply: '{"intent": "off_topic", "confidence": 0.6}'
`
	tests := []struct {
		name       string
		text       string
		wantKind   nodes.ErrorKind
		wantReply  string
		wantCalls  int
		wantIntent nodes.Intent
		wantTurns  int
	}{
		{name: "empty", text: "", wantKind: nodes.ErrEmptyMessage, wantReply: "Ask me a question about"},
		{name: "white space", text: " \n\t  \r\n", wantKind: nodes.ErrEmptyMessage, wantReply: "Ask me a question about"},
		{name: "NUL", text: "\x00", wantKind: nodes.ErrEmptyMessage, wantReply: "Ask me a question about"},
		{name: "zero-width space", text: "\u200b", wantKind: nodes.ErrEmptyMessage, wantReply: "Ask me a question about"},
		{name: "byte order mark and bidi mark", text: "\ufeff \u200f", wantKind: nodes.ErrEmptyMessage, wantReply: "Ask me a question about"},
		{name: "an escape sequence", text: "\x1b[2J", wantKind: nodes.ErrEmptyMessage, wantReply: "Ask me a question about"},
		{
			name: "10 kB", text: strings.Repeat("How many games? ", 640),
			wantKind: nodes.ErrMessageTooLong, wantReply: "Your message is too long", wantTurns: 1,
		},
		{
			name: "question with invalid bytes", text: "How many games were released in 2018?\xff\xfe",
			wantReply: "8,160", wantCalls: 3, wantIntent: nodes.IntentAnalytics, wantTurns: 1,
		},
		{
			name: "only invalid bytes", text: "\xff\xfe\x80",
			wantReply: "I can only answer questions about", wantCalls: 1, wantIntent: nodes.IntentOffTopic, wantTurns: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBot(t, e, script(declineGarbage))
			thread := bot.NewThreadID()
			s, _ := ask(t, b, thread, tt.text)

			assert.Equal(t, tt.wantKind, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
			assert.Contains(t, s.ResponseText, tt.wantReply, "reply")
			assert.Equal(t, tt.wantCalls, s.LLMCalls, "model calls")
			assert.Equal(t, tt.wantCalls, len(b.Scripted.Calls()), "model calls received")
			if tt.wantIntent != "" {
				assert.Equal(t, tt.wantIntent, s.Intent, "intent")
			}
			assert.True(t, utf8.ValidString(s.ResponseText), "reply %q must be valid UTF-8", s.ResponseText)
			for _, c := range b.Scripted.Calls() {
				assert.True(t, utf8.ValidString(c.Prompt), "the %s prompt must be valid UTF-8", c.Step)
			}
			turns := recentTurns(t, e, thread)
			require.Len(t, turns, tt.wantTurns, "saved turns")
			for _, turn := range turns {
				assert.True(t, utf8.ValidString(turn.UserMessage), "saved message %q must be valid UTF-8", turn.UserMessage)
				assert.True(t, utf8.ValidString(turn.BotResponse), "saved reply %q must be valid UTF-8", turn.BotResponse)
			}
		})
	}
}

// testModelFailures runs the workflow against a model that is slow, down or
// answers nonsense.
func testModelFailures(t *testing.T, e *testEnv) {
	fastFail := func(c *bot.Config) { c.LLMTimeout, c.LLMRetries = 50*time.Millisecond, 0 }
	tests := []struct {
		name      string
		rules     string
		adjust    func(*bot.Config)
		wantKind  nodes.ErrorKind
		wantReply string
		wantNote  string
		check     func(t *testing.T, b *bot.Bot, s *nodes.State)
	}{
		{
			name: "model times out",
			rules: `
  - step: classify
    delay: 5s
    reply: '{"intent": "analytics_query", "confidence": 0.9}'
`,
			adjust: fastFail, wantKind: nodes.ErrModelTimeout,
			wantReply: "The language model took too long to answer",
		},
		{
			name: "model unavailable",
			rules: `
  - step: classify
    error: 'transient: upstream busy'
`,
			adjust: fastFail, wantKind: nodes.ErrModelUnavailable,
			wantReply: "The language model isn't reachable right now",
		},
		{
			name: "model rate limited",
			rules: `
  - step: classify
    error: 'transient: 429 Too Many Requests'
`,
			adjust: fastFail, wantKind: nodes.ErrModelRateLimited,
			wantReply: "The language model's provider is turning my requests away right now",
			check: func(t *testing.T, _ *bot.Bot, s *nodes.State) {
				assert.NotContains(t, s.ResponseText, "took too long", "a rate limit is not a slow model")
			},
		},
		{
			name: "model error quoting a key",
			rules: `
  - step: generate_sql
    error: 'model exploded: api_key=sk-live-abc123 in request https://user:hunter2@llm.example/v1'
`,
			wantKind: nodes.ErrModelRefused, wantReply: "The language model could not answer this one",
			check: func(t *testing.T, b *bot.Bot, s *nodes.State) {
				shown := s.ResponseText + blocksJSON(t, s)
				for _, secret := range []string{"sk-live", "api_key", "hunter2", "exploded"} {
					assert.NotContains(t, shown, secret, "the model's error stays in the log")
				}
				require.Regexp(t, `^e-[0-9a-f]{8}$`, s.ErrorRef)
				assert.Contains(t, shown, "(Reference "+s.ErrorRef+".)", "the user gets a reference to quote")
				logs, err := b.DB().QueryLogs(context.Background(), store.QueryLogFilter{ErrorRef: s.ErrorRef})
				require.NoError(t, err)
				require.Len(t, logs, 1, "the reference finds the turn's log")
				assert.Equal(t, string(nodes.ErrModelRefused), logs[0].ErrorKind)
				assert.Contains(t, logs[0].ErrorDetail, "model exploded", "the operator sees what went wrong")
				for _, secret := range []string{"sk-live-abc123", "hunter2"} {
					assert.NotContains(t, logs[0].ErrorDetail, secret, "keys are masked in the stored detail")
				}
			},
		},
		{
			name: "classifier answers garbage",
			rules: `
  - step: classify
    reply: 'lol'
`,
			wantReply: "8,160", wantNote: "classifier reply unusable",
			check: func(t *testing.T, b *bot.Bot, s *nodes.State) {
				assert.Equal(t, nodes.IntentAnalytics, s.Intent, "intent")
				assert.Equal(t, "fallback", s.IntentSource, "intent source")
				assert.Equal(t, [][]any{{int64(games2018)}}, s.Result.Rows, "rows")
			},
		},
		{
			name: "generator answers prose",
			rules: `
  - step: generate_sql
    reply: 'I would count the games that came out that year.'
`,
			wantKind: nodes.ErrInvalidQuery, wantReply: "I couldn't write a query",
			wantNote: "generator reply held no query",
			check: func(t *testing.T, b *bot.Bot, s *nodes.State) {
				assert.Equal(t, 3, b.Scripted.CallCount(llm.StepGenerateSQL), "generate_sql calls")
				last := b.Scripted.Calls()[len(b.Scripted.Calls())-1]
				assert.Contains(t, last.Prompt, "(none: the reply held no SQL statement)", "retry prompt")
			},
		},
		{
			name: "interpreter invents a number",
			rules: `
  - step: interpret
    reply: '{"answer": "About *9000* games were released in 2018."}'
`,
			wantReply: "Games: 8,160.", wantNote: "quoted numbers not in the result",
			check: func(t *testing.T, b *bot.Bot, s *nodes.State) {
				assert.Equal(t, "Games: *8,160*.", s.Answer, "the plain summary, in words")
				assert.NotContains(t, s.ResponseText+blocksJSON(t, s), "9000", "the invented number must not reach the user")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var adjust []func(*bot.Config)
			if tt.adjust != nil {
				adjust = append(adjust, tt.adjust)
			}
			b := newBot(t, e, script(tt.rules), adjust...)
			s, _ := ask(t, b, bot.NewThreadID(), "How many games were released in 2018?")

			assert.Equal(t, tt.wantKind, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
			assert.Contains(t, s.ResponseText, tt.wantReply, "reply")
			if tt.wantNote != "" {
				assert.Contains(t, strings.Join(s.Notes, "\n"), tt.wantNote, "notes")
			}
			if tt.check != nil {
				tt.check(t, b, s)
			}
		})
	}
}

// testMissingGrant asks for a column the reader role has no grant on (the
// table has column grants: the catalog shows the others, and the guard
// checks tables): a setup problem, so no retry and no model call wasted;
// the user reads a clear sentence with a reference, the operator the GRANT
// to run.
func testMissingGrant(t *testing.T, e *testEnv) {
	ctx := context.Background()
	// Subtests running at once grant on the same table: in turn.
	storetest.SetupRoles(t, e.admin, `CREATE TABLE IF NOT EXISTS analytics.ledger_cols (id int, amount int, payee text);
		REVOKE ALL ON analytics.ledger_cols FROM analyticsbot_reader, PUBLIC;
		GRANT SELECT (id, amount) ON analytics.ledger_cols TO analyticsbot_reader`)
	b := newBot(t, e, script(`
  - step: generate_sql
    match: '(?im)^Question: .*ledger'
    reply: '{"sql": "SELECT payee, sum(amount) AS total FROM analytics.ledger_cols GROUP BY payee", "assumptions": [], "explanation": "Sums the ledger by payee."}'
`))
	s, res := ask(t, b, bot.NewThreadID(), "What is the ledger total by payee?")

	assert.Equal(t, nodes.ErrWarehouseDenied, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
	assert.Equal(t, 1, b.Scripted.CallCount(llm.StepGenerateSQL), "no retry: a rewrite cannot grant a privilege")
	assert.Zero(t, s.RetryCount, "retries")
	assert.Contains(t, res.Path(), nodes.NodeHandleError, "path")
	shown := s.ResponseText + blocksJSON(t, s)
	assert.Contains(t, s.ResponseText, "would not let me read something this question needs", "reply")
	require.Regexp(t, `^e-[0-9a-f]{8}$`, s.ErrorRef)
	assert.Contains(t, s.ResponseText, "(Reference "+s.ErrorRef+".)", "reply")
	for _, raw := range []string{"permission denied", "ledger_cols", "GRANT", "for example:"} {
		assert.NotContains(t, shown, raw, "what the user sees")
	}
	logs, err := b.DB().QueryLogs(ctx, store.QueryLogFilter{ErrorRef: s.ErrorRef})
	require.NoError(t, err)
	require.Len(t, logs, 1)
	assert.Equal(t, string(nodes.ErrWarehouseDenied), logs[0].ErrorKind)
	assert.Contains(t, logs[0].ErrorDetail, `permission denied for table ledger_cols`, "the operator reads the cause")
	assert.Contains(t, logs[0].ErrorDetail, `GRANT SELECT ON "analytics"."ledger_cols" TO "analyticsbot_reader";`,
		"and the GRANT that allows it")
}
