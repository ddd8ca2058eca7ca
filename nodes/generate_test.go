package nodes

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

const sqlReply2018 = `{"sql":"SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018;",` +
	`"assumptions":["released means the store release date", "  "],"explanation":" Counts 2018 releases. "}`

func TestGenerateSQLPrompt(t *testing.T) {
	t.Parallel()
	earlier := "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018"
	referenced := "SELECT name FROM analytics.apps WHERE release_year = 2018 ORDER BY positive_ratings DESC LIMIT 5"
	followUpHistory := []store.Turn{
		{UserMessage: "top 5 games of 2018", Query: pgQuery(referenced), QueryID: pgID(referenced)},
		{UserMessage: "tell me a joke"}, // no Query: pgQuery(skipped)
		{UserMessage: "How many games were released in 2018?", Query: pgQuery(earlier), QueryID: pgID(earlier)},
		{UserMessage: "export that", Intent: string(IntentExportCSV)},
	}
	// Every prompt carries the live schema, with the catalog's COMMENT
	// texts, the few-shot examples and today's date.
	always := []string{
		"answers a question about Steam games",
		"Today's date is 2019-06-15.",
		"Return at most 1000 rows",
		`Schema "analytics":`,
		"TABLE analytics.apps -- One row per game on the Steam store (27,075 rows).",
		"  release_year integer -- Calendar year of release_date (1997 to 2019",
		"TABLE analytics.app_genres",
		"Q: How many games are free to play?",
		`A: {"sql":"SELECT count(*) AS free_games FROM analytics.apps WHERE is_free"`,
		"Q: Which 5 publishers released the most games in 2017?",
	}
	tests := []struct {
		name        string
		state       State
		wantInclude []string
		wantExclude []string
		wantRetries int
	}{
		{
			name:        "first attempt",
			state:       State{UserQuery: "How many games were released in 2018?", Intent: IntentAnalytics},
			wantInclude: []string{"\nQuestion: How many games were released in 2018?"},
			wantExclude: []string{"Your previous attempt failed", "follows up on an earlier answer"},
		},
		{
			name: "resolved question is asked",
			state: State{UserQuery: "and in 2017?", ResolvedQuery: "How many games were released in 2017?",
				Intent: IntentAnalytics},
			wantInclude: []string{"\nQuestion: How many games were released in 2017?"},
		},
		{
			name: "retry carries the previous SQL and error",
			state: State{UserQuery: "How many games were released in 2018?", Intent: IntentAnalytics,
				Query: pgQuery("SELECT count(*) FROM analytics.apps WHERE relase_year = 2018"), Valid: true,
				ErrorKind: ErrInvalidQuery, ErrorDetail: `column "relase_year" does not exist (hint: Perhaps you meant to reference the column "apps.release_year".)`},
			wantInclude: []string{
				"Your previous attempt failed. Fix it.",
				"Previous SQL:\nSELECT count(*) FROM analytics.apps WHERE relase_year = 2018\n",
				`Error: column "relase_year" does not exist (hint: Perhaps you meant to reference the column "apps.release_year".)`,
			},
			wantRetries: 1,
		},
		{
			name: "retry after a reply without SQL",
			state: State{UserQuery: "How many games were released in 2018?", Intent: IntentAnalytics, RetryCount: 1,
				ErrorKind: ErrInvalidQuery, ErrorDetail: "the reply held no SQL statement; reply with JSON holding the sql field"},
			wantInclude: []string{"Previous SQL:\n(none: the reply held no SQL statement)", "Error: the reply held no SQL statement"},
			wantRetries: 2,
		},
		{
			name:        "follow-up builds on the latest SQL",
			state:       State{UserQuery: "and in 2017?", Intent: IntentFollowUp, History: followUpHistory},
			wantInclude: []string{"follows up on an earlier answer in this conversation, which used this SQL:\n" + earlier + "\n"},
			wantExclude: []string{referenced},
		},
		{
			name: "follow-up builds on the referenced SQL",
			state: State{UserQuery: "and in 2017?", Intent: IntentFollowUp, History: followUpHistory,
				ReferencedQueryID: pgID(referenced)},
			wantInclude: []string{"which used this SQL:\n" + referenced + "\n"},
		},
		{
			name:        "a new question ignores earlier SQL",
			state:       State{UserQuery: "How many games are free?", Intent: IntentAnalytics, History: followUpHistory},
			wantExclude: []string{"follows up on an earlier answer", earlier},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, model := newNodes(t, []llm.Rule{reply(llm.StepGenerateSQL, sqlReply2018)})
			s := tt.state
			require.NoError(t, n.GenerateQuery(context.Background(), &s))

			prompt := onlyPrompt(t, model)
			for _, want := range append(always, tt.wantInclude...) {
				assert.Contains(t, prompt, want, "generate_sql prompt")
			}
			for _, unwanted := range tt.wantExclude {
				assert.NotContains(t, prompt, unwanted, "generate_sql prompt")
			}
			assert.Empty(t, s.ErrorKind, "error kind (detail %q)", s.ErrorDetail)
			assert.Empty(t, s.ErrorDetail, "error detail")
			assert.Equal(t, tt.wantRetries, s.RetryCount, "retry count")
			assert.False(t, s.Valid, "got Valid from an earlier attempt, want it reset")
			assert.Equal(t, "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018", s.Query.Text, "SQL")
			assert.Equal(t, []string{"released means the store release date"}, s.Assumptions, "assumptions")
			assert.Equal(t, "Counts 2018 releases.", s.Explanation, "explanation")
			assert.Equal(t, 1, s.LLMCalls, "LLM calls on the state")
			assert.Positive(t, s.PromptTokens, "prompt tokens")
		})
	}
}

