package warehouse

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ErrFull is WriteRow's refusal of a row that would take the file past
// its byte limit (CSVWriter.Limit): the file ends with the rows before it.
var ErrFull = errors.New("the CSV reached its byte limit")

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
	// row is the line being written, kept until it is known to fit.
	row []byte
	// n counts the bytes written; max bounds them (Limit).
	n, max int64
	// over marks a row found longer than Room before it was all copied.
	over bool
	// text marks the columns of text (KindText), whose values may be
	// formulas to a spreadsheet; an interval, money or bytea never is.
	text []bool
}

// NewCSVWriter returns a CSVWriter writing to w. Call Flush when done.
func NewCSVWriter(w io.Writer) *CSVWriter {
	return &CSVWriter{w: bufio.NewWriter(w), max: math.MaxInt64}
}

// Limit caps the bytes c writes at max (0: no cap): a row that would pass
// it is refused with ErrFull, so the file always ends with a whole row.
func (c *CSVWriter) Limit(max int64) {
	if max > 0 {
		c.max = max
	}
}

// Room is how many more bytes c may write: a value longer than that cannot
// be written, and need not be read.
func (c *CSVWriter) Room() int64 { return c.max - c.n }

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

// field adds a field to the row being written; it stops adding once the
// row is longer than Room, which end then refuses.
func (c *CSVWriter) field(i int, text string, null bool) {
	if c.err != nil || c.over {
		return
	}
	if int64(len(c.row))+int64(len(text)) >= c.Room() {
		c.over = true // a value that cannot fit is not copied
		return
	}
	if i > 0 {
		c.row = append(c.row, ',')
	}
	switch {
	case null:
	case needsQuotes(text):
		// Quotes doubled piece by piece, not in a copy of the value.
		c.row = append(c.row, '"')
		for {
			q := strings.IndexByte(text, '"')
			if q < 0 {
				break
			}
			if int64(len(c.row)) > c.Room() {
				c.over = true
				return
			}
			c.row = append(append(c.row, text[:q+1]...), '"')
			text = text[q+1:]
		}
		c.row = append(append(c.row, text...), '"')
	default:
		c.row = append(c.row, text...)
	}
}

// end writes the row, when it fits in Room.
func (c *CSVWriter) end() error {
	if c.err != nil {
		return c.err
	}
	c.row = append(c.row, '\n')
	defer func() {
		if cap(c.row) > 64<<10 {
			c.row = nil // not kept after a huge value
		}
		c.row, c.over = c.row[:0], false
	}()
	if c.over || int64(len(c.row)) > c.Room() {
		return ErrFull
	}
	if _, err := c.w.Write(c.row); err != nil {
		c.err = fmt.Errorf("write CSV: %w", err)
	}
	c.n += int64(len(c.row))
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
	_, err := ExportResult(w, r, 0)
	return err
}

// ExportResult writes a result as CSV, as an export of it within maxBytes
// (0: no cap): the rows that fit, the file Full when one did not. Rows and
// Truncated count the rows written.
func ExportResult(w io.Writer, r Result, maxBytes int64) (ExportStats, error) {
	c := NewCSVWriter(w)
	c.Limit(maxBytes)
	st := ExportStats{Truncated: r.Truncated}
	err := c.WriteHeader(r.Columns)
	for _, row := range r.Rows {
		if err != nil {
			break
		}
		if err = c.WriteRow(row); err == nil {
			st.Rows++
		}
	}
	if errors.Is(err, ErrFull) {
		st.Truncated, st.Full, err = true, true, nil
	}
	if err != nil {
		return st, err
	}
	return st, c.Flush()
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
