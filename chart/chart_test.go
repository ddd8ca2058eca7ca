package chart

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

func cols(spec ...string) []warehouse.Column {
	out := make([]warehouse.Column, 0, len(spec))
	for _, s := range spec {
		name, kind, _ := strings.Cut(s, ":")
		out = append(out, warehouse.Column{Name: name, Kind: warehouse.Kind(kind)})
	}
	return out
}

func result(columns []warehouse.Column, rows ...[]any) warehouse.Result {
	return warehouse.Result{Columns: columns, Rows: rows, RowCount: len(rows)}
}

func TestChoose(t *testing.T) {
	t.Parallel()
	publishers := result(cols("publisher:text", "games:number"),
		[]any{"Big Fish Games", int64(213)}, []any{"Strategy First", int64(136)}, []any{"Ubisoft", int64(111)})
	s, ok := Choose(publishers, "Which publishers released the most games?", Hint{})
	require.True(t, ok)
	assert.Equal(t, Spec{Type: Bar, Title: "Games by publisher", Categories: []string{"Big Fish Games", "Strategy First", "Ubisoft"},
		Series: []Series{{Name: "Games", Values: []float64{213, 136, 111}}}, XLabel: "Publisher", YLabel: "Games"}, s)

	s, ok = Choose(publishers, "What share of games does each publisher have?", Hint{})
	require.True(t, ok)
	assert.Equal(t, Pie, s.Type, "parts of a whole")
	s, ok = Choose(publishers, "Breakdown by publisher", Hint{Title: "Games per publisher, top three"})
	require.True(t, ok)
	assert.Equal(t, "Games per publisher, top three", s.Title, "the given title")

	// Years read as numbers are an axis, ordered, every one of them; Slack's
	// block takes the last 20 and says so.
	var years [][]any
	for y := 2019; y >= 1997; y-- {
		years = append(years, []any{int64(y), int64(y - 1990)})
	}
	s, ok = Choose(result(cols("release_year:number", "games:number"), years...), "How many games were released per year?", Hint{})
	require.True(t, ok)
	assert.Equal(t, Line, s.Type)
	require.Len(t, s.Categories, 23, "the whole series")
	assert.Equal(t, "1997", s.Categories[0], "ordered")
	assert.Equal(t, "2019", s.Categories[22])
	assert.Equal(t, "Release year", s.XLabel)
	assert.Empty(t, s.Partial, "no period marked partial unless the model says so")
	slack := ForSlack(s)
	require.Len(t, slack.Categories, MaxCategories)
	assert.Equal(t, "2000", slack.Categories[0], "Slack's block: the last 20")
	assert.Equal(t, float64(29), slack.Series[0].Values[19])
	assert.Equal(t, "Release year (last 20 of 23)", slack.XLabel)
	assert.True(t, strings.HasPrefix(slack.Text(), "Games by release year (last 20 of 23)\n"), slack.Text())
	assert.Len(t, s.Categories, 23, "ForSlack leaves the spec it was given whole")

	// The model may say the data covers the last (or first) period only in
	// part; any other period it names is ignored.
	s, ok = Choose(result(cols("release_year:number", "games:number"), years...), "per year", Hint{Partial: "2019"})
	require.True(t, ok)
	assert.Equal(t, "2019", s.Partial)
	s, ok = Choose(result(cols("release_year:number", "games:number"), years...), "per year", Hint{Partial: "2010"})
	require.True(t, ok)
	assert.Empty(t, s.Partial, "a period in the middle is not partial")

	// Dates, decimal strings.
	s, ok = Choose(result(cols("month:time", "revenue:number"),
		[]any{"2024-02-01", "10.50"}, []any{"2024-01-01", "7.25"}), "Revenue per month", Hint{})
	require.True(t, ok)
	assert.Equal(t, Line, s.Type)
	assert.Equal(t, []string{"2024-01-01", "2024-02-01"}, s.Categories)
	assert.Equal(t, []float64{7.25, 10.5}, s.Series[0].Values)

	// Two dimensions and a measure: a series per value of the second.
	s, ok = Choose(result(cols("year:number", "platform:text", "games:number"),
		[]any{int64(2018), "linux", int64(5)}, []any{int64(2018), "mac", int64(7)},
		[]any{int64(2017), "linux", int64(4)}, []any{int64(2017), "mac", int64(6)}), "Games per year and platform", Hint{})
	require.True(t, ok)
	assert.Equal(t, Line, s.Type)
	assert.Equal(t, []string{"2017", "2018"}, s.Categories)
	assert.Equal(t, []Series{{Name: "linux", Values: []float64{4, 5}}, {Name: "mac", Values: []float64{6, 7}}}, s.Series)

	// Measures on different scales: only the first is charted.
	s, ok = Choose(result(cols("name:text", "positive_ratings:number", "positive_pct:number"),
		[]any{"CS:GO", int64(2644404), "86.80"}, []any{"Dota 2", int64(863507), "85.87"}), "Most positive ratings", Hint{})
	require.True(t, ok)
	require.Len(t, s.Series, 1)
	assert.Equal(t, "Positive ratings", s.Series[0].Name)

	none := map[string]warehouse.Result{
		"one value":  result(cols("games:number"), []any{int64(8160)}),
		"one row":    result(cols("publisher:text", "games:number"), []any{"Valve", int64(30)}),
		"no measure": result(cols("name:text", "developer:text"), []any{"a", "b"}, []any{"c", "d"}),
		"a null":     result(cols("genre:text", "avg:number"), []any{"RPG", nil}, []any{"Indie", "3.5"}),
		"json":       result(cols("genre:text", "data:other", "n:number"), []any{"RPG", "{}", int64(1)}, []any{"x", "{}", int64(2)}),
		"missing pair": result(cols("year:number", "platform:text", "games:number"),
			[]any{int64(2018), "linux", int64(5)}, []any{int64(2017), "mac", int64(6)}),
	}
	var many [][]any
	for i := range 21 {
		many = append(many, []any{fmt.Sprintf("genre %d", i), int64(i)})
	}
	none["21 categories"] = result(cols("genre:text", "games:number"), many...)
	for name, r := range none {
		_, ok := Choose(r, "question", Hint{})
		assert.False(t, ok, name)
	}

	// Two labels alike in their first 20 characters: whole on the page,
	// kept apart in Slack's block.
	s, ok = Choose(result(cols("name:text", "n:number"),
		[]any{"A very long game name, part one", int64(1)}, []any{"A very long game name, part two", int64(2)}), "question", Hint{})
	require.True(t, ok)
	assert.Equal(t, []string{"A very long game name, part one", "A very long game name, part two"}, s.Categories)
	assert.Equal(t, []string{"A very long game na…", "A very long game… 2"}, ForSlack(s).Categories)
}

