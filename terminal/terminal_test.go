package terminal

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/chart"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

func chatPress(id, _ string) string {
	return map[string]string{"export_csv": ":csv", "show_sql": ":sql"}[id]
}

var actions = []answer.Action{{ID: "export_csv", Label: "Export CSV"}, {ID: "show_sql", Label: "Show SQL"}}

func publishers() *answer.Answer {
	return &answer.Answer{
		Kind: answer.KindAnswer, Text: answer.ParseText("*Big Fish Games* leads with **213** games; see [Steam](https://store.steampowered.com/)."),
		Result: &warehouse.Result{
			Columns:  []warehouse.Column{{Name: "publisher", Kind: warehouse.KindText}, {Name: "games", Kind: warehouse.KindNumber}},
			Rows:     [][]any{{"Big Fish Games", int64(1213)}, {"Valve", int64(42)}, {"THQ\nNordic", nil}},
			RowCount: 3,
		},
		Assumptions: []string{"Top means the first 10."}, VerifiedBy: "U0ADMIN", QueryID: "0123abcd", Actions: actions,
		Feedback: true, Elapsed: 67 * time.Millisecond, FollowUps: []string{"And in 2017?", " ", "Which genres do they publish?"},
	}
}

// An answer in the terminal: no Slack syntax, numbers with separators
// aligned right, the commands that press its buttons, follow-ups numbered.
func TestRenderAnswer(t *testing.T) {
	t.Parallel()
	got := Render(publishers(), Options{Press: chatPress, Rate: ":good / :bad", Numbered: true})
	want := `Big Fish Games leads with 213 games; see Steam.

publisher       games
--------------  -----
Big Fish Games  1,213
Valve              42
THQ Nordic          —

  Assumption: Top means the first 10.
  ✓ Verified query (by U0ADMIN)
  3 rows · in 67 ms

Export CSV: :csv · Show SQL: :sql · Rate it: :good / :bad

You could ask next: (type a number to ask it)
  1. And in 2017?
  2. Which genres do they publish?
`
	assert.Equal(t, want, got)
	assert.Equal(t, []string{"And in 2017?", "Which genres do they publish?"}, List(publishers()))
	for _, leak := range []string{"*", ":warning:", "<http", "```", "[Export CSV]"} {
		assert.NotContains(t, got, leak)
	}
}

func TestRenderANSI(t *testing.T) {
	t.Parallel()
	got := Render(publishers(), Options{ANSI: true})
	assert.Contains(t, got, "\x1b[1mBig Fish Games\x1b[0m leads with \x1b[1m213\x1b[0m games", "bold emphasis")
	assert.Contains(t, got, "\x1b[1mpublisher       games\x1b[0m", "bold header")
	assert.Contains(t, got, "\x1b[2m  Assumption: Top means the first 10.\x1b[0m", "dim context")
	assert.NotContains(t, got, "Export CSV:", "no press hints without a way to press")
	assert.Contains(t, got, "see \x1b]8;;https://store.steampowered.com/\x1b\\Steam\x1b]8;;\x1b\\.", "a terminal hyperlink")

	linked := publishers()
	linked.Links = answer.Links{{Column: "publisher", URL: "https://x.test/{publisher}"}}
	got = Render(linked, Options{ANSI: true})
	assert.Contains(t, got, "\x1b]8;;https://x.test/Valve\x1b\\Valve\x1b]8;;\x1b\\              42", "a linked cell, padded as its text")
	assert.NotContains(t, Render(linked, Options{}), "x.test", "plain text shows no addresses")
	assert.Contains(t, got, "  • And in 2017?", "follow-ups unnumbered when numbers do nothing")
}

func TestRenderSingleValueAndChart(t *testing.T) {
	t.Parallel()
	one := &answer.Answer{Kind: answer.KindAnswer, Text: answer.ParseText("*8160* games were released in 2018."),
		Result: &warehouse.Result{Columns: []warehouse.Column{{Name: "games", Kind: warehouse.KindNumber}}, Rows: [][]any{{int64(8160)}}, RowCount: 1}}
	assert.Equal(t, "8160 games were released in 2018.\n\n  1 row\n", Render(one, Options{}), "a single value has no table")

	c := publishers()
	c.Chart = &chart.Spec{Type: chart.Bar, Title: "Games by publisher", Categories: []string{"Big Fish Games", "Valve"},
		Series: []chart.Series{{Name: "games", Values: []float64{1213, 42}}}}
	got := Render(c, Options{})
	assert.Contains(t, got, "Games by publisher\n", "the chart as text bars")
	assert.Less(t, strings.Index(got, "Games by publisher"), strings.Index(got, "publisher       games"), "chart above table")
}

