package nodes

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/warehousetest"
)

// numberPattern is what eachNumber finds, as the check used to find it.
var numberPattern = regexp.MustCompile(`-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?(?:(?:k|K|m|M|bn|b|B)\b| ?(?i:thousand|million|billion|trillion)\b)?`)

// findNumbers finds the numbers in text as numberPattern does, a hyphen
// after a letter, digit or underscore read as no minus sign ("25-34" is
// 25 and 34): Go's regular expressions cannot look behind.
func findNumbers(text string) []string {
	var out []string
	for _, m := range numberPattern.FindAllStringIndex(text, -1) {
		start := m[0]
		if text[start] == '-' && start > 0 && isWordByte(text[start-1]) {
			start++
		}
		out = append(out, text[start:m[1]])
	}
	return out
}

// inventedNumbersByFullScan is the check as it was before it searched for
// the answer's numbers only: every number of the result, the context and
// the row count is read first, and each quoted number looked up among
// their roundings at its scale. inventedNumbers must give the same answer
// on every input.
func inventedNumbersByFullScan(answer string, r warehouse.Result, context string) []string {
	seen := []float64{float64(r.RowCount)}
	addText := func(text string) {
		for _, m := range findNumbers(text) {
			if f, ok := parseNumber(m); ok {
				seen = append(seen, f.value())
			}
		}
	}
	addText(context)
	for _, row := range r.Rows {
		for _, v := range row {
			switch v := v.(type) {
			case int64:
				seen = append(seen, float64(v))
			case float64:
				seen = append(seen, v)
			case string:
				addText(v)
			}
		}
	}
	var bad []string
	for _, m := range findNumbers(answer) {
		f, ok := parseNumber(m)
		if !ok || f.scale == 1 && math.Abs(f.written) <= 10 {
			continue
		}
		known := map[float64]bool{}
		for _, v := range seen {
			for _, d := range []int{0, 1, 2} {
				known[round(v/f.scale, d)] = true
				if f.scale != 1 {
					known[round(v, d)] = true // its written digits
				}
			}
		}
		if !known[f.written] {
			bad = append(bad, m)
		}
	}
	return bad
}

func TestInventedNumbersEdgeCases(t *testing.T) {
	t.Parallel()
	res := warehouse.Result{
		Columns: []warehouse.Column{{Name: "name"}, {Name: "score"}, {Name: "n"}, {Name: "tags"}, {Name: "ok"}},
		Rows: [][]any{
			{"Alpha, released 2019-04-01", 12.3456, int64(-15), []any{int64(777)}, true},
			{nil, 1e300, int64(9007199254740993), []any{"888"}, false},
			{"last row: 4,321.5 units", nil, nil, nil, nil},
		},
		RowCount: 3,
	}
	const context = "Scores since 2015?\nSELECT name, score FROM t WHERE year >= 2015"
	tests := []struct {
		name, answer string
		want         []string
	}{
		{name: "no number at all", answer: "Alpha leads.", want: nil},
		{name: "only numbers up to 10", answer: "The top 3 of 10, -7 and 9.99.", want: nil},
		{name: "number just above 10 must be found", answer: "It scored 10.01.", want: []string{"10.01"}},
		{name: "rounded to 0, 1 and 2 decimals", answer: "Scores 12, 12.3 and 12.35.", want: nil},
		{name: "not a rounding of the cell", answer: "It scored 12.346.", want: []string{"12.346"}},
		{name: "negative integer cell", answer: "A change of -15.", want: nil},
		{name: "sign matters", answer: "A change of 15.", want: []string{"15"}},
		{name: "digits inside a text cell", answer: "Released in 2019.", want: nil},
		{name: "part of a longer number is not quoted", answer: "About 321 units.", want: []string{"321"}},
		{name: "thousands separator either way", answer: "4321.5 units, or 4,321.5.", want: nil},
		{name: "only the last row holds it", answer: "In all 4,322 units.", want: nil},
		{name: "from the context", answer: "Since 2015.", want: nil},
		{name: "huge float cell written out", answer: "Up to 1" + strings.Repeat("0", 300) + ".", want: nil},
		{name: "not the huge float cell", answer: "Up to 1" + strings.Repeat("0", 21) + ".", want: []string{"1" + strings.Repeat("0", 21)}},
		{name: "int64 beyond float precision", answer: "Id 9007199254740992.", want: nil},
		{name: "arrays and booleans hold no numbers", answer: "Tags 777 and 888.", want: []string{"777", "888"}},
		{name: "each invented quote is reported, in order", answer: "99 then 12 then 99 then 4,000.", want: []string{"99", "99", "4,000"}},
		{name: "found and invented mixed", answer: "2019: 12.35 of 55.5.", want: []string{"55.5"}},
		{name: "unicode around numbers", answer: "€2019 — ≈ 12.3 × 31", want: []string{"31"}},
		{name: "a scale word makes a small number large", answer: "*9.9 million* games.", want: []string{"9.9 million"}},
		{name: "a scale suffix too", answer: "Up to 8.2k, $2bn or 33M.", want: []string{"8.2k", "$2bn"[1:], "33M"}},
		{name: "an exponent", answer: "About 1e6 units.", want: []string{"1e6"}},
		{name: "a scale rounds the cell in its unit", answer: "About 4.3k units, or 4 thousand.", want: nil},
		{name: "a scaled number found as its written digits", answer: "12.3 thousand points, 12m long.", want: nil},
		{name: "a scaled number found neither way", answer: "13.7 thousand points.", want: []string{"13.7 thousand"}},
		{name: "letters after the suffix are no scale", answer: "It weighs 9kg, 13 kilos.", want: []string{"13"}},
		{name: "a range with a hyphen", answer: "Mostly aged 2015-2019.", want: nil},
		{name: "a hyphen after a letter", answer: "Rated PG-2015.", want: nil},
		{name: "a minus after a space", answer: "A change of -2015.", want: []string{"-2015"}},
		{name: "a date's parts", answer: "Released 2019-04-01: 12.35.", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := inventedNumbers(tt.answer, res, context)
			if !slices.Equal(got, tt.want) {
				t.Errorf("inventedNumbers(%q) = %q, want %q", tt.answer, got, tt.want)
			}
			if old := inventedNumbersByFullScan(tt.answer, res, context); !slices.Equal(got, old) {
				t.Errorf("inventedNumbers(%q) = %q, but the full scan says %q", tt.answer, got, old)
			}
		})
	}
}