// Every chart keeps Slack's limits once ForSlack has cut it, whatever the
// data; the spec itself keeps its labels whole for the other surfaces.
func TestChooseKeepsLimits(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 80)
	var rows [][]any
	for i := range 6 {
		rows = append(rows, []any{fmt.Sprintf("%d %s", i, long), int64(i + 1)})
	}
	s, ok := Choose(result(cols("a_very_long_column_name_that_goes_on_and_on_for_ever:text", long+":number"), rows...), "share", Hint{Title: long})
	require.True(t, ok)
	assert.Equal(t, "0 "+long, s.Categories[0], "the spec's labels are whole")
	s = ForSlack(s)
	assert.LessOrEqual(t, len([]rune(s.Title)), MaxTitle)
	for _, c := range s.Categories {
		assert.LessOrEqual(t, len([]rune(c)), MaxLabel, c)
	}
	assert.Equal(t, "0 xxxxxxxxxxxxxxxxx…", s.Categories[0])
	dup := ForSlack(Spec{Type: Bar, Categories: []string{long + "a", long + "b"}, Series: []Series{{Name: "n", Values: []float64{1, 2}}}})
	assert.Equal(t, []string{"xxxxxxxxxxxxxxxxxxx…", "xxxxxxxxxxxxxxxxx… 2"}, dup.Categories, "cut labels kept apart")
	for _, ser := range s.Series {
		assert.LessOrEqual(t, len([]rune(ser.Name)), MaxLabel, ser.Name)
	}
	assert.LessOrEqual(t, len([]rune(s.XLabel)), MaxAxisLabel)
}

