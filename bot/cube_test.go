package bot_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// TestCube runs the bot with BACKEND=cube against a real Cube server on the
// demo data: one database and one Cube server for every group, each group
// with its own bots and scripted model, all in parallel.
func TestCube(t *testing.T) {
	t.Parallel()
	ce := newCubeEnv(t)
	groups := []struct {
		name string
		run  func(*testing.T, *cubeEnv)
	}{
		{"SameRowsAsSQL", testCubeSameRowsAsSQL},
		{"Operators", testCubeOperators},
		{"UnknownMember", testCubeUnknownMember},
		{"Unavailable", testCubeUnavailable},
		{"WrongSecret", testCubeWrongSecret},
		{"Actions", testCubeActions},
		{"FollowUp", testCubeFollowUp},
		{"Schedule", testCubeSchedule},
		{"QueryLog", testCubeQueryLog},
		{"PolicyNames", testCubePolicyNames},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			g.run(t, ce)
		})
	}
}

// testCubeSameRowsAsSQL asks questions the model answers with Cube queries
// and wants the rows the equivalent SQL gives on the same database, under
// Cube's simplified column names and with numbers as numbers.
func testCubeSameRowsAsSQL(t *testing.T, ce *cubeEnv) {
	tests := []struct {
		name        string
		question    string
		query       string // the model's Cube query
		wantColumns []string
		sql         string // bigint, float8 and text columns only
	}{
		{
			name:        "games released in 2018 by a release_year filter",
			question:    "How many games were released in 2018?",
			query:       `{"measures": ["Apps.count"], "filters": [{"member": "Apps.release_year", "operator": "equals", "values": ["2018"]}]}`,
			wantColumns: []string{"count"},
			sql:         `SELECT count(*) FROM analytics.apps WHERE release_year = 2018`,
		},
		{
			name:        "free games by the free segment",
			question:    "How many free games are there?",
			query:       `{"measures": ["Apps.count"], "segments": ["Apps.free"]}`,
			wantColumns: []string{"count"},
			sql:         `SELECT count(*) FROM analytics.apps WHERE price = 0`,
		},
		{
			name:     "top 5 publishers by game count",
			question: "Which 5 publishers released the most games?",
			query: `{"measures": ["Apps.count"], "dimensions": ["Publishers.name"],
				"order": {"Apps.count": "desc", "Publishers.name": "asc"}, "limit": 5}`,
			wantColumns: []string{"name", "count"},
			sql: `SELECT p.name, count(*) FROM analytics.publishers p
				JOIN analytics.app_publishers ap USING (publisher_id)
				GROUP BY p.name ORDER BY count(*) DESC, p.name LIMIT 5`,
		},
		{
			name:     "games per release year 2015-2018 by the release_date time dimension",
			question: "How many games were released each year from 2015 to 2018?",
			query: `{"measures": ["Apps.count"], "timeDimensions": [{"dimension": "Apps.release_date",
				"granularity": "year", "dateRange": ["2015-01-01", "2018-12-31"]}], "order": {"Apps.release_date": "asc"}}`,
			wantColumns: []string{"release_date_year", "count"},
			sql: `SELECT to_char(date_trunc('year', release_date), 'YYYY-MM-DD'), count(*) FROM analytics.apps
				WHERE release_date BETWEEN '2015-01-01' AND '2018-12-31' GROUP BY 1 ORDER BY 1`,
		},
		{
			name:     "games per release year 2015-2018 by release_year filters",
			question: "How many games came out per year between 2015 and 2018?",
			query: `{"measures": ["Apps.count"], "dimensions": ["Apps.release_year"], "filters": [
				{"member": "Apps.release_year", "operator": "gte", "values": ["2015"]},
				{"member": "Apps.release_year", "operator": "lte", "values": ["2018"]}],
				"order": [["Apps.release_year", "asc"]]}`,
			wantColumns: []string{"release_year", "count"},
			sql: `SELECT release_year::bigint, count(*) FROM analytics.apps
				WHERE release_year BETWEEN 2015 AND 2018 GROUP BY 1 ORDER BY 1`,
		},
		{
			name:     "average price of paid games by genre",
			question: "What is the average price of paid games in each genre?",
			query: `{"measures": ["Apps.average_price"], "dimensions": ["Genres.name"], "segments": ["Apps.paid"],
				"order": [["Apps.average_price", "desc"], ["Genres.name", "asc"]]}`,
			wantColumns: []string{"name", "average_price"},
			sql: `SELECT g.name, avg(a.price)::float8 FROM analytics.apps a
				JOIN analytics.app_genres ag USING (app_id) JOIN analytics.genres g USING (genre_id)
				WHERE a.price > 0 GROUP BY g.name ORDER BY 2 DESC, 1`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := sqlRows(t, ce.testEnv, tt.sql)
			b := cubeBot(t, ce, script(cubeRule("", 0, tt.query)))
			s, res := ask(t, b, bot.NewThreadID(), tt.question)

			require.Empty(t, s.ErrorKind, "got error %s (%s), want an answer", s.ErrorKind, s.ErrorDetail)
			assert.Equal(t, tt.wantColumns, s.ColumnNames(), "columns")
			assert.Equal(t, want, s.Result.Rows, "rows from Cube (got) vs rows of the SQL (want)")
			assert.Equal(t, answerPath, res.Path(), "path")
			assert.Equal(t, 1, b.Scripted.CallCount(llm.StepGenerateCube), "generate_cube calls")
			assert.Zero(t, b.Scripted.CallCount(llm.StepGenerateSQL), "generate_sql calls")
			assert.True(t, strings.HasPrefix(s.Query.Text, "{"), "got query %q, want the Cube query JSON", s.Query.Text)
		})
	}
}