func TestGenerateSQLReplies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		reply           string
		wantSQL         string
		wantAssumptions []string
		wantExplanation string
		wantNote        bool
	}{
		{
			name:            "json",
			reply:           `{"sql":"SELECT name FROM analytics.genres ORDER BY name","assumptions":["all genres"],"explanation":"Lists genres."}`,
			wantSQL:         "SELECT name FROM analytics.genres ORDER BY name",
			wantAssumptions: []string{"all genres"},
			wantExplanation: "Lists genres.",
		},
		{
			name:    "fenced",
			reply:   "Here it is:\n```sql\nSELECT name\nFROM analytics.genres;\n```\n",
			wantSQL: "SELECT name\nFROM analytics.genres",
		},
		{
			name:    "bare",
			reply:   "SELECT count(*) FROM analytics.tags;;",
			wantSQL: "SELECT count(*) FROM analytics.tags",
		},
		{
			name:     "no SQL at all",
			reply:    "I am not sure how to answer that.",
			wantSQL:  "",
			wantNote: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, _ := newNodes(t, []llm.Rule{reply(llm.StepGenerateSQL, tt.reply)})
			// Leftovers of an earlier attempt must not survive a new reply.
			s := State{UserQuery: "list the genres", Intent: IntentAnalytics,
				Query: pgQuery("SELECT 1"), Assumptions: []string{"stale"}, Explanation: "stale"}
			require.NoError(t, n.GenerateQuery(context.Background(), &s))

			assert.Equal(t, tt.wantSQL, s.Query.Text, "SQL")
			assert.Equal(t, len(tt.wantAssumptions), len(s.Assumptions), "got assumptions %q, want %q", s.Assumptions, tt.wantAssumptions)
			if len(tt.wantAssumptions) > 0 {
				assert.Equal(t, tt.wantAssumptions, s.Assumptions, "assumptions")
			}
			assert.Equal(t, tt.wantExplanation, s.Explanation, "explanation")
			assert.Equal(t, tt.wantNote, len(s.Notes) > 0, "got notes %q", s.Notes)
			assert.Empty(t, s.ErrorKind, "error kind: the validator, not the generator, rejects a missing SQL")
		})
	}
}

func TestGenerateSQLModelFailure(t *testing.T) {
	t.Parallel()
	n, model := newNodes(t, []llm.Rule{failing(llm.StepGenerateSQL, "transient: overloaded")}, llm.WithRetries(1))
	s := State{UserQuery: "How many games are free?", Intent: IntentAnalytics}
	require.NoError(t, n.GenerateQuery(context.Background(), &s))
	assert.Equal(t, ErrModelUnavailable, s.ErrorKind, "error kind (detail %q)", s.ErrorDetail)
	assert.Equal(t, 2, model.CallCount(llm.StepGenerateSQL), "attempts")
	assert.Empty(t, s.Query.Text, "SQL")
}

func TestGenerateSQLWithoutTables(t *testing.T) {
	t.Parallel()
	n, model := newNodes(t, []llm.Rule{reply(llm.StepGenerateSQL, sqlReply2018)})
	n.Warehouse = newBackend(t, pgwarehouse.ExecConfig{Schemas: []string{"no_such_schema"}})
	s := State{UserQuery: "How many games are free?", Intent: IntentAnalytics}
	require.NoError(t, n.GenerateQuery(context.Background(), &s))
	assert.Equal(t, ErrNoData, s.ErrorKind, "error kind (detail %q)", s.ErrorDetail)
	assert.Contains(t, s.ErrorDetail, `no tables in the "no_such_schema" schema`, "error detail for the logs")
	assert.Empty(t, model.Calls(), "model calls: no prompt without a schema")
}

