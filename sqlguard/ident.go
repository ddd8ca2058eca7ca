package sqlguard

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/jackc/pgx/v5"
	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// plainName is a name PostgreSQL reads as written without quotes: lower
// case letters, digits, underscores and dollars, not starting with a
// digit or a dollar.
var plainName = regexp.MustCompile(`^[a-z_][a-z0-9_$]*$`)

// quoted remembers, by name, whether Ident quotes it: a catalog's names
// are few and asked for on every question.
var quoted sync.Map // string → bool

// Ident writes name as SQL must: bare when PostgreSQL reads it so
// unquoted, else in double quotes ("Order Items", "CustomerName",
// "order"), as quote_ident does: quoted unless it is plain and no keyword
// but an unreserved one. A name holding a line break, tab or other control
// character is written as a Unicode-escaped identifier (U&"a\000Ab" for
// "a", a line break, "b"): the same name to PostgreSQL, on one line, so a
// prompt listing it keeps its lines whatever the name holds.
func Ident(name string) string {
	if strings.IndexFunc(name, unprintable) >= 0 {
		return unicodeIdent(name)
	}
	if q, ok := quoted.Load(name); ok {
		if q.(bool) {
			return pgx.Identifier{name}.Sanitize()
		}
		return name
	}
	q := needsQuotes(name)
	quoted.Store(name, q)
	if q {
		return pgx.Identifier{name}.Sanitize()
	}
	return name
}

// needsQuotes reports whether name must be quoted to be read as written.
func needsQuotes(name string) bool {
	if !plainName.MatchString(name) {
		return true
	}
	scan, err := pg_query.Scan(name)
	if err != nil || len(scan.Tokens) != 1 {
		return true
	}
	k := scan.Tokens[0].KeywordKind
	return k != pg_query.KeywordKind_NO_KEYWORD && k != pg_query.KeywordKind_UNRESERVED_KEYWORD
}

// qualifiedIdent writes a Policy.Tables entry ("Sales Data.Order Items")
// as SQL must, each part by Ident.
func qualifiedIdent(name string) string {
	if s, n, ok := strings.Cut(name, "."); ok {
		return Ident(s) + "." + Ident(n)
	}
	return Ident(name)
}

// unprintable reports whether r is a control character or a Unicode line
// or paragraph separator: one that breaks a line or cannot be seen.
func unprintable(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}

// unicodeIdent writes name as a U&"…" identifier, each unprintable
// character as its \XXXX escape; a NUL, which no name holds, is dropped,
// as pgx.Identifier.Sanitize drops it.
func unicodeIdent(name string) string {
	var b strings.Builder
	b.WriteString(`U&"`)
	for _, r := range name {
		switch {
		case r == 0:
		case r == '"':
			b.WriteString(`""`)
		case r == '\\':
			b.WriteString(`\\`)
		case unprintable(r):
			fmt.Fprintf(&b, `\%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
