package answer

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/chart"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

func TestParseText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want Text
	}{
		{name: "slack bold", in: "*8160* games", want: Text{{Text: "8160", Bold: true}, {Text: " games"}}},
		{name: "markdown bold", in: "**Valve** leads", want: Text{{Text: "Valve", Bold: true}, {Text: " leads"}}},
		{name: "italic and code", in: "_about_ `games`", want: Text{{Text: "about", Italic: true}, {Text: " "}, {Text: "games", Code: true}}},
		{name: "snake case is text", in: "avg_price_gbp is 7", want: Text{{Text: "avg_price_gbp is 7"}}},
		{name: "lone stars are text", in: "5 * 3 = 15", want: Text{{Text: "5 * 3 = 15"}}},
		{name: "stars inside words are text", in: "2*3*4 and a**b**c", want: Text{{Text: "2*3*4 and a**b**c"}}},
		{name: "bold by punctuation", in: "(*8160*), “*Valve*”", want: Text{{Text: "("}, {Text: "8160", Bold: true}, {Text: "), “"}, {Text: "Valve", Bold: true}, {Text: "”"}}},
		{name: "markdown link", in: "[Steam](https://store.steampowered.com/)", want: Text{{Text: "Steam", Link: "https://store.steampowered.com/"}}},
		{name: "slack link with entities", in: "<https://x.test/|A &amp; B>", want: Text{{Text: "A & B", Link: "https://x.test/"}}},
		{name: "bare slack link", in: "see <https://x.test/>", want: Text{{Text: "see "}, {Text: "https://x.test/", Link: "https://x.test/"}}},
		{name: "only http links", in: "[x](javascript:alert(1))", want: Text{{Text: "[x](javascript:alert(1))"}}},
		{name: "mentions are text", in: "<!channel> hi", want: Text{{Text: "<!channel> hi"}}},
		{name: "trimmed", in: "  hi \n", want: Text{{Text: "hi"}}},
		{name: "empty", in: " ", want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, ParseText(tc.in))
		})
	}
	assert.Equal(t, "8160 games", ParseText("*8160* games").Plain())
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"0": "0", "999": "999", "1000": "1,000", "-1234567.891": "-1,234,567.891", "12345": "12,345",
		"1e9": "1e9", "abc": "abc", "": "",
	} {
		assert.Equal(t, want, Thousands(in), "Thousands(%q)", in)
	}
}

func TestTableCells(t *testing.T) {
	t.Parallel()
	r := &warehouse.Result{
		Columns: []warehouse.Column{
			{Name: "app_id", Kind: warehouse.KindNumber}, {Name: "release_year", Kind: warehouse.KindNumber},
			{Name: "games", Kind: warehouse.KindNumber}, {Name: "avg_price_gbp", Kind: warehouse.KindNumber},
			{Name: "revenue_usd", Kind: warehouse.KindNumber}, {Name: "share_pct", Kind: warehouse.KindNumber},
			{Name: "name", Kind: warehouse.KindText}, {Name: "", Kind: warehouse.KindNumber},
		},
		Rows: [][]any{{int64(123456), int64(2018), int64(8160), "74.90", -1234.5, 12.5, "Valve 12345", json.Number("4521")}},
	}
	tb := NewTable(r)
	var got []string
	for i := range r.Columns {
		got = append(got, tb.Cell(r.Rows[0], i))
	}
	assert.Equal(t, []string{"123456", "2018", "8,160", "£74.90", "-$1,234.5", "12.5%", "Valve 12345", "4,521"}, got)
	assert.True(t, tb.Numeric(2))
	assert.False(t, tb.Numeric(6))
	assert.Equal(t, "?column?", tb.Header(7), "an unnamed column")
	assert.Equal(t, NullText, tb.Cell([]any{nil}, 0))
	assert.Equal(t, NullText, tb.Cell(nil, 3), "a short row")

	// Cached before kinds: the values decide.
	old := &warehouse.Result{Columns: []warehouse.Column{{Name: "n"}}, Rows: [][]any{{float64(12345)}}}
	assert.Equal(t, "12,345", NewTable(old).Cell(old.Rows[0], 0))
}