func TestValidateSQL(t *testing.T) {
	t.Parallel()
	requireDB(t)
	t.Cleanup(func() { assertAppsIntact(t) })
	tests := []struct {
		name       string
		sql        string
		wantValid  bool
		wantKind   ErrorKind
		wantDetail string // a substring of ErrorDetail and ValidationError
	}{
		{name: "valid", sql: "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018", wantValid: true},
		{name: "valid unqualified", sql: "SELECT g.name FROM genres g ORDER BY 1", wantValid: true},
		{name: "valid CTE", sql: "WITH y AS (SELECT release_year FROM analytics.apps) SELECT count(*) FROM y", wantValid: true},
		{name: "unknown column", sql: "SELECT nme FROM analytics.apps", wantKind: ErrInvalidQuery, wantDetail: `column "nme" does not exist`},
		{name: "bad cast", sql: "SELECT name FROM analytics.apps WHERE price > 'cheap'", wantKind: ErrInvalidQuery, wantDetail: "invalid input syntax for type numeric"},
		{name: "syntax error", sql: "SELEC name FROM analytics.apps", wantKind: ErrInvalidQuery, wantDetail: "syntax error"},
		{name: "unknown table", sql: "SELECT * FROM orders", wantKind: ErrInvalidQuery, wantDetail: `table "orders" does not exist; use one of the tables`},
		{name: "pg_catalog table", sql: "SELECT rolname, rolpassword FROM pg_catalog.pg_authid", wantKind: ErrInvalidQuery, wantDetail: "pg_catalog.pg_authid is a system catalog"},
		{name: "another schema", sql: "SELECT * FROM public.conversation_turns", wantKind: ErrInvalidQuery, wantDetail: "public.conversation_turns is outside the allowed schemas"},
		{name: "empty", sql: "", wantKind: ErrInvalidQuery, wantDetail: "held no SQL"},
		{name: "delete", sql: "DELETE FROM analytics.apps", wantKind: ErrUnsafeQuery, wantDetail: "only SELECT"},
		{name: "stacked", sql: "SELECT 1; DELETE FROM analytics.apps", wantKind: ErrUnsafeQuery, wantDetail: "exactly one statement"},
		{name: "select into", sql: "SELECT * INTO analytics.apps_copy FROM analytics.apps", wantKind: ErrUnsafeQuery, wantDetail: "SELECT INTO"},
		{name: "writing CTE", sql: "WITH d AS (DELETE FROM analytics.apps RETURNING *) SELECT count(*) FROM d", wantKind: ErrUnsafeQuery, wantDetail: "data-modifying"},
		{name: "locking", sql: "SELECT * FROM analytics.apps FOR UPDATE", wantKind: ErrUnsafeQuery, wantDetail: "FOR UPDATE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, model := newNodes(t, nil)
			s := State{UserQuery: "q", Query: pgQuery(tt.sql), Valid: true}
			require.NoError(t, n.ValidateQuery(context.Background(), &s))

			assert.Equal(t, tt.wantValid, s.Valid, "valid")
			assert.Equal(t, tt.wantKind, s.ErrorKind, "error kind (detail %q)", s.ErrorDetail)
			if tt.wantDetail != "" {
				assert.Contains(t, s.ErrorDetail, tt.wantDetail, "error detail")
				assert.Contains(t, s.ValidationError, tt.wantDetail, "validation error the generator sees")
			} else {
				assert.Empty(t, s.ErrorDetail, "error detail")
			}
			assert.Empty(t, model.Calls(), "model calls: validation never asks the model")
		})
	}
}