func TestRenderLongResult(t *testing.T) {
	t.Parallel()
	r := &warehouse.Result{Columns: []warehouse.Column{{Name: "n", Kind: warehouse.KindNumber}}}
	for i := range 120 {
		r.Rows = append(r.Rows, []any{int64(i)})
	}
	a := &answer.Answer{Kind: answer.KindAnswer, Text: answer.Plain("Numbers."), Result: r, QueryID: "q", Actions: actions}
	got := Render(a, Options{Press: chatPress, MaxRows: 10})
	assert.Contains(t, got, "… 110 more rows (:csv exports every row)")
	assert.Contains(t, got, "\n9\n… 110", "ten rows shown")
	assert.NotContains(t, got, "\n10\n")
}

func TestRenderErrorNoticeQuery(t *testing.T) {
	t.Parallel()
	e := &answer.Answer{Kind: answer.KindError, Text: answer.Plain("The query took *too* long."), Questions: []string{"How many games are free?"}}
	assert.Equal(t, "⚠ The query took *too* long.\n\nYou could try: (type a number to ask it)\n  1. How many games are free?\n",
		Render(e, Options{Numbered: true}), "the bot's own text keeps its characters")

	n := &answer.Answer{Kind: answer.KindNotice, Text: answer.Plain("I only know Steam games."), Questions: []string{"Top publishers?"}}
	assert.Equal(t, "I only know Steam games.\n\nTry asking:\n  • “Top publishers?”\n", Render(n, Options{}))
	assert.Equal(t, []string{"Top publishers?"}, List(n))

	q := &answer.Answer{Kind: answer.KindQuery, Text: answer.Plain("Cube query for: How many?"),
		Query: &warehouse.Shown{Language: "Cube query", Text: "{\n  \"measures\": [\"Apps.count\"]\n}", SQLBy: "Cube"}}
	assert.Equal(t, "Cube query for: How many?\n\n    {\n      \"measures\": [\"Apps.count\"]\n    }\n\nCube did not return the SQL it runs for this query.\n",
		Render(q, Options{}))
	sql := &answer.Answer{Kind: answer.KindQuery, Text: answer.Plain("SQL for: How many?"), Query: &warehouse.Shown{Language: "SQL", Text: "SELECT 1"}}
	assert.Equal(t, "SQL for: How many?\n\n    SELECT 1\n", Render(sql, Options{}))
	assert.Equal(t, "Something went wrong on my side while answering.\n", Render(nil, Options{}))
}

// A question asked back lists its choices, numbered in the chat: typing a
// number asks the question again with that choice (List).
func TestRenderClarify(t *testing.T) {
	t.Parallel()
	const q = "How many games did Bethesda publish?"
	a := &answer.Answer{Kind: answer.KindClarify, Question: q, Text: answer.Plain("Which Bethesda do you mean?"),
		Choices: []answer.Choice{
			{Label: "Bethesda Softworks", Ask: q + " (Bethesda Softworks)"},
			{Label: " ", Ask: q + " (blank)"},
			{Label: "All  three", Ask: q + " (All three)"},
		}}
	assert.Equal(t, "Which Bethesda do you mean?\n\n(type a number to choose)\n  1. Bethesda Softworks\n  2. All three\n",
		Render(a, Options{Numbered: true, Press: chatPress}))
	assert.Equal(t, "Which Bethesda do you mean?\n\n  • Bethesda Softworks\n  • All three\n", Render(a, Options{}))
	assert.Equal(t, []string{q + " (Bethesda Softworks)", q + " (All three)"}, List(a), "the numbers ask these")
	choose := func(ask string) string { return "ask " + ask }
	assert.Equal(t, "Which Bethesda do you mean?\n\n  • Bethesda Softworks: ask "+q+" (Bethesda Softworks)\n  • All three: ask "+q+" (All three)\n",
		Render(a, Options{Choose: choose}), "a one-shot command says what to run")
}