// testCubeOperators feeds the validator filters with operators written the
// way models write them; each must run as the operator it means.
func testCubeOperators(t *testing.T, ce *cubeEnv) {
	tests := []struct {
		name   string
		filter string
		wantOp string // in the normalised query
		sql    string
	}{
		{
			// Fails today: cube.Normalize splits an operator out of the
			// values only when the operator is missing or equals.
			name:   "symbol in the operator and the value",
			filter: `{"member": "Apps.release_year", "operator": ">=", "values": [">=2018"]}`,
			wantOp: `"operator":"gte","values":[2018]`,
			sql:    `SELECT count(*) FROM analytics.apps WHERE release_year >= 2018`,
		},
		{
			name:   "symbol in the value only",
			filter: `{"member": "Apps.release_year", "values": [">=2018"]}`,
			wantOp: `"operator":"gte","values":[2018]`,
			sql:    `SELECT count(*) FROM analytics.apps WHERE release_year >= 2018`,
		},
		{
			name:   "equals sign",
			filter: `{"member": "Apps.release_year", "operator": "=", "values": ["2018"]}`,
			wantOp: `"operator":"equals","values":[2018]`,
			sql:    `SELECT count(*) FROM analytics.apps WHERE release_year = 2018`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := sqlRows(t, ce.testEnv, tt.sql)
			b := cubeBot(t, ce, script(cubeRule("", 0, `{"measures": ["Apps.count"], "filters": [`+tt.filter+`]}`)))
			s, _ := ask(t, b, bot.NewThreadID(), "How many games were released in 2018 or later?")

			require.Empty(t, s.ErrorKind, "filter %s: got error %s (%s), want an answer", tt.filter, s.ErrorKind, s.ErrorDetail)
			assert.Contains(t, s.Query.Text, tt.wantOp, "normalised query")
			assert.Equal(t, want, s.Result.Rows, "rows from Cube (got) vs rows of the SQL (want)")
			assert.Zero(t, s.RetryCount, "the validator must fix the operator itself, not ask the model again")
		})
	}
}

// unknownMember names a measure the model does not have; Apps.count is the
// one it meant.
const unknownMember = `{"measures": ["Apps.cnt"], "filters": [{"member": "Apps.release_year", "operator": "equals", "values": ["2018"]}]}`