func TestExecuteSQL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n, _ := newNodes(t, nil)
	sql := "SELECT app_id, name, release_date FROM analytics.apps WHERE app_id IN (10, 20) ORDER BY app_id"
	s := State{UserQuery: "When were Valve's first games released?", ThreadTS: threadID(t), Query: pgQuery(sql), Checked: unchecked(sql)}
	require.NoError(t, n.ExecuteQuery(ctx, &s))

	require.Empty(t, s.ErrorKind, "error kind (detail %q)", s.ErrorDetail)
	assert.Equal(t, []string{"app_id", "name", "release_date"}, s.ColumnNames(), "columns")
	assert.Equal(t, [][]any{
		{int64(10), "Counter-Strike", "2000-11-01"},
		{int64(20), "Team Fortress Classic", "1999-04-01"},
	}, s.Result.Rows, "rows")
	assert.Equal(t, 2, s.Result.RowCount, "row count")
	assert.Equal(t, pgID(sql), s.QueryID, "query id")
	assert.Positive(t, s.DBTime, "database time")

	// A fresh cache has an empty memory, so this reads what was stored in
	// Postgres for the buttons of any process.
	other, err := store.NewCache(requireDB(t), store.CacheLimits{})
	require.NoError(t, err)
	cached, err := other.Get(ctx, s.ThreadTS, s.QueryID)
	require.NoError(t, err, "cached result of the answer")
	assert.Equal(t, sql, cached.Query.Text, "cached SQL")
	assert.Equal(t, s.UserQuery, cached.Question, "cached question")
	assert.Equal(t, s.Result.Rows, cached.Result.Rows, "cached rows")
}

func TestExecuteSQLFailures(t *testing.T) {
	t.Parallel()
	requireDB(t)
	t.Cleanup(func() { assertAppsIntact(t) })
	tests := []struct {
		name       string
		sql        string
		timeout    bool
		wantKind   ErrorKind
		wantDetail string
	}{
		{name: "statement timeout", sql: "SELECT pg_sleep(1)", timeout: true, wantKind: ErrQueryTimeout},
		{name: "division by zero", sql: "SELECT count(*) / 0 AS ratio FROM analytics.apps", wantKind: ErrInvalidQuery, wantDetail: "division by zero"},
		{name: "unknown column", sql: "SELECT nme FROM analytics.apps", wantKind: ErrInvalidQuery, wantDetail: `column "nme" does not exist`},
		{name: "write past the validator", sql: "DELETE FROM analytics.apps", wantKind: ErrUnsafeQuery, wantDetail: "read-only transaction"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			n, _ := newNodes(t, nil)
			if tt.timeout {
				n.Warehouse = newBackend(t, pgwarehouse.ExecConfig{StatementTimeout: 50 * time.Millisecond})
			}
			s := State{UserQuery: "q", ThreadTS: threadID(t), Query: pgQuery(tt.sql), Checked: unchecked(tt.sql)}
			require.NoError(t, n.ExecuteQuery(ctx, &s))

			assert.Equal(t, tt.wantKind, s.ErrorKind, "error kind (detail %q)", s.ErrorDetail)
			assert.Contains(t, s.ErrorDetail, tt.wantDetail, "error detail")
			assert.Empty(t, s.QueryID, "query id of a failed query")
			_, err := n.Cache.Latest(ctx, s.ThreadTS)
			assert.ErrorIs(t, err, store.ErrNotFound, "got a cached result for a failed query, want none")
		})
	}
}

// assertAppsIntact checks that the demo table still holds every game.
func assertAppsIntact(t *testing.T) {
	t.Helper()
	var n int
	err := requireDB(t).Pool().QueryRow(context.Background(), "SELECT count(*) FROM analytics.apps").Scan(&n)
	require.NoError(t, err, "count apps")
	assert.Equal(t, 27075, n, "rows in analytics.apps")
}

// The guard's row limit applies to the statement that runs; users and the
// cache keep the statement as the model wrote it.
func TestValidateAndExecuteApplyTheRowLimit(t *testing.T) {
	t.Parallel()
	n, _ := newNodes(t, nil)
	n.MaxRows = 3
	sql := "SELECT name FROM analytics.genres ORDER BY name"
	s := State{UserQuery: "list the genres", Query: pgQuery(sql), ThreadTS: "t-rowlimit"}
	require.NoError(t, n.ValidateQuery(context.Background(), &s))
	require.True(t, s.Valid, "valid: %s", s.ErrorDetail)
	assert.Equal(t, sql+"\nLIMIT 4", s.Checked.Statement, "one row more than kept, so a cut result is noticed")

	require.NoError(t, n.ExecuteQuery(context.Background(), &s))
	assert.Equal(t, 3, s.Result.RowCount, "rows kept")
	assert.True(t, s.Result.Truncated, "the fourth row tells the result was cut")
	assert.Equal(t, sql, s.Query.Text, "the SQL users see is the model's")
	cached, err := n.Cache.Get(context.Background(), "t-rowlimit", s.QueryID)
	require.NoError(t, err)
	assert.Equal(t, sql, cached.Query.Text, "the cache keeps the model's SQL")
	assert.Equal(t, pgID(sql), s.QueryID, "the query id is the model's SQL's")
}
