package answer

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

func TestNumbersAsTable(t *testing.T) {
	t.Parallel()
	num := warehouse.KindNumber
	perYear := &warehouse.Result{
		Columns: []warehouse.Column{{Name: "release_year", Kind: num}, {Name: "games", Kind: num}},
		Rows:    [][]any{{int64(2017), int64(6357)}, {int64(2018), int64(8160)}, {int64(2019), int64(2213)}},
	}
	ratings := &warehouse.Result{
		Columns: []warehouse.Column{{Name: "name", Kind: warehouse.KindText}, {Name: "positive_ratings", Kind: num}, {Name: "avg_price_gbp", Kind: num}},
		Rows:    [][]any{{"Counter-Strike: Global Offensive", int64(2644404), 1234.5}},
	}
	tests := []struct {
		name string
		r    *warehouse.Result
		in   Text
		want Text
	}{
		{name: "a count gets separators, its year does not", r: perYear,
			in:   Text{{Text: "8160", Bold: true}, {Text: " games were released on Steam in 2018."}},
			want: Text{{Text: "8,160", Bold: true}, {Text: " games were released on Steam in 2018."}}},
		{name: "several numbers in one span", r: perYear,
			in:   Text{{Text: "From 6357 in 2017 to 8160 in 2018, then 2213."}},
			want: Text{{Text: "From 6,357 in 2017 to 8,160 in 2018, then 2,213."}}},
		{name: "the value of the sentence's cell", r: ratings,
			in:   Text{{Text: "It has "}, {Text: "2644404", Bold: true}, {Text: " positive reviews at £1234.50 on average."}},
			want: Text{{Text: "It has "}, {Text: "2,644,404", Bold: true}, {Text: " positive reviews at £1,234.50 on average."}}},
		{name: "a number the result does not hold stays", r: perYear,
			in: Text{{Text: "Steam lists 27075 games."}}, want: Text{{Text: "Steam lists 27075 games."}}},
		{name: "already separated, code, links and words stay", r: perYear,
			in:   Text{{Text: "8,160 or v8160 or 8160x; "}, {Text: "8160", Code: true}, {Text: "8160", Link: "https://x.test/8160"}},
			want: Text{{Text: "8,160 or v8160 or 8160x; "}, {Text: "8160", Code: true}, {Text: "8160", Link: "https://x.test/8160"}}},
		{name: "a value that is also a year is left as written", r: &warehouse.Result{
			Columns: []warehouse.Column{{Name: "year", Kind: num}, {Name: "games", Kind: num}},
			Rows:    [][]any{{int64(2018), int64(2017)}, {int64(2017), int64(5000)}}},
			in: Text{{Text: "2017 games in 2018, 5000 in 2017"}}, want: Text{{Text: "2017 games in 2018, 5,000 in 2017"}}},
		{name: "no result", r: &warehouse.Result{}, in: Text{{Text: "8160"}}, want: Text{{Text: "8160"}}},
		{name: "dates stay as written", r: &warehouse.Result{
			Columns: []warehouse.Column{{Name: "games", Kind: num}},
			Rows:    [][]any{{int64(2024)}, {int64(1512)}}},
			in:   Text{{Text: "Since 2024-01-15 (15/12/2024, 2024/01): 2024 games, 1512 more."}},
			want: Text{{Text: "Since 2024-01-15 (15/12/2024, 2024/01): 2,024 games, 1,512 more."}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, NumbersAsTable(tc.in, NewTable(tc.r)))
		})
	}
}

func TestLabel(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{name: "currency unit", in: "avg_price_gbp", want: "Avg price (GBP)"},
		{name: "snake case", in: "positive_ratings", want: "Positive ratings"},
		{name: "one word", in: "games", want: "Games"},
		{name: "percent", in: "share_pct", want: "Share (%)"},
		{name: "acronym", in: "app_id", want: "App ID"},
		{name: "camel case", in: "positiveRatings", want: "Positive ratings"},
		{name: "a unit alone is a word", in: "usd", want: "USD"},
		{name: "written for people", in: "Total revenue", want: "Total revenue"},
		{name: "unnamed expression", in: "?column?", want: "?column?"},
		{name: "capitals", in: "RELEASE_YEAR", want: "Release year"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, Label(tc.in))
		})
	}
}
