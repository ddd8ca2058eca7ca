package warehouse

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// CSVWriter writes results as CSV (RFC 4180) the way PostgreSQL's COPY …
// CSV does: a NULL is an empty field, an empty string is a quoted empty
// field (""), so the two stay apart; fields holding a comma, a quote, a line
// break or leading white space are quoted. Values are written as Text
// formats them. One difference: a value of a text column, or a column
// name, that a spreadsheet would run as a formula (defuseFormula) is written
// with a leading apostrophe, so opening an export never runs what the data
// says.
type CSVWriter struct {
	w   *bufio.Writer
	err error
	// text marks the columns of text (KindText), whose values may be
	// formulas to a spreadsheet; an interval, money or bytea never is.
	text []bool
}

// NewCSVWriter returns a CSVWriter writing to w. Call Flush when done.
func NewCSVWriter(w io.Writer) *CSVWriter {
	return &CSVWriter{w: bufio.NewWriter(w)}
}

// WriteHeader writes the columns' names, and keeps which columns hold
// text for WriteRow.
func (c *CSVWriter) WriteHeader(cols []Column) error {
	c.text = make([]bool, len(cols))
	for i, col := range cols {
		c.text[i] = col.Kind == KindText
		c.field(i, defuseFormula(col.Name), false)
	}
	return c.end()
}

// WriteRow writes one row of result values.
func (c *CSVWriter) WriteRow(row []any) error {
	for i, v := range row {
		text := Text(v)
		if _, ok := v.(string); ok && i < len(c.text) && c.text[i] {
			text = defuseFormula(text)
		}
		c.field(i, text, v == nil)
	}
	return c.end()
}

// defuseFormula is s with an apostrophe before it when a spreadsheet
// opening the CSV would read s as a formula (OWASP's "CSV injection"): it
// begins with =, +, -, @, a tab or a carriage return and is not a plain
// number ("-2.5" stays a number; "+1-555-0100" and "=HYPERLINK(…)" do
// not). Spreadsheets show it as text, the apostrophe hidden.
func defuseFormula(s string) string {
	if s == "" || !strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return s
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s
	}
	return "'" + s
}

// Flush writes what is buffered and returns the first error of any write.
func (c *CSVWriter) Flush() error {
	if c.err != nil {
		return c.err
	}
	if err := c.w.Flush(); err != nil {
		c.err = fmt.Errorf("write CSV: %w", err)
	}
	return c.err
}

func (c *CSVWriter) field(i int, text string, null bool) {
	if c.err != nil {
		return
	}
	if i > 0 {
		c.w.WriteByte(',')
	}
	switch {
	case null:
	case needsQuotes(text):
		c.w.WriteByte('"')
		c.w.WriteString(strings.ReplaceAll(text, `"`, `""`))
		c.w.WriteByte('"')
	default:
		c.w.WriteString(text)
	}
}

func (c *CSVWriter) end() error {
	if c.err != nil {
		return c.err
	}
	if err := c.w.WriteByte('\n'); err != nil {
		c.err = fmt.Errorf("write CSV: %w", err)
	}
	return c.err
}

// needsQuotes reports a non-NULL field that must be quoted: empty (else it
// would read as NULL), PostgreSQL's end-of-data marker \., or one holding a
// delimiter, a quote, a line break or leading white space.
func needsQuotes(s string) bool {
	if s == "" || s == `\.` {
		return true
	}
	if s[0] == ' ' || s[0] == '\t' {
		return true
	}
	return strings.ContainsAny(s, ",\"\r\n")
}

// WriteCSV writes a whole result as CSV: the header, then every row.
func WriteCSV(w io.Writer, r Result) error {
	c := NewCSVWriter(w)
	if err := c.WriteHeader(r.Columns); err != nil {
		return err
	}
	for _, row := range r.Rows {
		if err := c.WriteRow(row); err != nil {
			return err
		}
	}
	return c.Flush()
}

// Text formats a result value as text, as a CSV export writes it: numbers
// in full precision without exponent, booleans as true and false, arrays in
// PostgreSQL's array syntax ({a,"b c",NULL}), everything else as its text.
// NULL is the empty string.
func Text(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case []any:
		var b strings.Builder
		writeArray(&b, v)
		return b.String()
	case json.Number:
		return v.String()
	default:
		return fmt.Sprint(v)
	}
}

// writeArray writes a in PostgreSQL's array output syntax: elements
// separated by commas, quoted when PostgreSQL would quote them, NULL for a
// missing one, booleans as t and f.
func writeArray(b *strings.Builder, a []any) {
	b.WriteByte('{')
	for i, v := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		switch v := v.(type) {
		case nil:
			b.WriteString("NULL")
		case []any:
			writeArray(b, v)
		case bool:
			if v {
				b.WriteByte('t')
			} else {
				b.WriteByte('f')
			}
		default:
			writeArrayElement(b, Text(v))
		}
	}
	b.WriteByte('}')
}

// writeArrayElement quotes an element as PostgreSQL's array_out does: when it
// is empty, spells NULL, or holds a brace, a quote, a backslash, the
// delimiter or white space; quotes and backslashes are escaped.
func writeArrayElement(b *strings.Builder, s string) {
	if s != "" && !strings.EqualFold(s, "NULL") && !strings.ContainsAny(s, "{}\",\\ \t\n\r\v\f") {
		b.WriteString(s)
		return
	}
	b.WriteByte('"')
	for _, r := range s {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
}