func TestShowsTable(t *testing.T) {
	t.Parallel()
	one := &warehouse.Result{Columns: []warehouse.Column{{Name: "games"}}, Rows: [][]any{{int64(8160)}}, RowCount: 1}
	assert.False(t, (&Answer{Text: Plain("8160 games."), Result: one}).ShowsTable(), "a single value the text says")
	assert.True(t, (&Answer{Result: one}).ShowsTable(), "a single value with no text to say it")
	two := &warehouse.Result{Columns: []warehouse.Column{{Name: "g"}, {Name: "n"}}, Rows: [][]any{{"a", int64(1)}}, RowCount: 1}
	assert.True(t, (&Answer{Text: Plain("x"), Result: two}).ShowsTable())
	assert.False(t, (&Answer{Text: Plain("x"), Result: &warehouse.Result{Columns: two.Columns}}).ShowsTable(), "no rows")
}

func TestStatus(t *testing.T) {
	t.Parallel()
	export := []Action{{ID: ExportAction, Label: "Export CSV"}}
	rows := func(n int) [][]any { return make([][]any, n) }
	assert.Equal(t, "1,234 rows · in 1.2 s · via sql", (&Answer{Result: &warehouse.Result{Rows: rows(1234)},
		Elapsed: 1234 * time.Millisecond, Backend: "sql"}).Status())
	assert.Equal(t, "result limited to 3 rows; Export CSV has every row", (&Answer{QueryID: "q", Actions: export,
		Result: &warehouse.Result{Rows: rows(3), Truncated: true, LimitedBy: warehouse.LimitRows}}).Status())
	assert.Equal(t, "result cut to 546 rows (size limit)", (&Answer{
		Result: &warehouse.Result{Rows: rows(546), Truncated: true, LimitedBy: warehouse.LimitBytes}}).Status(), "no export, no promise")
	assert.Equal(t, "no rows", (&Answer{Result: &warehouse.Result{}}).Status())
	assert.Equal(t, "", (&Answer{}).Status())
	ranAt := time.Date(2024, 3, 5, 23, 58, 0, 0, time.FixedZone("CET", 3600))
	assert.Equal(t, "2 rows · data as of 2024-03-05 22:58 UTC", (&Answer{Result: &warehouse.Result{Rows: rows(2)},
		DataAsOf: ranAt}).Status(), "a reused result says the day and time it ran, in UTC")
}