// On a wide result the check agrees with the full scan whether the number
// is in the first row, only in the last, or nowhere.
func TestInventedNumbersWideAgreesWithFullScan(t *testing.T) {
	t.Parallel()
	res := warehousetest.WideResult(50, warehousetest.WideColumns)
	for _, answer := range []string{
		"Nothing to quote here.",
		"The first item is Item 1000.",
		"The last item is Item 1049, lot 160.",
		"Together 123,456 kg, or 1049.5 kg.",
	} {
		got, want := inventedNumbers(answer, res, ""), inventedNumbersByFullScan(answer, res, "")
		if !slices.Equal(got, want) {
			t.Errorf("inventedNumbers(%q) = %q, but the full scan says %q", answer, got, want)
		}
	}
}

func TestInventedNumbersRowCount(t *testing.T) {
	t.Parallel()
	res := warehouse.Result{Columns: []warehouse.Column{{Name: "n"}}, Rows: [][]any{{int64(1)}}, RowCount: 1234}
	for _, tt := range []struct {
		answer string
		want   []string
	}{
		{"There are 1,234 rows.", nil},
		{"There are 1,235 rows.", []string{"1,235"}},
	} {
		if got := inventedNumbers(tt.answer, res, ""); !slices.Equal(got, tt.want) {
			t.Errorf("inventedNumbers(%q) with 1,234 rows = %q, want %q", tt.answer, got, tt.want)
		}
	}
}

func TestEachNumberStops(t *testing.T) {
	t.Parallel()
	var got []string
	eachNumber("1, 22, 333", func(m string) bool {
		got = append(got, m)
		return len(got) < 2
	})
	if want := []string{"1,", "22,"}; !slices.Equal(got, want) {
		t.Errorf("eachNumber stopping after two = %q, want %q", got, want)
	}
}

// FuzzInventedNumbers holds eachNumber to the regular expression it
// replaces and inventedNumbers to the full scan:
//
//	go test -run '^$' -fuzz FuzzInventedNumbers -fuzztime 60s ./nodes/
func FuzzInventedNumbers(f *testing.F) {
	f.Add("Action has 8,160 games at £7.46; -12.5 and 1,2,3.", "Action 8160 7.4567 -12.499", int64(12000), 3.14159, "2017")
	f.Add("-0.5 -- 1..2 ,3 12.", "12.004", int64(-1), math.Inf(1), "")
	f.Add("\xff9\xc3\xa9-1", "-", int64(0), math.NaN(), "-\xff1")
	f.Fuzz(func(t *testing.T, answer, cell string, n int64, x float64, context string) {
		var got []string
		eachNumber(answer, func(m string) bool { got = append(got, m); return true })
		if want := findNumbers(answer); !slices.Equal(got, want) {
			t.Fatalf("eachNumber(%q) = %q, the pattern finds %q", answer, got, want)
		}
		res := warehouse.Result{Rows: [][]any{{cell, n, x, nil, true, []any{n}}}, RowCount: 1}
		if got, want := inventedNumbers(answer, res, context), inventedNumbersByFullScan(answer, res, context); !slices.Equal(got, want) {
			t.Fatalf("inventedNumbers(%q, %q, %d, %v, %q) = %q, the full scan says %q", answer, cell, n, x, context, got, want)
		}
	})
}
