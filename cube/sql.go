package cube

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// SQL returns the SQL Cube generates for q, for "Show SQL". The parameters
// are inlined as literals; when that cannot be done faithfully (placeholders
// not understood, or not as many as parameters) the SQL keeps its
// placeholders and ends with a "-- params: [...]" comment instead.
func (c *Client) SQL(ctx context.Context, q Query) (string, error) {
	var raw struct {
		SQL *struct {
			SQL []json.RawMessage `json:"sql"`
		} `json:"sql"`
	}
	if err := c.call(ctx, "sql", http.MethodPost, "/sql", queryBody{Query: q}, &raw); err != nil {
		return "", fmt.Errorf("cube sql: %w", err)
	}
	if raw.SQL == nil || len(raw.SQL.SQL) == 0 {
		return "", fmt.Errorf("cube sql: %w: the answer has no sql", ErrUnavailable)
	}
	var text string
	if err := json.Unmarshal(raw.SQL.SQL[0], &text); err != nil {
		return "", fmt.Errorf("cube sql: %w: the sql is not a string: %w", ErrUnavailable, err)
	}
	var params []any
	if len(raw.SQL.SQL) > 1 {
		dec := json.NewDecoder(strings.NewReader(string(raw.SQL.SQL[1])))
		dec.UseNumber()
		if err := dec.Decode(&params); err != nil {
			return "", fmt.Errorf("cube sql: %w: the parameters are not a list: %w", ErrUnavailable, err)
		}
	}
	return inlineParams(text, params), nil
}

// inlineParams replaces the placeholders of query ($1 for PostgreSQL, ? for
// most other drivers) with params as SQL literals, or appends the params as
// a comment when the placeholders do not match them.
func inlineParams(query string, params []any) string {
	if len(params) == 0 {
		return query
	}
	if out, ok := replacePlaceholders(query, params); ok {
		return out
	}
	encoded, err := json.Marshal(params)
	if err != nil {
		encoded = []byte(fmt.Sprint(params))
	}
	return strings.TrimRight(query, "\n ") + "\n-- params: " + string(encoded)
}

// replacePlaceholders scans query, skipping string literals, quoted
// identifiers and comments, and replaces $N or ? placeholders. It fails on
// anything it does not understand rather than guess.
func replacePlaceholders(query string, params []any) (string, bool) {
	literals := make([]string, len(params))
	for i, p := range params {
		lit, ok := literal(p)
		if !ok {
			return "", false
		}
		literals[i] = lit
	}
	var b strings.Builder
	dollar, question := false, 0
	for i := 0; i < len(query); {
		switch ch := query[i]; {
		case ch == '\'' || ch == '"' || ch == '`':
			end := closing(query, i, ch)
			if end < 0 {
				return "", false
			}
			b.WriteString(query[i : end+1])
			i = end + 1
		case strings.HasPrefix(query[i:], "--"):
			end := strings.IndexByte(query[i:], '\n')
			if end < 0 {
				end = len(query) - i
			}
			b.WriteString(query[i : i+end])
			i += end
		case strings.HasPrefix(query[i:], "/*"):
			end := strings.Index(query[i+2:], "*/")
			if end < 0 {
				return "", false
			}
			b.WriteString(query[i : i+end+4])
			i += end + 4
		case ch == '$' && i+1 < len(query) && isDigit(query[i+1]):
			j := i + 1
			for j < len(query) && isDigit(query[j]) {
				j++
			}
			n, err := strconv.Atoi(query[i+1 : j])
			if err != nil || n < 1 || n > len(literals) {
				return "", false
			}
			dollar = true
			b.WriteString(literals[n-1])
			i = j
		case ch == '$':
			return "", false // a dollar-quoted string or an unknown placeholder style
		case ch == '?':
			if question >= len(literals) {
				return "", false
			}
			b.WriteString(literals[question])
			question++
			i++
		default:
			b.WriteByte(ch)
			i++
		}
	}
	if (dollar && question > 0) || (!dollar && question != len(literals)) {
		return "", false
	}
	return b.String(), true
}

// closing finds the quote that ends the quoted text opened at start; a
// doubled quote is part of the text.
func closing(s string, start int, quote byte) int {
	for i := start + 1; i < len(s); i++ {
		if s[i] != quote {
			continue
		}
		if i+1 < len(s) && s[i+1] == quote {
			i++
			continue
		}
		return i
	}
	return -1
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// literal renders a parameter as an SQL literal.
func literal(p any) (string, bool) {
	switch v := p.(type) {
	case nil:
		return "NULL", true
	case bool:
		return strings.ToUpper(strconv.FormatBool(v)), true
	case json.Number:
		return string(v), true
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), true
	case string:
		if strings.ContainsAny(v, "\\\x00") {
			return "", false // drivers disagree on backslashes; show the value apart
		}
		return "'" + strings.ReplaceAll(v, "'", "''") + "'", true
	}
	return "", false
}