// A stored reply comes back as it was, its numbers exact and its result cut
// to the rows a surface shows.
func TestMarshalRoundTrip(t *testing.T) {
	t.Parallel()
	r := &warehouse.Result{Columns: []warehouse.Column{{Name: "day", Kind: warehouse.KindTime}, {Name: "n", Kind: warehouse.KindNumber},
		{Name: "avg", Kind: warehouse.KindNumber}, {Name: "total", Kind: warehouse.KindNumber}}}
	for i := range 150 {
		r.Rows = append(r.Rows, []any{"2025-01-01", int64(9007199254740993 + i), 12.345678, "12345678901234567890.5"})
	}
	r.Rows[1][2] = 2.0
	r.RowCount = len(r.Rows)
	a := &Answer{Kind: KindAnswer, Question: "Orders per day?", Text: ParseText("*150* days"), Result: r,
		Chart:       &chart.Spec{Type: chart.Line, Title: "Orders", Categories: []string{"a"}, Series: []chart.Series{{Name: "n", Values: []float64{1}}}},
		Assumptions: []string{"UTC days"}, QueryID: "0123abcd", Actions: []Action{{ID: ExportAction, Label: "Export CSV"}},
		Feedback: true, VerifiedBy: "U123", Elapsed: time.Second, FollowUps: []string{"And per week?"}}
	data, err := Marshal(a)
	require.NoError(t, err)
	got, err := Unmarshal(data)
	require.NoError(t, err)
	assert.Len(t, got.Result.Rows, 100, "rows kept")
	assert.Equal(t, 150, got.Rows(), "the result's own count")
	assert.False(t, got.Result.Truncated, "the query's result was not cut: only what was kept")
	assert.Equal(t, "150 rows · in 1.0 s", got.Status(), "a reloaded answer says what it said")
	assert.Equal(t, []any{"2025-01-01", int64(9007199254740993), 12.345678, "12345678901234567890.5"}, got.Result.Rows[0],
		"each value as it was: a big integer exact, a float a float (shown with as many decimals), numeric's digits")
	assert.Equal(t, 2.0, got.Result.Rows[1][2], "a whole float stays a float")
	live, reloaded := a.Table(), got.Table()
	for j := range r.Columns {
		assert.Equal(t, live.Cell(a.Result.Rows[0], j), reloaded.Cell(got.Result.Rows[0], j), "column %d shows the same", j)
	}
	assert.Len(t, a.Result.Rows, 150, "the answer itself is not cut")
	got.Result, a.Result, got.TotalRows = nil, nil, 0
	assert.Equal(t, a, got)

	_, err = Unmarshal([]byte("{"))
	assert.Error(t, err)
}

func TestUnitOfComment(t *testing.T) {
	t.Parallel()
	for comment, want := range map[string]Unit{
		"Full store price in GBP (pounds sterling) as of May 2019": {Prefix: "£"},
		"Revenue in USD":      {Prefix: "$"},
		"Net amount in euros": {Prefix: "€"},
		"Share of positive reviews, in percent from 0 to 100": {Suffix: "%"},
	} {
		got, ok := UnitOfComment(comment)
		assert.True(t, ok, comment)
		assert.Equal(t, want, got, comment)
	}
	for _, comment := range []string{"", "Count of reviews", "Price in GBP, converted from USD"} {
		_, ok := UnitOfComment(comment)
		assert.False(t, ok, "%q states no single unit", comment)
	}
	a := &Answer{Result: &warehouse.Result{Columns: []warehouse.Column{{Name: "Price", Kind: warehouse.KindNumber}, {Name: "price_usd", Kind: warehouse.KindNumber}}},
		Units: map[string]Unit{"price": {Prefix: "£"}, "price_usd": {Suffix: "%"}}}
	tb := a.Table()
	assert.Equal(t, "£1,234.5", tb.Cell([]any{"1234.5"}, 0), "the description's unit")
	assert.Equal(t, "2%", tb.Cell([]any{nil, int64(2)}, 1), "the description wins over the name")
}

// README: numbers get thousands separators, but not ids, years or codes
// (nor zips, phone numbers and the like, whose digits are read as they are).
func TestIdentifierNumbersKeepTheirDigits(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"customer_id": "123456", "ids": "123456", "fiscal_year": "123456", "year_released": "123456", "yr": "123456",
		"country_code": "123456", "zip": "123456", "zipcode": "123456", "postcode": "123456", "phone": "123456",
		"order_number": "123456", "invoice_no": "123456", "year released": "123456", "yearmonth": "123456", "yearweek": "123456",
		"year-month": "123456", "year (released)": "123456", "yr_total": "123,456",
		"orders": "123,456", "idle_seconds": "123,456", "yearly_total": "123,456", "years_active": "123,456", "codes_used": "123,456", "number_of_games": "123,456",
	} {
		r := &warehouse.Result{Columns: []warehouse.Column{{Name: name, Kind: warehouse.KindNumber}}, Rows: [][]any{{int64(123456)}}}
		assert.Equal(t, want, NewTable(r).Cell(r.Rows[0], 0), name)
	}
}
