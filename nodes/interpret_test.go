package nodes

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// gamesIn2018 is the one-number result of "How many games were released in 2018?".
func gamesIn2018() warehouse.Result {
	return warehouse.Result{
		Columns:  []warehouse.Column{{Name: "games", Type: "int8"}},
		Rows:     [][]any{{int64(8160)}},
		RowCount: 1,
	}
}

// topGenres is a small table result.
func topGenres(truncated bool) warehouse.Result {
	return warehouse.Result{
		Columns:   []warehouse.Column{{Name: "genre", Type: "text"}, {Name: "games", Type: "int8"}},
		Rows:      [][]any{{"Indie", int64(19421)}, {"Action", int64(11903)}, {"Casual", int64(10210)}},
		RowCount:  3,
		Truncated: truncated,
	}
}

func TestInterpret(t *testing.T) {
	t.Parallel()
	const question = "How many games were released in 2018?"
	noRows := warehouse.Result{Columns: []warehouse.Column{{Name: "games", Type: "int8"}}, Rows: [][]any{}}
	tests := []struct {
		name       string
		result     warehouse.Result
		rules      []llm.Rule
		sql        string // the query that answered; a count of 2018's games when empty
		wantAnswer string
		wantNote   bool
	}{
		{
			name:       "json answer",
			result:     gamesIn2018(),
			rules:      []llm.Rule{reply(llm.StepInterpret, `{"answer":" *8,160* games were released in 2018. "}`)},
			wantAnswer: "*8,160* games were released in 2018.",
		},
		{
			name:       "plain-text answer",
			result:     gamesIn2018(),
			rules:      []llm.Rule{reply(llm.StepInterpret, "\nThere were **8160** new games in 2018.\n")},
			wantAnswer: "There were **8160** new games in 2018.",
		},
		{
			name:       "invented number gives a plain summary",
			result:     gamesIn2018(),
			rules:      []llm.Rule{reply(llm.StepInterpret, `{"answer":"*9,412* games were released in 2018, up 15% on 2017."}`)},
			wantAnswer: "Games: *8,160*.",
			wantNote:   true,
		},
		{
			name:   "a number with a scale word is read with it",
			result: gamesIn2018(),
			rules: []llm.Rule{reply(llm.StepInterpret,
				`{"answer":"*9.9 million* games were released in 2018 (*8.2k* of them free)."}`)},
			wantAnswer: "Games: *8,160*.",
			wantNote:   true,
		},
		{
			name:       "a small number with a scale is no small number",
			result:     gamesIn2018(),
			rules:      []llm.Rule{reply(llm.StepInterpret, `{"answer":"About *1e6* games were released in 2018."}`)},
			wantAnswer: "Games: *8,160*.",
			wantNote:   true,
		},
		{
			name:       "a scaled number that rounds the result passes",
			result:     gamesIn2018(),
			rules:      []llm.Rule{reply(llm.StepInterpret, `{"answer":"About *8.2k* games were released in 2018."}`)},
			wantAnswer: "About *8.2k* games were released in 2018.",
		},
		{
			name:       "a number only in the query's comment is invented",
			result:     gamesIn2018(),
			sql:        "SELECT count(*) AS games /* of 9,900,000 */ FROM analytics.apps -- 12,345 in all\nWHERE release_year = 2018",
			rules:      []llm.Rule{reply(llm.StepInterpret, `{"answer":"*9,900,000* apps, *12,345* in all, *8,160* in 2018."}`)},
			wantAnswer: "Games: *8,160*.",
			wantNote:   true,
		},
		{
			name:       "a number of the query itself passes",
			result:     gamesIn2018(),
			sql:        "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018 AND price < 100 -- cheap",
			rules:      []llm.Rule{reply(llm.StepInterpret, `{"answer":"*8,160* games under 100 were released in 2018."}`)},
			wantAnswer: "*8,160* games under 100 were released in 2018.",
		},
		{
			name:       "empty answer gives a plain summary",
			result:     topGenres(false),
			rules:      []llm.Rule{reply(llm.StepInterpret, `{"answer":"  "}`)},
			wantAnswer: "Here are the *3* rows.",
			wantNote:   true,
		},
		{
			name:       "model failure gives a plain summary",
			result:     topGenres(true),
			rules:      []llm.Rule{failing(llm.StepInterpret, "content policy")},
			wantAnswer: "Here are the first *3* rows.",
			wantNote:   true,
		},
		{
			name:       "model unavailable on an empty result",
			result:     noRows,
			rules:      []llm.Rule{failing(llm.StepInterpret, "transient: busy")},
			wantAnswer: "The query returned no rows.",
			wantNote:   true,
		},
		{
			name:       "empty result with a usable answer",
			result:     noRows,
			rules:      []llm.Rule{reply(llm.StepInterpret, `{"answer":"No games matched: the data has no such releases."}`)},
			wantAnswer: "No games matched: the data has no such releases.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, model := newNodes(t, tt.rules, llm.WithRetries(0))
			s := State{UserQuery: question, Result: tt.result,
				Query: pgQuery(cmp.Or(tt.sql, "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018"))}
			require.NoError(t, n.Interpret(context.Background(), &s))

			assert.Equal(t, tt.wantAnswer, s.Answer, "answer")
			assert.Empty(t, s.ErrorKind, "error kind: a failed interpretation still answers")
			assert.Equal(t, tt.wantNote, len(s.Notes) > 0, "got notes %q", s.Notes)
			assert.Equal(t, 1, model.CallCount(llm.StepInterpret), "interpret calls")
		})
	}
}

