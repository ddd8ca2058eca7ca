package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/chart"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

func ptr(f float64) *float64 { return &f }

// The page gets cells as people read them (separators, units, links) with
// the number behind each for sorting, and the same facts as Slack.
func TestViewOfAnswer(t *testing.T) {
	links, err := answer.ParseLinks([]byte("links:\n  - column: name\n    url: https://example.com/app/{app_id}\n"))
	require.NoError(t, err)
	r := &warehouse.Result{
		Columns: []warehouse.Column{
			{Name: "app_id", Kind: warehouse.KindNumber}, {Name: "name", Kind: warehouse.KindText},
			{Name: "price", Kind: warehouse.KindNumber}, {Name: "owners", Kind: warehouse.KindNumber},
		},
		Rows: [][]any{
			{int64(10), "Counter-Strike", "7.19", int64(15000000)},
			{int64(20), "Team Fortress Classic", nil, int64(7500000)},
		},
		RowCount: 2,
	}
	a := &answer.Answer{
		Kind: answer.KindAnswer, Question: "Top games?", Text: answer.ParseText("*Counter-Strike* leads."),
		Result: r, Links: links.For(r), Units: map[string]answer.Unit{"price": {Prefix: "£"}},
		Assumptions: []string{"Owners are the midpoint of SteamSpy's range.", " "},
		QueryID:     "0badc0de", Actions: nodes.Buttons(), Feedback: true, VerifiedBy: "U123ABC",
		Elapsed: 1200 * time.Millisecond, Backend: "postgres", FollowUps: []string{"And in 2017?"},
		Chart: &chart.Spec{Type: chart.Bar, Title: "Owners by game", Categories: []string{"Counter-Strike", "Team Fortress Classic"},
			Series: []chart.Series{{Name: "owners", Values: []float64{15000000, 7500000}}}},
	}
	v := newView(a)

	assert.Equal(t, answer.KindAnswer, v.Kind)
	assert.Equal(t, answer.Text{{Text: "Counter-Strike", Bold: true}, {Text: " leads."}}, v.Text)
	require.NotNil(t, v.Table)
	assert.Equal(t, []columnView{{Name: "app_id", Label: "App ID", Numeric: true}, {Name: "name", Label: "Name"},
		{Name: "price", Label: "Price", Numeric: true}, {Name: "owners", Label: "Owners", Numeric: true}},
		v.Table.Columns, "readable labels, the names kept for hover")
	assert.Equal(t, [][]cellView{
		{{Text: "10", Number: ptr(10)}, {Text: "Counter-Strike", Link: "https://example.com/app/10"}, {Text: "£7.19", Number: ptr(7.19)}, {Text: "15,000,000", Number: ptr(15e6)}},
		{{Text: "20", Number: ptr(20)}, {Text: "Team Fortress Classic", Link: "https://example.com/app/20"}, {Text: answer.NullText}, {Text: "7,500,000", Number: ptr(7.5e6)}},
	}, v.Table.Rows, "ids without separators, units from the catalog, NULL as a dash with no number, links")
	assert.Empty(t, v.Notes, "every row is shown")
	assert.Equal(t, []string{"Owners are the midpoint of SteamSpy's range."}, v.Assume, "blank assumptions dropped")
	assert.Equal(t, "✓ Verified query (by U123ABC)", v.Verified)
	assert.Equal(t, "2 rows · in 1.2 s · via postgres", v.Status)
	assert.Equal(t, []actionRef{{Action: "export_csv", Label: "Export CSV"}, {Action: "show_sql", Label: "Show SQL"}}, v.Actions)
	assert.Equal(t, []string{"And in 2017?"}, v.FollowUps)
	assert.True(t, v.Feedback)
	assert.Equal(t, &chartView{Type: "bar", Title: "Owners by game", Categories: []string{"Counter-Strike", "Team Fortress Classic"},
		Series: []seriesValue{{Name: "owners", Values: []float64{15000000, 7500000}}}}, v.Chart)
}

// A reloaded answer keeps 100 rows of its result: the page says how many
// of how many it shows, and what Export CSV gives.
func TestViewOfStoredLongAnswer(t *testing.T) {
	r := &warehouse.Result{Columns: []warehouse.Column{{Name: "n", Kind: warehouse.KindNumber}}}
	for i := range 150 {
		r.Rows = append(r.Rows, []any{int64(i)})
	}
	r.RowCount = 150
	a := &answer.Answer{Kind: answer.KindAnswer, Text: answer.Plain("x"), Result: r, QueryID: "0badc0de", Actions: nodes.Buttons()}
	live := newView(a)
	assert.Len(t, live.Table.Rows, 150, "the live answer sends every row; the page pages them")
	assert.Empty(t, live.Notes)

	data, err := answer.Marshal(a)
	require.NoError(t, err)
	kept, err := answer.Unmarshal(data)
	require.NoError(t, err)
	stored := storedView(kept, "x")
	assert.Len(t, stored.Table.Rows, 100)
	assert.Equal(t, []string{"Showing the first 100 rows of 150. Export CSV for all 150 rows."}, stored.Notes)
	assert.Equal(t, "150 rows", stored.Status)

	r.Truncated, r.LimitedBy = true, warehouse.LimitRows
	data, err = answer.Marshal(a)
	require.NoError(t, err)
	kept, err = answer.Unmarshal(data)
	require.NoError(t, err)
	stored = storedView(kept, "x")
	assert.Equal(t, []string{"Showing the first 100 rows of 150. Export CSV for every row of the query."}, stored.Notes)
	assert.Equal(t, "result limited to 150 rows; Export CSV has every row", stored.Status)
}