func TestText(t *testing.T) {
	t.Parallel()
	s := Spec{Type: Bar, Title: "Games by publisher", Categories: []string{"Big Fish Games", "Ubisoft"},
		Series: []Series{{Name: "Games", Values: []float64{2130, 1065}}}}
	assert.Equal(t, "Games by publisher\n"+
		"  Big Fish Games  "+strings.Repeat("█", 30)+" 2,130\n"+
		"  Ubisoft         "+strings.Repeat("█", 15)+strings.Repeat(" ", 15)+" 1,065", s.Text())
	s.Type = Pie
	assert.Contains(t, s.Text(), "2,130 (67 %)")
	assert.Equal(t, "-1,234,567.89", FormatNumber(-1234567.891))
	assert.Equal(t, "86.8", FormatNumber(86.80))
	assert.Equal(t, "0.0042", FormatNumber(0.0042), "not 0")
	assert.Equal(t, "-0.0012", FormatNumber(-0.0012))
	assert.Equal(t, "0", FormatNumber(math.Copysign(0, -1)), "no -0")
	assert.Equal(t, "0.01", FormatNumber(0.0149))
	assert.Equal(t, "0.00005", FormatNumber(0.00005), "no exponent")
	assert.Equal(t, "0.0000001", FormatNumber(1e-7))
}

// The model's proposal is taken where it fits the data, and never where
// it does not.
func TestChooseHint(t *testing.T) {
	t.Parallel()
	publishers := result(cols("publisher:text", "games:number"),
		[]any{"Big Fish Games", int64(213)}, []any{"Strategy First", int64(136)}, []any{"Ubisoft", int64(111)})
	s, ok := Choose(publishers, "Which publishers released the most games?", Hint{Type: "pie", Title: "Who publishes most"})
	require.True(t, ok)
	assert.Equal(t, Pie, s.Type)
	assert.Equal(t, "Who publishes most", s.Title)
	s, ok = Choose(publishers, "q", Hint{Type: "line"})
	require.True(t, ok)
	assert.Equal(t, Bar, s.Type, "no line over categories")
	_, ok = Choose(publishers, "q", Hint{Type: "none"})
	assert.False(t, ok, "the model may decline a chart")
	_, ok = Choose(result(cols("games:number"), []any{int64(1)}), "q", Hint{Type: "bar"})
	assert.False(t, ok, "nor force one on a single value")

	years := result(cols("year:number", "games:number"), []any{int64(2017), int64(5)}, []any{int64(2018), int64(-1)})
	s, ok = Choose(years, "q", Hint{Type: "area"})
	require.True(t, ok)
	assert.Equal(t, Area, s.Type)
	s, ok = Choose(years, "q", Hint{Type: "pie"})
	require.True(t, ok)
	assert.Equal(t, Line, s.Type, "no pie of a negative value")
}

