package nodes

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// inventedNumbers returns the numbers in answer that appear neither in the
// result, nor in the question or its SQL (a year the model resolved "last
// year" to), nor as the row count. A number appears there when a number
// there, rounded to 0, 1 or 2 decimals, is the same number ("3.14" quotes
// 3.14159, "8,160" quotes 8160). Numbers up to 10 pass: they are ranks and
// counts of things the table shows ("the top 3"). Only int64, float64 and
// string cells are read; arrays, booleans and NULLs hold no number here.
//
// The cost follows the answer, not the result: the answer's numbers are read
// first, an answer quoting none above 10 returns at once, and the result is
// read only until each quoted number has been seen. Reading every cell of a
// wide result (2,000 rows × 61 text columns) took ~1 s on every answer.
func inventedNumbers(answer string, r warehouse.Result, context string) []string {
	type quote struct {
		text  string
		value float64
	}
	var (
		quotes []quote
		search numberSearch
	)
	eachNumber(answer, func(m string) bool {
		if f, ok := parseNumber(m); ok && math.Abs(f) > 10 {
			quotes = append(quotes, quote{m, f})
			if !slices.Contains(search.missing, f) {
				search.missing = append(search.missing, f)
			}
		}
		return true
	})
	if len(quotes) == 0 {
		return nil
	}
	search.find(r, context)
	var bad []string
	for _, q := range quotes {
		if slices.Contains(search.missing, q.value) {
			bad = append(bad, q.text)
		}
	}
	return bad
}

// numberSearch holds the numbers of an answer not seen yet. An answer
// quotes few numbers, so a slice beats a map here: most numbers of a
// result are crossed off as too far from every one of them without being
// rounded or hashed. Numbers are compared as float64 values: two of them
// print alike (strconv's shortest form) exactly when they are equal, apart
// from 0 and -0, and an answer's number is never 0 here.
type numberSearch struct {
	missing []float64
}

// find reads the row count, context and then the result's cells in order
// until every number has been seen.
func (s *numberSearch) find(r warehouse.Result, context string) {
	if s.see(float64(r.RowCount)) || s.seeText(context) {
		return
	}
	for _, row := range r.Rows {
		for _, v := range row {
			var done bool
			switch v := v.(type) {
			case int64:
				done = s.see(float64(v))
			case float64:
				done = s.see(v)
			case string:
				done = s.seeText(v)
			}
			if done {
				return
			}
		}
	}
}

// see crosses off the numbers that f is, rounded to 0, 1 or 2 decimals,
// and reports whether nothing is left to find.
func (s *numberSearch) see(f float64) bool {
	for i := 0; i < len(s.missing); {
		if t := s.missing[i]; roundsTo(f, t) {
			s.missing = slices.Delete(s.missing, i, i+1)
		} else {
			i++
		}
	}
	return len(s.missing) == 0
}

// roundsTo reports whether f rounded to 0, 1 or 2 decimals is t. Rounding
// moves a number by at most 0.5 (plus float64's error, a tiny fraction of
// it), so a number further from t is never rounded at all.
func roundsTo(f, t float64) bool {
	if math.Abs(f-t) > 0.5+math.Abs(t)*1e-9 {
		return false
	}
	return round(f, 0) == t || round(f, 1) == t || round(f, 2) == t
}

// seeText sees each number written in text, and reports whether nothing is
// left to find.
func (s *numberSearch) seeText(text string) bool {
	done := false
	eachNumber(text, func(m string) bool {
		if f, ok := parseNumber(m); ok {
			done = s.see(f)
		}
		return !done
	})
	return done
}

// eachNumber calls yield with each number written in text, left to right,
// as the regular expression -?\d[\d,]*(?:\.\d+)? finds them ("-1,234.5",
// "2019", "-04"), until yield returns false. It is that expression written
// by hand: the check reads the text of every cell it searches, and the
// regexp package took most of its time. \d is an ASCII digit, and no byte
// of a multi-byte UTF-8 character is one, so reading bytes reads the same
// numbers as reading characters.
func eachNumber(text string, yield func(string) bool) {
	i := 0
	for i < len(text) {
		start := i
		switch {
		case isDigit(text[i]):
		case text[i] == '-' && i+1 < len(text) && isDigit(text[i+1]):
			i++
		default:
			i++
			continue
		}
		for i < len(text) && (isDigit(text[i]) || text[i] == ',') {
			i++
		}
		if i+1 < len(text) && text[i] == '.' && isDigit(text[i+1]) {
			i += 2
			for i < len(text) && isDigit(text[i]) {
				i++
			}
		}
		if !yield(text[start:i]) {
			return
		}
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// parseNumber reads a number as eachNumber finds it, commas dropped.
func parseNumber(s string) (float64, bool) {
	// A comma after a number ("lot 100, shipped") is common in text and
	// trimming it costs no allocation, unlike dropping commas inside.
	s = strings.TrimRight(s, ",")
	if strings.IndexByte(s, ',') >= 0 {
		s = strings.ReplaceAll(s, ",", "")
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

func round(f float64, decimals int) float64 {
	p := math.Pow10(decimals)
	return math.Round(f*p) / p
}