// More rows than the page takes: the first maxWebRows, and a note.
func TestViewCapsRows(t *testing.T) {
	r := &warehouse.Result{Columns: []warehouse.Column{{Name: "n", Kind: warehouse.KindNumber}}}
	for i := range maxWebRows + 5 {
		r.Rows = append(r.Rows, []any{int64(i)})
	}
	v := newView(&answer.Answer{Result: r})
	assert.Len(t, v.Table.Rows, maxWebRows)
	assert.Equal(t, []string{fmt.Sprintf("Showing the first 1,000 rows of %s.", answer.Thousands(fmt.Sprint(maxWebRows+5)))}, v.Notes,
		"without an Export CSV button the note names none")
}

// Errors, notices and Show SQL: what each carries.
func TestViewOfOtherReplies(t *testing.T) {
	e := newView(&answer.Answer{Kind: answer.KindError, Text: answer.Plain("The database is not answering."),
		Questions: []string{"How many games?", ""}})
	assert.Equal(t, answer.KindError, e.Kind)
	assert.Equal(t, []string{"How many games?"}, e.Questions)
	assert.Nil(t, e.Actions, "no buttons without a query")

	q := newView(&answer.Answer{Kind: answer.KindQuery, Question: "How many games?", QueryID: "0badc0de",
		Query: &warehouse.Shown{Language: "Cube query", Text: "{}", SQL: "SELECT 1", SQLBy: "Cube"}})
	assert.Equal(t, &queryView{Language: "Cube query", Text: "{}", SQL: "SELECT 1", SQLBy: "Cube"}, q.Query)
	assert.Empty(t, q.Text, "the query is the reply")

	// A turn saved before replies were kept: its Slack text, read once.
	// Which of its links the model wrote cannot be told any more: each
	// shows its address (answer.Text.Exposed).
	old := storedView(nil, "*8160* games &amp; <https://example.com|more>")
	assert.Equal(t, answer.Text{{Text: "8160", Bold: true}, {Text: " games & "}, {Text: "more"}, {Text: " ("},
		{Text: "https://example.com", Code: true}, {Text: ")"}}, old.Text)

	empty := newView(&answer.Answer{Kind: answer.KindAnswer, Question: "How many?"})
	assert.Equal(t, answer.Plain("Answer to: How many?"), empty.Text, "a reply never draws as nothing")
}

// BenchmarkReplyView: the page's reply for a result of MAX_ROWS (1,000)
// rows × 10 columns, half text, half numbers: built and encoded once per
// answer streamed to the page.
func BenchmarkReplyView(b *testing.B) {
	r := &warehouse.Result{}
	for i := range 10 {
		kind := warehouse.KindText
		if i%2 == 1 {
			kind = warehouse.KindNumber
		}
		r.Columns = append(r.Columns, warehouse.Column{Name: fmt.Sprintf("col_%d", i), Kind: kind})
	}
	for j := range 1000 {
		row := make([]any, 10)
		for i := range row {
			if i%2 == 1 {
				row[i] = int64(j * 1234)
			} else {
				row[i] = fmt.Sprintf("value %d of column %d", j, i)
			}
		}
		r.Rows = append(r.Rows, row)
	}
	r.RowCount = len(r.Rows)
	a := &answer.Answer{Kind: answer.KindAnswer, Text: answer.Plain("x"), Result: r, QueryID: "0badc0de", Actions: nodes.Buttons()}
	var size int
	for b.Loop() {
		data, err := json.Marshal(newView(a))
		if err != nil {
			b.Fatal(err)
		}
		size = len(data)
	}
	b.ReportMetric(float64(size), "bytes")
}

// README's "A `reply` is …" paragraph names every field of the reply the
// page is sent, its parts' fields and its kinds: a field added to the JSON
// must be documented there.
func TestReadmeNamesEveryReplyField(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	start := bytes.Index(readme, []byte("A `reply` is the answer model"))
	require.GreaterOrEqual(t, start, 0, "README describes the reply")
	end := bytes.Index(readme[start:], []byte("\n\n"))
	require.Positive(t, end)
	para := string(readme[start : start+end])
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("[`\"]([a-z_]+)[`\"]").FindAllStringSubmatch(para, -1) {
		named[m[1]] = true
	}
	for _, v := range []any{replyView{}, chartView{}, seriesValue{}, tableView{}, columnView{}, cellView{}, actionRef{}, queryView{},
		answer.Span{}, answer.Choice{}} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name != "" && name != "-" {
				assert.True(t, named[name], "README names %s's field %q", typ.Name(), name)
			}
		}
	}
	for _, kind := range []answer.Kind{answer.KindAnswer, answer.KindNotice, answer.KindError, answer.KindQuery, answer.KindClarify} {
		assert.True(t, named[string(kind)], "README names the kind %q", kind)
	}
}

// A money column's cells carry their number, so the page sorts them by
// value ($999.00 before $1,234.50), not as text.
func TestMoneyCellsSortByValue(t *testing.T) {
	t.Parallel()
	tv := tableOf(&answer.Answer{Result: &warehouse.Result{
		Columns: []warehouse.Column{{Name: "revenue", Kind: warehouse.KindNumber, Type: "money"}},
		Rows:    [][]any{{"$1,234.50"}, {"$999.00"}}}})
	require.NotNil(t, tv.Rows[0][0].Number)
	require.NotNil(t, tv.Rows[1][0].Number)
	assert.Equal(t, 1234.5, *tv.Rows[0][0].Number)
	assert.Equal(t, 999.0, *tv.Rows[1][0].Number)
	assert.Equal(t, "$1,234.50", tv.Rows[0][0].Text, "shown as PostgreSQL writes it")
}
