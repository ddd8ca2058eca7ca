package warehouse

import (
	"fmt"
	"strings"
	"unicode"
)

// Quoting is how a dialect's queries write a text value, and so how the
// stored values a prompt shows are written: exactly, on one line, as data
// the generator can copy into its query.
type Quoting int

const (
	// QuoteSQL writes a PostgreSQL string literal: 'Tom''s', or, for a
	// value with a control character or a line break, one with escapes,
	// E'Line\nBreak'.
	QuoteSQL Quoting = iota
	// QuoteJSON writes a JSON string, as a Cube query's filter values are
	// written: "Tom's", "Line\nBreak".
	QuoteJSON
)

// Literal writes v as a string literal of q: exact (a value's spaces kept,
// "North  America" is not 'North America'), on one line (a line break in
// it is an escape, so it can start no line of a prompt).
func (q Quoting) Literal(v string) string {
	if q == QuoteJSON {
		return jsonString(v)
	}
	return sqlLiteral(v)
}

// List writes values as literals of q, comma separated: "'F', 'M'".
func (q Quoting) List(values []string) string {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = q.Literal(v)
	}
	return strings.Join(quoted, ", ")
}

// breaksLine reports whether r must be written as an escape: a control
// character (a line break, a tab, NUL, C1's NEL) or Unicode's line and
// paragraph separators, which a reader may take for a new line.
func breaksLine(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}

// sqlLiteral is v as a PostgreSQL string literal. A value without
// characters to escape is a standard one, its quotes doubled; else an
// escape string (E'…', which PostgreSQL reads the same whatever
// standard_conforming_strings says), its backslashes doubled too.
func sqlLiteral(v string) string {
	if !strings.ContainsFunc(v, breaksLine) {
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	}
	var b strings.Builder
	b.WriteString("E'")
	writeEscaped(&b, v, '\'', "''")
	b.WriteByte('\'')
	return b.String()
}

// jsonString is v as a JSON string, every character that breaksLine
// escaped (encoding/json leaves DEL and C1's controls as they are).
func jsonString(v string) string {
	var b strings.Builder
	b.WriteByte('"')
	writeEscaped(&b, v, '"', `\"`)
	b.WriteByte('"')
	return b.String()
}

// writeEscaped writes v to b with the escapes PostgreSQL's E'…' strings
// and JSON's share: a backslash, \n, \r, \t and \uXXXX for any other
// character that breaksLine; quote written as quoteAs.
func writeEscaped(b *strings.Builder, v string, quote rune, quoteAs string) {
	for _, r := range v {
		switch r {
		case quote:
			b.WriteString(quoteAs)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if breaksLine(r) {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
}