// The interpreter's follow-ups come in its one reply: kept one line each,
// without the question just answered, repeats or blanks, at most three.
func TestInterpretFollowUps(t *testing.T) {
	t.Parallel()
	const question = "How many games were released in 2018?"
	n, model := newNodes(t, []llm.Rule{reply(llm.StepInterpret, `{"answer": "*8160* games.",
		"follow_ups": ["And in 2017?", " ", "how many games were released in 2018?", "And in 2017?",
		"Which   genres\ngrew most?", "`+strings.Repeat("x", 201)+`", "Top publishers?", "Free games?"]}`)}, llm.WithRetries(0))
	s := State{UserQuery: question, Result: gamesIn2018(), Query: pgQuery("SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018")}
	require.NoError(t, n.Interpret(context.Background(), &s))
	assert.Equal(t, []string{"And in 2017?", "Which genres grew most?", "Top publishers?"}, s.FollowUps)
	assert.Equal(t, 1, model.CallCount(llm.StepInterpret), "no extra call")

	require.NoError(t, n.FormatAnswer(context.Background(), &s))
	assert.Equal(t, s.FollowUps, s.Reply.FollowUps, "the answer offers them")

	plain := State{UserQuery: question, Result: gamesIn2018(), Query: s.Query}
	n2, _ := newNodes(t, []llm.Rule{reply(llm.StepInterpret, "8160 games.")}, llm.WithRetries(0))
	require.NoError(t, n2.Interpret(context.Background(), &plain))
	assert.Empty(t, plain.FollowUps, "a plain-text reply has none")
}

func TestInterpretPrompt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		result      warehouse.Result
		wantInclude []string
		wantExclude []string
	}{
		{
			name:   "one number",
			result: gamesIn2018(),
			wantInclude: []string{
				"answered by this query:\nSELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018\n",
				"Columns: games\n",
				"Rows returned: 1\n",
				"is cut with ….\nFirst rows (tab-separated):\ngames\n8160\n(end of rows)\n",
				"\nQuestion: How many games were released in 2018?",
			},
			wantExclude: []string{"more exist", "The query returned no rows."},
		},
		{
			name:   "truncated table",
			result: topGenres(true),
			wantInclude: []string{
				"Columns: genre, games\n",
				"Rows returned: 3 (the result was cut at 3 rows; more exist)",
				"genre\tgames\nIndie\t19421\nAction\t11903\nCasual\t10210\n",
			},
		},
		{
			// docs/workflow.md: interpret writes from the first 20 rows.
			name:        "only the first 20 of 25 rows",
			result:      numberedRows(25),
			wantInclude: []string{"Rows returned: 25\n", "\nrow 1\t1\n", "\nrow 20\t20\n… 5 more rows"},
			wantExclude: []string{"row 21\t"},
		},
		{
			name:        "no rows",
			result:      warehouse.Result{Columns: []warehouse.Column{{Name: "games"}}, Rows: [][]any{}},
			wantInclude: []string{"Rows returned: 0\n", "The query returned no rows."},
			wantExclude: []string{"First rows"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, model := newNodes(t, []llm.Rule{reply(llm.StepInterpret, `{"answer":"ok"}`)})
			s := State{UserQuery: "How many games were released in 2018?", Result: tt.result,
				Query: pgQuery("SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018")}
			require.NoError(t, n.Interpret(context.Background(), &s))
			prompt := onlyPrompt(t, model)
			for _, want := range tt.wantInclude {
				assert.Contains(t, prompt, want, "interpret prompt")
			}
			for _, unwanted := range tt.wantExclude {
				assert.NotContains(t, prompt, unwanted, "interpret prompt")
			}
		})
	}
}

// numberedRows is a result of n rows, "row 1" to "row n", each with its number.
func numberedRows(n int) warehouse.Result {
	r := warehouse.Result{Columns: []warehouse.Column{{Name: "label", Type: "text"}, {Name: "n", Type: "int4"}}, RowCount: n}
	for i := 1; i <= n; i++ {
		r.Rows = append(r.Rows, []any{fmt.Sprintf("row %d", i), i})
	}
	return r
}
