package pgwarehouse

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// The executor reads every column in text format (with DateStyle, TimeZone,
// IntervalStyle and bytea_output pinned) and converts the text to JSON-safe
// values here. One path serves scalars and array elements alike; numeric,
// interval and json keep Postgres' exact spelling (a json number stays the
// digits it was, never a rounded float), and a type this code has never heard
// of still comes back as its text.

// decoder converts the text form of a non-NULL value.
type decoder func(text string) any

// typeName is the Postgres name of the type, or "unknown" for a type the
// driver does not know (enums, domains of extensions, ...).
func typeName(m *pgtype.Map, oid uint32) string {
	if t, ok := m.TypeForOID(oid); ok {
		return t.Name
	}
	if oid == moneyOID {
		return "money" // its values' text ("$1,234.50") is read as a number by that name
	}
	return "unknown"
}

// kindOfOID is the neutral kind of values of type oid. Types the driver does
// not know (enums, extension types) arrive as text.
func kindOfOID(m *pgtype.Map, oid uint32) warehouse.Kind {
	switch oid {
	case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID, pgtype.Float4OID, pgtype.Float8OID,
		pgtype.NumericOID, pgtype.OIDOID, moneyOID:
		return warehouse.KindNumber
	case pgtype.BoolOID:
		return warehouse.KindBool
	case pgtype.DateOID, pgtype.TimestampOID, pgtype.TimestamptzOID, pgtype.TimeOID, pgtype.TimetzOID:
		return warehouse.KindTime
	case pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID, pgtype.QCharOID, pgtype.UUIDOID,
		pgtype.XMLOID: // xml's content is text as free as text's (and a formula to a spreadsheet as easily)
		return warehouse.KindText
	}
	if _, ok := m.TypeForOID(oid); !ok {
		return warehouse.KindText
	}
	return warehouse.KindOther
}

// moneyOID is the money type, which pgtype has no constant for.
const moneyOID = 790

// decoderFor returns the conversion for values of type oid.
func decoderFor(m *pgtype.Map, oid uint32) decoder {
	switch oid {
	case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID:
		return decodeInt
	case pgtype.Float4OID, pgtype.Float8OID:
		return decodeFloat
	case pgtype.BoolOID:
		return decodeBool
	case pgtype.TimestampOID:
		return decodeTimestamp
	case pgtype.TimestamptzOID:
		return decodeTimestamptz
	case pgtype.ByteaOID:
		return decodeBytea
	}
	if t, ok := m.TypeForOID(oid); ok {
		if ac, ok := t.Codec.(*pgtype.ArrayCodec); ok && ac.ElementType != nil {
			return arrayDecoder(decoderFor(m, ac.ElementType.OID), ac.ElementType.OID)
		}
	}
	// numeric, text, date, time, interval, json, uuid, inet, ... and unknown types:
	// the text form is already the value to show.
	return decodeText
}

func decodeText(s string) any { return s }

func decodeInt(s string) any {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return s
	}
	return n
}

// decodeFloat keeps NaN and ±Infinity as Postgres spells them, since JSON has
// no such numbers.
func decodeFloat(s string) any {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return s
	}
	return f
}

func decodeBool(s string) any {
	switch s {
	case "t":
		return true
	case "f":
		return false
	}
	return s
}

// decodeTimestamp turns ISO "2006-01-02 15:04:05[.fff]" into
// "2006-01-02T15:04:05[.fff]"; infinity and BC dates keep their text.
func decodeTimestamp(s string) any {
	if len(s) > 10 && s[10] == ' ' {
		return s[:10] + "T" + s[11:]
	}
	return s
}

