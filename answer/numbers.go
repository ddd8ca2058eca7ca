package answer

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxNumberRows bounds the rows NumbersAsTable reads for the values a
// sentence may quote: an answer quotes the rows it was shown.
const maxNumberRows = 1000

// NumbersAsTable writes the numbers of t that are values of the table's
// result as the table writes them: "8160 games" becomes "8,160 games" when
// 8160 is in a column the table separates, while a year (2018), an id or
// a number the result does not hold stays as written. Numbers keep their
// decimals and their unit as the sentence has them; code and links are left
// alone. It is the one place every surface's prose gets its separators.
func NumbersAsTable(t Text, tb *Table) Text {
	separated, kept := tb.numberValues()
	if len(separated) == 0 {
		return t
	}
	out := make(Text, len(t))
	for i, sp := range t {
		if !sp.Code && sp.Link == "" && sp.Mention == "" {
			sp.Text = separate(sp.Text, func(f float64) bool { return separated[f] && !kept[f] })
		}
		out[i] = sp
	}
	return out
}

// numberValues are the numbers of the result's shown rows: those in
// columns written with thousands separators, and those in number columns
// written without (years, ids), which a sentence may mean instead.
func (t *Table) numberValues() (separated, kept map[float64]bool) {
	separated, kept = map[float64]bool{}, map[float64]bool{}
	rows := t.r.Rows[:min(len(t.r.Rows), maxNumberRows)]
	for col, f := range t.cols {
		if !f.numeric {
			continue
		}
		into := kept
		if f.thousands {
			into = separated
		}
		for _, row := range rows {
			if v, ok := t.Number(row, col); ok {
				into[v] = true
			}
		}
	}
	return separated, kept
}

// separate puts thousands separators into the plain numbers of s that
// want says are the result's. A number is a run of digits with an
// optional decimal part, not touching a letter, a digit group of its own
// ("1,234", "v2") or another number ("1.2.3").
func separate(s string, want func(float64) bool) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !isASCIIDigit(s[i]) {
			i++
			continue
		}
		start := i
		for i < len(s) && isASCIIDigit(s[i]) {
			i++
		}
		if i+1 < len(s) && s[i] == '.' && isASCIIDigit(s[i+1]) {
			i++
			for i < len(s) && isASCIIDigit(s[i]) {
				i++
			}
		}
		num, whole := s[start:i], s[start:i]
		if dot := strings.IndexByte(num, '.'); dot >= 0 {
			whole = num[:dot]
		}
		if len(whole) > 3 && !glued(s, start, i) {
			if f, err := strconv.ParseFloat(num, 64); err == nil && want(f) {
				if sep := Thousands(num); sep != num {
					b.WriteString(s[last:start])
					b.WriteString(sep)
					last = i
				}
			}
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// glued reports whether the number s[start:end] is part of something
// larger: a word, a number with separators, a version or a date
// (2024-01-15, 15/01/2024, 2024/01).
func glued(s string, start, end int) bool {
	if start > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:start])
		if unicode.IsLetter(r) || r == ',' || r == '.' || r == '_' || ((r == '-' || r == '/') && start > 1 && isASCIIDigit(s[start-2])) {
			return true
		}
	}
	if end < len(s) {
		r, _ := utf8.DecodeRuneInString(s[end:])
		if unicode.IsLetter(r) || r == '_' {
			return true
		}
		if (r == ',' || r == '.' || r == '-' || r == '/') && end+1 < len(s) && isASCIIDigit(s[end+1]) {
			return true
		}
	}
	return false
}

func isASCIIDigit(c byte) bool { return '0' <= c && c <= '9' }
