package nodes

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// inventedNumbers returns the numbers in answer that appear neither in the
// result, nor in the question or its query (a year the model resolved "last
// year" to; the query's comments do not count), nor as the row count. A
// number appears there when a number there, rounded to 0, 1 or 2 decimals,
// is the same number ("3.14" quotes 3.14159, "8,160" quotes 8160). A number
// written with a scale ("9.9 million", "8.2k", "$1.5bn") is read with it
// and rounded in it, or found as its written digits (data kept in
// millions, "12m" minutes): "9.9 million" quotes 9,874,321 or 9.9, not
// 8,160.
// Numbers up to 10 written without a scale pass: they are ranks and counts
// of things the table shows ("the top 3"). Only int64, float64 and string
// cells are read; arrays, booleans and NULLs hold no number here.
//
// The cost follows the answer, not the result: the answer's numbers are read
// first, an answer quoting none above 10 returns at once, and the result is
// read only until each quoted number has been seen. Reading every cell of a
// wide result (2,000 rows × 61 text columns) took ~1 s on every answer.
func inventedNumbers(answer string, r warehouse.Result, context string) []string {
	type quote struct {
		text string
		figure
	}
	var (
		quotes []quote
		search numberSearch
	)
	eachNumber(answer, func(m string) bool {
		if f, ok := parseNumber(m); ok && (f.scale != 1 || math.Abs(f.written) > 10) {
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
		if slices.Contains(search.missing, q.figure) {
			bad = append(bad, q.text)
		}
	}
	return bad
}

// figure is a number as written: 9.9 at a scale of 1e6 for "9.9 million",
// 8160 at a scale of 1 for "8,160".
type figure struct {
	written, scale float64
}

// value is the number the figure stands for.
func (f figure) value() float64 { return f.written * f.scale }

// numberSearch holds the numbers of an answer not seen yet. An answer
// quotes few numbers, so a slice beats a map here: most numbers of a
// result are crossed off as too far from every one of them without being
// rounded or hashed. Numbers are compared as float64 values: two of them
// print alike (strconv's shortest form) exactly when they are equal, apart
// from 0 and -0, and an answer's number is never 0 here.
type numberSearch struct {
	missing []figure
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

// see crosses off the figures that f is, rounded to 0, 1 or 2 decimals at
// the figure's scale, and reports whether nothing is left to find.
func (s *numberSearch) see(f float64) bool {
	for i := 0; i < len(s.missing); {
		// A scaled figure is found as its value ("9.9 million" in
		// 9,874,321) or as its written digits (12.5 in a column of
		// millions, "12m" minutes, "3k" of a cell of 3).
		if t := s.missing[i]; roundsTo(f/t.scale, t.written) || t.scale != 1 && roundsTo(f, t.written) {
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
			done = s.see(f.value())
		}
		return !done
	})
	return done
}

// eachNumber calls yield with each number written in text, left to right,
// as the regular expression
//
//	-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?(?:(?:k|K|m|M|bn|b|B)\b| ?(?i:thousand|million|billion|trillion)\b)?
//
// finds them ("-1,234.5", "2019", "1e6", "8.2k", "9.9 million"), except
// that a hyphen right after a letter, digit or underscore is no minus
// sign ("aged 25-34" is 25 and 34, "2019-04" is 2019 and 04), until yield
// returns false. It is that expression written by hand: the
// check reads the text of every cell it searches, and the regexp package
// took most of its time. \d is an ASCII digit, and no byte of a multi-byte
// UTF-8 character is one, so reading bytes reads the same numbers as
// reading characters.
func eachNumber(text string, yield func(string) bool) {
	i := 0
	for i < len(text) {
		start := i
		switch {
		case isDigit(text[i]):
		case text[i] == '-' && i+1 < len(text) && isDigit(text[i+1]) && (i == 0 || !isWordByte(text[i-1])):
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
		i += exponentLen(text[i:])
		i += scaleLen(text[i:])
		if !yield(text[start:i]) {
			return
		}
	}
}

// exponentLen is the length of the exponent ("e6", "E-3") text starts
// with, or 0.
func exponentLen(text string) int {
	if len(text) < 2 || text[0] != 'e' && text[0] != 'E' {
		return 0
	}
	i := 1
	if text[i] == '-' || text[i] == '+' {
		i++
	}
	if i == len(text) || !isDigit(text[i]) {
		return 0
	}
	for i < len(text) && isDigit(text[i]) {
		i++
	}
	return i
}

// scales are the words and suffixes a number may be written with, by how
// they are written after it: suffixes right after the number, words after
// a space or none (in any letter case); the first that fits is read, so
// "bn" comes before "b".
var scales = []struct {
	word  string
	scale float64
}{
	{"k", 1e3}, {"K", 1e3}, {"m", 1e6}, {"M", 1e6}, {"bn", 1e9}, {"b", 1e9}, {"B", 1e9},
	{"thousand", 1e3}, {"million", 1e6}, {"billion", 1e9}, {"trillion", 1e12},
}

// scaleLen is the length of the scale text starts with ("k", " million"),
// or 0: a suffix or word followed by a letter, digit or underscore ("kg",
// "millions" aside) is no scale.
func scaleLen(text string) int {
	for _, s := range scales {
		n := scaleAt(text, s.word)
		if n > 0 && (n == len(text) || !isWordByte(text[n])) {
			return n
		}
	}
	return 0
}

// scaleAt is the length of word at the start of text, or 0; a word of more
// than two letters may follow a space and be in any letter case.
func scaleAt(text, word string) int {
	if len(word) <= 2 {
		if strings.HasPrefix(text, word) {
			return len(word)
		}
		return 0
	}
	space := 0
	if strings.HasPrefix(text, " ") {
		space = 1
	}
	if len(text) >= space+len(word) && strings.EqualFold(text[space:space+len(word)], word) {
		return space + len(word)
	}
	return 0
}

func isWordByte(c byte) bool {
	return isDigit(c) || c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// parseNumber reads a number as eachNumber finds it: commas dropped, its
// scale read.
func parseNumber(s string) (figure, bool) {
	f := figure{scale: 1}
	if end := strings.LastIndexFunc(s, isNumberRune) + 1; end < len(s) {
		word := strings.TrimPrefix(s[end:], " ")
		for _, sc := range scales {
			if word == sc.word || len(sc.word) > 2 && strings.EqualFold(word, sc.word) {
				f.scale = sc.scale
				break
			}
		}
		s = s[:end]
	}
	// A comma after a number ("lot 100, shipped") is common in text and
	// trimming it costs no allocation, unlike dropping commas inside.
	s = strings.TrimRight(s, ",")
	if strings.IndexByte(s, ',') >= 0 {
		s = strings.ReplaceAll(s, ",", "")
	}
	var err error
	f.written, err = strconv.ParseFloat(s, 64)
	return f, err == nil
}

// isNumberRune reports whether r may end a number's digits: a digit or a
// comma (the scale words hold neither).
func isNumberRune(r rune) bool { return '0' <= r && r <= '9' || r == ',' }

func round(f float64, decimals int) float64 {
	p := math.Pow10(decimals)
	return math.Round(f*p) / p
}