// decodeTimestamptz turns "2006-01-02 15:04:05[.fff]+00" (TimeZone is UTC)
// into RFC 3339 in UTC.
func decodeTimestamptz(s string) any {
	t, err := time.Parse("2006-01-02 15:04:05Z07", s)
	if err != nil {
		return s
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// decodeBytea turns bytea's hex output ("\x48656c6c6f") into base64.
func decodeBytea(s string) any {
	b, err := hex.DecodeString(strings.TrimPrefix(s, `\x`))
	if err != nil || !strings.HasPrefix(s, `\x`) {
		return s
	}
	return base64.StdEncoding.EncodeToString(b)
}

// arrayDecoder parses an array literal into []any (nested for several
// dimensions) of converted elements.
func arrayDecoder(elem decoder, elemOID uint32) decoder {
	delim := byte(',')
	if elemOID == pgtype.BoxOID {
		delim = ';' // the only built-in type whose array delimiter differs
	}
	return func(s string) any {
		parsed, err := parseArray(s, delim)
		if err != nil {
			return s
		}
		return mapLeaves(parsed, elem)
	}
}

// mapLeaves converts every string leaf of a parsed array; nil stays NULL.
func mapLeaves(a []any, elem decoder) []any {
	for i, v := range a {
		switch v := v.(type) {
		case []any:
			a[i] = mapLeaves(v, elem)
		case string:
			a[i] = elem(v)
		}
	}
	return a
}

// parseArray parses Postgres' array output: an optional "[lo:hi]=" bounds
// prefix, then braces holding quoted or bare elements, NULL, or sub-arrays.
// Leaves are strings (unquoted, unescaped) or nil.
func parseArray(s string, delim byte) ([]any, error) {
	p := arrayParser{s: s, delim: delim}
	if strings.HasPrefix(s, "[") {
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return nil, fmt.Errorf("array %q: bounds without '='", s)
		}
		p.i = eq + 1
	}
	out, err := p.array()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("array %q: text after the closing brace", s)
	}
	return out, nil
}

type arrayParser struct {
	s     string
	i     int
	delim byte
}

func (p *arrayParser) skipSpace() {
	for p.i < len(p.s) && isArraySpace(p.s[p.i]) {
		p.i++
	}
}

func isArraySpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func (p *arrayParser) array() ([]any, error) {
	p.skipSpace()
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return nil, fmt.Errorf("array %q: want '{' at %d", p.s, p.i)
	}
	p.i++
	out := []any{}
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return out, nil
	}
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, fmt.Errorf("array %q: unterminated", p.s)
		}
		var (
			elem any
			err  error
		)
		switch p.s[p.i] {
		case '{':
			elem, err = p.array()
		case '"':
			elem, err = p.quoted()
		default:
			elem, err = p.bare()
		}
		if err != nil {
			return nil, err
		}
		out = append(out, elem)
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, fmt.Errorf("array %q: unterminated", p.s)
		}
		c := p.s[p.i]
		p.i++
		switch c {
		case '}':
			return out, nil
		case p.delim:
		default:
			return nil, fmt.Errorf("array %q: unexpected %q at %d", p.s, c, p.i-1)
		}
	}
}

func (p *arrayParser) quoted() (any, error) {
	p.i++ // opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\' && p.i < len(p.s):
			b.WriteByte(p.s[p.i])
			p.i++
		case c == '"':
			return b.String(), nil
		default:
			b.WriteByte(c)
		}
	}
	return nil, fmt.Errorf("array %q: unterminated quoted element", p.s)
}

// bare reads an unquoted element; the unquoted word NULL is a NULL.
func (p *arrayParser) bare() (any, error) {
	var b strings.Builder
	escaped := false
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == p.delim || c == '}' || c == '{' || c == '"' {
			break
		}
		p.i++
		if c == '\\' && p.i < len(p.s) {
			b.WriteByte(p.s[p.i])
			p.i++
			escaped = true
			continue
		}
		b.WriteByte(c)
	}
	word := strings.TrimRight(b.String(), " \t\n\r\v\f")
	if word == "" {
		return nil, fmt.Errorf("array %q: empty element at %d", p.s, p.i)
	}
	if !escaped && strings.EqualFold(word, "NULL") {
		return nil, nil
	}
	return word, nil
}