// The README's bounds, held at the bound and one past it: a pie of up to
// 6 parts (asked for or hinted), up to 6 series, whether from measures
// or from a second category. The numbers are README's, not the constants,
// so that a change to either is seen.
func TestChooseBounds(t *testing.T) {
	t.Parallel()
	parts := func(n int) warehouse.Result {
		var rows [][]any
		for i := range n {
			rows = append(rows, []any{fmt.Sprintf("genre %d", i), int64(10 + i)})
		}
		return result(cols("genre:text", "games:number"), rows...)
	}
	topShares := func(vs ...float64) warehouse.Result {
		var rows [][]any
		for i, v := range vs {
			rows = append(rows, []any{fmt.Sprintf("genre %d", i), v})
		}
		return result(cols("genre:text", "share_pct:number"), rows...)
	}
	cut := func(r warehouse.Result) warehouse.Result {
		r.Truncated = true
		return r
	}
	const share = "What share of games does each genre have?"
	tests := []struct {
		name string
		r    warehouse.Result
		hint Hint
		want Type
	}{
		{name: "6 parts asked as a share", r: parts(6), want: Pie},
		{name: "7 parts asked as a share", r: parts(7), want: Bar},
		{name: "6 parts hinted as a pie", r: parts(6), hint: Hint{Type: "pie"}, want: Pie},
		{name: "7 parts hinted as a pie", r: parts(7), hint: Hint{Type: "pie"}, want: Bar},
		// A pie draws each slice's share of the slices' sum: right only
		// when the rows are the whole.
		{name: "shares that are not the whole", r: topShares(30, 20, 10), want: Bar},
		{name: "shares that are not the whole, hinted as a pie", r: topShares(30, 20, 10), hint: Hint{Type: "pie"}, want: Bar},
		{name: "shares of the whole", r: topShares(50, 30, 20), want: Pie},
		{name: "fractions of the whole", r: topShares(0.5, 0.3, 0.2), want: Pie},
		{name: "a result cut short", r: cut(parts(6)), want: Bar},
		{name: "rounded shares of the whole", r: topShares(17, 17, 17, 17, 17, 17), want: Pie},
		{name: "rounded fractions of the whole", r: topShares(0.17, 0.17, 0.17, 0.17, 0.17, 0.17), want: Pie},
		{name: "a count named shares is no share", r: result(cols("genre:text", "shares:number"),
			[]any{"a", int64(30)}, []any{"b", int64(20)}, []any{"c", int64(10)}), want: Pie},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			question := share
			if tt.hint.Type != "" {
				question = "Games per genre"
			}
			s, ok := Choose(tt.r, question, tt.hint)
			require.True(t, ok)
			assert.Equal(t, tt.want, s.Type)
		})
	}

	measures := func(n int) warehouse.Result {
		spec := []string{"genre:text"}
		row := []any{"Action"}
		for i := range n {
			spec = append(spec, fmt.Sprintf("measure_%d:number", i))
			row = append(row, int64(10+i))
		}
		other := append([]any{"Indie"}, row[1:]...)
		return result(cols(spec...), row, other)
	}
	s, ok := Choose(measures(6), "q", Hint{})
	require.True(t, ok, "6 measures")
	assert.Len(t, s.Series, 6)
	_, ok = Choose(measures(7), "q", Hint{})
	assert.False(t, ok, "no chart of 7 measures")

	pivoted := func(n int) warehouse.Result {
		var rows [][]any
		for _, year := range []string{"2017", "2018"} {
			for i := range n {
				rows = append(rows, []any{year, fmt.Sprintf("platform %d", i), int64(i + 1)})
			}
		}
		return result(cols("year:text", "platform:text", "games:number"), rows...)
	}
	s, ok = Choose(pivoted(6), "q", Hint{})
	require.True(t, ok, "a second category of 6 values")
	assert.Len(t, s.Series, 6)
	_, ok = Choose(pivoted(7), "q", Hint{})
	assert.False(t, ok, "no chart of 7 series")
}

// Slack refuses a chart with a series, category or axis label of no
// characters, and a column named "_" or a blank text value would make
// one: each is named instead ("Value", "(blank)").
func TestChooseNamesWhatHasNoName(t *testing.T) {
	t.Parallel()
	s, ok := Choose(result(cols("region:text", "_:number"), []any{"north", int64(3)}, []any{"", int64(5)}, []any{"south", int64(4)}), "sales by region", Hint{})
	require.True(t, ok)
	s = ForSlack(s)
	assert.Equal(t, []string{"north", "(blank)", "south"}, s.Categories)
	require.Len(t, s.Series, 1)
	assert.Equal(t, "Value", s.Series[0].Name)
	assert.Equal(t, "Value", s.YLabel)
	assert.Equal(t, "Value by region", s.Title)

	s, ok = Choose(result(cols("year:number", "kind:text", " :number"),
		[]any{int64(2020), "", int64(1)}, []any{int64(2020), "b", int64(2)},
		[]any{int64(2021), "", int64(3)}, []any{int64(2021), "b", int64(4)}), "by year and kind", Hint{})
	require.True(t, ok)
	var names []string
	for _, ser := range ForSlack(s).Series {
		names = append(names, ser.Name)
	}
	assert.Equal(t, []string{"(blank)", "b"}, names, "a blank value names a series too")
}

// A timestamp column truncated to days (no time zone, so no "Z") labels
// its points as dates; one with times of day keeps them all.
func TestChooseMidnightLabels(t *testing.T) {
	t.Parallel()
	s, ok := Choose(result(cols("day:time", "orders:number"),
		[]any{"2024-01-01T00:00:00", int64(3)}, []any{"2024-01-02T00:00:00", int64(5)}), "orders per day", Hint{})
	require.True(t, ok)
	assert.Equal(t, []string{"2024-01-01", "2024-01-02"}, s.Categories)

	s, ok = Choose(result(cols("hour:time", "orders:number"),
		[]any{"2024-01-01T00:00:00", int64(3)}, []any{"2024-01-01T01:00:00", int64(5)}), "orders per hour", Hint{})
	require.True(t, ok)
	assert.Equal(t, []string{"2024-01-01T00:00:00", "2024-01-01T01:00:00"}, s.Categories, "hours keep their times")
}