// testCubeUnknownMember has the model name a member Cube does not have: the
// validator's suggestion goes back to the generator, and a model that never
// gets it right ends with a friendly reply.
func testCubeUnknownMember(t *testing.T, ce *cubeEnv) {
	t.Run("fixed on retry", func(t *testing.T) {
		t.Parallel()
		b := cubeBot(t, ce, script(cubeRule("", 1, unknownMember), yearRules))
		s, res := ask(t, b, bot.NewThreadID(), "How many games were released in 2018?")

		require.Empty(t, s.ErrorKind, "got error %s (%s), want an answer", s.ErrorKind, s.ErrorDetail)
		assert.Equal(t, [][]any{{int64(games2018)}}, s.Result.Rows, "rows")
		assert.Equal(t, 1, s.RetryCount, "retries")
		assert.Equal(t, []string{
			nodes.NodeRouteIntent, nodes.NodeResolveContext,
			nodes.NodeGenerateQuery, nodes.NodeValidateQuery, nodes.NodeGenerateQuery, nodes.NodeValidateQuery,
			nodes.NodeExecuteQuery, nodes.NodeInterpret, nodes.NodeFormatAnswer, nodes.NodeSaveTurn,
		}, res.Path(), "path")
		var prompts []string
		for _, c := range b.Scripted.Calls() {
			if c.Step == llm.StepGenerateCube {
				prompts = append(prompts, c.Prompt)
			}
		}
		require.Len(t, prompts, 2, "generate_cube calls")
		assert.NotContains(t, prompts[0], "Your previous attempt failed", "first prompt")
		assert.Contains(t, prompts[1], "Your previous attempt failed", "retry prompt")
		assert.Contains(t, prompts[1], `"Apps.cnt"`, "the retry prompt must quote the previous query")
		assert.Contains(t, prompts[1], "'Apps.cnt' is not a member; did you mean 'Apps.count'?", "the retry prompt must hold the problem")
	})

	t.Run("never fixed", func(t *testing.T) {
		t.Parallel()
		b := cubeBot(t, ce, script(cubeRule("", 0, unknownMember)))
		s, res := ask(t, b, bot.NewThreadID(), "How many games were released in 2018?")

		assert.Equal(t, nodes.ErrInvalidQuery, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
		assert.Contains(t, s.ErrorDetail, "did you mean 'Apps.count'", "error detail")
		assert.Contains(t, s.ResponseText, "I couldn't write a query that works for this question, even after 3 attempts", "reply")
		assert.NotContains(t, s.ResponseText, "Apps.cnt", "the raw problem is for the model, not the user")
		assert.Equal(t, 3, b.Scripted.CallCount(llm.StepGenerateCube), "generate_cube calls")
		assert.Equal(t, nodes.FormatError, s.ResponseFormat, "format")
		assert.NotContains(t, res.Path(), nodes.NodeExecuteQuery, "path")
		assert.Equal(t, []string{nodes.NodeHandleError, nodes.NodeSaveTurn}, res.Path()[len(res.Path())-2:], "path end")
	})
}

// cubeDownReply is what the user reads when Cube cannot be reached.
const cubeDownReply = "I can't reach the semantic layer (Cube) right now"

// testCubeUnavailable puts Cube behind proxies that go down, answer 503 for
// a while, or never answer.
func testCubeUnavailable(t *testing.T, ce *cubeEnv) {
	t.Run("proxy stopped after answering", func(t *testing.T) {
		t.Parallel()
		p := storetest.NewProxy(t, ce.cube.URL)
		b := cubeBot(t, ce, script(yearRules), func(c *bot.Config) { c.Cube.APIURL = p.URL() })
		thread := bot.NewThreadID()
		first, _ := ask(t, b, thread, "How many games were released in 2018?")
		require.Empty(t, first.ErrorKind, "first question through the proxy: %s", first.ErrorDetail)

		p.Stop()
		s, res := ask(t, b, thread, "How many games were released in 2017?")
		assert.Equal(t, nodes.ErrWarehouseDown, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
		assert.Contains(t, s.ResponseText, cubeDownReply, "reply")
		assert.NotContains(t, res.Path(), nodes.NodeInterpret, "path")
		assert.Empty(t, s.Result.Rows, "rows")

		p.Restart(t)
		again, _ := ask(t, b, thread, "How many games were released in 2017?")
		require.Empty(t, again.ErrorKind, "after Cube came back: %s", again.ErrorDetail)
		assert.Equal(t, [][]any{{int64(games2017)}}, again.Result.Rows, "rows after Cube came back")
	})

	t.Run("readiness", func(t *testing.T) {
		t.Parallel()
		up := cubeBot(t, ce, script())
		assert.Empty(t, up.Ready(context.Background()).Down, "Cube answers: the bot is ready")

		p := storetest.NewProxy(t, ce.cube.URL)
		b := cubeBot(t, ce, script(), func(c *bot.Config) { c.Cube.APIURL = p.URL() })
		p.Stop()
		r := b.Ready(context.Background())
		assert.Equal(t, []string{"backend"}, r.Down, "Cube does not answer: the probe names the backend, and only it")
		w := httptest.NewRecorder()
		bot.ServeReady(w, r)
		assert.Equal(t, http.StatusServiceUnavailable, w.Code, "/readyz")
	})

	t.Run("503 twice, then answers", func(t *testing.T) {
		t.Parallel()
		var loads atomic.Int32
		url := startCubeProxy(t, ce.cube.URL, func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) bool {
			if !strings.HasSuffix(r.URL.Path, "/load") || loads.Add(1) > 2 {
				return false
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"error":"busy"}`))
			return true
		})
		b := cubeBot(t, ce, script(yearRules), func(c *bot.Config) { c.Cube.APIURL = url })
		s, _ := ask(t, b, bot.NewThreadID(), "How many games were released in 2018?")

		require.Empty(t, s.ErrorKind, "got error %s (%s), want the answer after the retries", s.ErrorKind, s.ErrorDetail)
		assert.Equal(t, [][]any{{int64(games2018)}}, s.Result.Rows, "rows")
		assert.GreaterOrEqual(t, loads.Load(), int32(3), "/load requests: two refused, then one passed")
	})

	t.Run("load never answers", func(t *testing.T) {
		t.Parallel()
		var held atomic.Int32
		url := startCubeProxy(t, ce.cube.URL, func(_ http.ResponseWriter, r *http.Request, done <-chan struct{}) bool {
			if !strings.HasSuffix(r.URL.Path, "/load") {
				return false
			}
			held.Add(1)
			select {
			case <-r.Context().Done():
			case <-done:
			}
			return true
		})
		const timeout = 2 * time.Second
		b := cubeBot(t, ce, script(yearRules), func(c *bot.Config) { c.Cube.APIURL, c.Cube.Timeout = url, timeout })
		start := time.Now()
		s, _ := ask(t, b, bot.NewThreadID(), "How many games were released in 2018?")
		elapsed := time.Since(start)

		assert.Equal(t, nodes.ErrWarehouseDown, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
		assert.Contains(t, s.ErrorDetail, "no answer within 2s", "error detail")
		assert.Contains(t, s.ResponseText, cubeDownReply, "reply")
		assert.Positive(t, held.Load(), "the proxy must have held a /load request")
		// Generous: CUBE_TIMEOUT bounds the load; the rest is the model script and Postgres.
		assert.Less(t, elapsed, 10*timeout, "the question must end soon after CUBE_TIMEOUT")
	})
}

// testCubeWrongSecret signs tokens with a secret Cube does not know.
func testCubeWrongSecret(t *testing.T, ce *cubeEnv) {
	b := cubeBot(t, ce, script(yearRules), func(c *bot.Config) { c.Cube.APISecret = "not-" + ce.cube.Secret })
	s, res := ask(t, b, bot.NewThreadID(), "How many games were released in 2018?")

	assert.Equal(t, nodes.ErrWarehouseAuth, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
	assert.Contains(t, s.ResponseText, "CUBE_API_SECRET", "the reply must name the setting to fix")
	assert.NotContains(t, s.ResponseText, ce.cube.Secret, "the reply must not show the secret")
	assert.Contains(t, res.Path(), nodes.NodeHandleError, "path")
	assert.Zero(t, b.Scripted.CallCount(llm.StepGenerateCube), "no model call without Cube's meta")
	assert.Equal(t, []string{"backend"}, b.Ready(context.Background()).Down,
		"a Cube that refuses the bot's tokens answers no question: the bot is not ready")
}

// publishersCSV is the export of the top 5 publishers by game count in the
// demo data.
const publishersCSV = "name,count\nBig Fish Games,213\nStrategy First,136\nTHQ Nordic,119\nUbisoft,114\nPlug In Digital,111\n"

// testCubeActions exports the CSV and shows the query of a Cube answer,
// from the cache and after the cache lost the result, without the model.
func testCubeActions(t *testing.T, ce *cubeEnv) {
	const question = "Which publishers released the most games?"
	b := cubeBot(t, ce, script(cubeRule("", 0,
		`{"measures": ["Apps.count"], "dimensions": ["Publishers.name"], "order": {"Apps.count": "desc"}, "limit": 5}`)))
	thread := bot.NewThreadID()
	answer, _ := ask(t, b, thread, question)
	require.Empty(t, answer.ErrorKind, "question: %s", answer.ErrorDetail)
	// The model asked for 5 rows and got them: that is the whole answer, as
	// a LIMIT 5 is in SQL mode, not a result the bot cut.
	assert.False(t, answer.Result.Truncated, "a Cube result with as many rows as the query's own limit is marked truncated (nodes/cube.go cubeResult)")
	assert.NotContains(t, blocksJSON(t, answer), "result limited to", "the reply claims the top 5 were cut")
	calls := len(b.Scripted.Calls())
	actionPath := func(node string) []string { return []string{nodes.NodeRouteIntent, node, nodes.NodeSaveTurn} }

	s, res := press(t, b, thread, string(nodes.IntentExportCSV), answer.QueryID)
	require.Empty(t, s.ErrorKind, "cached export: %s", s.ErrorDetail)
	assert.Equal(t, publishersCSV, string(s.CSVContent), "cached csv")
	assert.Zero(t, s.DBTime, "a cached result must not ask Cube")
	assert.Equal(t, actionPath(nodes.NodeExportCSV), res.Path(), "cached export path")

	b.Cache().Forget()
	_, err := ce.admin.Pool().Exec(context.Background(), "DELETE FROM query_results WHERE thread_id = $1", thread)
	require.NoError(t, err, "clear the cached results")
	s, res = press(t, b, thread, string(nodes.IntentExportCSV), answer.QueryID)
	require.Empty(t, s.ErrorKind, "export after the cache was cleared: %s", s.ErrorDetail)
	assert.Equal(t, publishersCSV, string(s.CSVContent), "csv re-run through Cube")
	assert.Positive(t, s.DBTime, "a cleared cache must re-run the stored query")
	assert.Equal(t, answer.QueryID, s.QueryID, "query id")
	assert.Equal(t, 1, cachedRows(t, ce.testEnv, thread), "the re-run result must be cached again")
	assert.Equal(t, actionPath(nodes.NodeExportCSV), res.Path(), "re-run export path")

	s, res = press(t, b, thread, string(nodes.IntentShowSQL), answer.QueryID)
	require.Empty(t, s.ErrorKind, "show sql: %s", s.ErrorDetail)
	assert.Equal(t, actionPath(nodes.NodeShowSQL), res.Path(), "show sql path")
	shown := blocksJSON(t, s)
	assert.Contains(t, shown, `\"Apps.count\"`, "the reply must show the Cube query")
	assert.Contains(t, shown, `\"Publishers.name\"`, "the reply must show the Cube query")
	assert.Contains(t, shown, "SQL that Cube runs for it", "the reply must show Cube's SQL")
	assert.Contains(t, shown, "analytics.apps", "the reply must show the SQL Cube generated")
	assert.Contains(t, s.ResponseText, question, "the reply must name the question")

	assert.Equal(t, calls, len(b.Scripted.Calls()), "model calls received by the buttons")
}

// testCubeFollowUp asks "And in 2017?" after the 2018 question: the
// follow-up's Cube query builds on the earlier one.
func testCubeFollowUp(t *testing.T, ce *cubeEnv) {
	const rewriteRule = `
  - step: classify
    match: '(?s)\nUser: How many games were released in 2018\?\n.*\nQuestion: And in 2017\?\s*$'
    reply: '{"intent": "follow_up", "confidence": 0.9, "question": "How many games were released in 2017?"}'
`
	b := cubeBot(t, ce, script(rewriteRule, yearRules))
	thread := bot.NewThreadID()
	first, _ := ask(t, b, thread, "How many games were released in 2018?")
	require.Empty(t, first.ErrorKind, "first question: %s", first.ErrorDetail)
	require.Equal(t, [][]any{{int64(games2018)}}, first.Result.Rows, "first rows")
	b.Scripted.Reset()

	s, res := ask(t, b, thread, "And in 2017?")
	require.Empty(t, s.ErrorKind, "got error %s (%s), want an answer", s.ErrorKind, s.ErrorDetail)
	assert.Equal(t, nodes.IntentFollowUp, s.Intent, "intent")
	assert.Equal(t, [][]any{{int64(games2017)}}, s.Result.Rows, "rows")
	assert.Contains(t, s.Query.Text, "2017", "query")
	assert.NotContains(t, s.Query.Text, "2018", "query")
	assert.Equal(t, answerPath, res.Path(), "path")
	var generate []llm.Call
	for _, c := range b.Scripted.Calls() {
		if c.Step == llm.StepGenerateCube {
			generate = append(generate, c)
		}
	}
	require.Len(t, generate, 1, "generate_cube calls")
	assert.Contains(t, generate[0].Prompt, "which used this query:\n"+first.Query.Text, "the prompt must hold the earlier Cube query")
	assert.Equal(t, "*"+strconv.Itoa(games2017)+"* games were released on Steam in 2017.", s.Answer, "answer")
}

// testCubeQueryLog holds that query logs record the backend as cube
// (docs/cube.md): the row an answered turn leaves names it.
func testCubeQueryLog(t *testing.T, ce *cubeEnv) {
	b := cubeBot(t, ce, script(cubeRule("", 0, `{"measures": ["Apps.count"], "filters": [{"member": "Apps.release_year", "operator": "equals", "values": ["2018"]}]}`)))
	s, res := ask(t, b, bot.NewThreadID(), "How many games were released in 2018?")
	require.Empty(t, s.ErrorKind, "got error %s (%s), want an answer", s.ErrorKind, s.ErrorDetail)

	got := loggedTurn(t, context.Background(), ce.testEnv, b, s, res)
	assert.Equal(t, "cube", got.Backend, "backend")
	assert.Equal(t, 1, got.RowCount, "row count")
}
