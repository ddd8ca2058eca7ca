package pgwarehouse

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// PostgreSQL quotes data in some of its errors: the value a cast or a
// parsing function failed on (`invalid input syntax for type integer:
// "ann@corp.test"`, `value "…" is out of range`, `invalid value "ann@"
// for "YYYY"`), a name looked up from a value (`relation "…" does not
// exist` for a regclass cast), a number it could not use (`requested
// character too large for encoding: 45678901`), and JSON's DETAIL and
// CONTEXT (`Token "ann" is invalid`, `JSON data, line 1: ann…`). The
// generator reads an error's text on a retry, and from it people could: so
// every error of a query leaves the executor redacted. Quoted text and
// numbers stay only when the query itself wrote them (a literal, a name,
// a keyword: the model knows them already, and they keep the retry
// useful) or, for the backend's queries, name something of the caller's
// catalog; DETAIL, CONTEXT and the internal query are dropped, and a
// message a function's own code raised (PL/pgSQL's RAISE, which may say
// anything) is replaced whole.

// namesKey carries, in a query's context, the names of the catalog its
// caller sees, which an error may quote although the query did not write
// them: `Perhaps you meant to reference the column "apps.release_year"`
// keeps a misspelt column's retry useful.
type namesKey struct{}

// withNames returns ctx whose queries' errors may keep the names known
// reports.
func withNames(ctx context.Context, known func(string) bool) context.Context {
	return context.WithValue(ctx, namesKey{}, known)
}

// named returns ctx whose queries' errors may keep the names of the
// catalog ctx's caller sees: its schemas, tables and columns. The catalog
// is read only when an error quotes something the query did not write.
func (b *Backend) named(ctx context.Context) context.Context {
	return withNames(ctx, func(name string) bool {
		cat, err := b.Catalog(ctx)
		if err != nil {
			return false
		}
		for _, t := range cat.Tables {
			if t.Name == name || t.Schema == name {
				return true
			}
			if _, ok := t.Column(name); ok {
				return true
			}
		}
		return false
	})
}

// namesOf is the catalog's names of ctx (withNames), or none.
func namesOf(ctx context.Context) func(string) bool {
	if known, ok := ctx.Value(namesKey{}).(func(string) bool); ok {
		return known
	}
	return func(string) bool { return false }
}

// redact returns err with every *pgconn.PgError in it replaced by a
// copy whose texts hold nothing of the data but what sql wrote and the
// names known reports. Other errors (a lost connection, a canceled
// context) are returned as they are.
func redact(err error, sql string, known func(string) bool) error {
	pgErr, ok := errors.AsType[*pgconn.PgError](err)
	if !ok {
		return err
	}
	words := queryWords(sql)
	keep := func(s string) bool { return warehouse.Written(s, words, known) }
	r := *pgErr
	r.Message = warehouse.RedactQuoted(pgErr.Message, keep)
	r.Hint = warehouse.RedactQuoted(pgErr.Hint, keep)
	r.Detail, r.Where, r.InternalQuery, r.InternalPosition = "", "", "", 0
	if raisedByFunction(pgErr) {
		r.Message, r.Hint = "a function raised an error; its message is not shown", ""
	}
	return &r
}

// raisedByFunction reports an error a procedural language's code raised
// (RAISE, ASSERT, plpython's plpy.error), whose message is its author's
// and may hold any value: PostgreSQL reports the source file it came
// from.
func raisedByFunction(e *pgconn.PgError) bool {
	for _, prefix := range []string{"pl_", "plpy", "plperl", "pltcl", "plv8"} {
		if strings.HasPrefix(e.File, prefix) {
			return true
		}
	}
	return strings.HasPrefix(e.Routine, "exec_stmt_raise") || strings.HasPrefix(e.Routine, "exec_stmt_assert")
}

// queryWords are what sql wrote, as PostgreSQL's scanner reads it: each
// token as written and in lower case, and the text of each string literal
// and quoted name, as an error may quote them. A statement the scanner
// cannot read has none, so all quoted text is redacted.
func queryWords(sql string) map[string]bool {
	words := map[string]bool{}
	res, err := pg_query.Scan(sql)
	if err != nil {
		return words
	}
	for _, tk := range res.GetTokens() {
		start, end := int(tk.GetStart()), int(tk.GetEnd())
		if start < 0 || end > len(sql) || start >= end {
			continue
		}
		raw := sql[start:end]
		word := strings.ToLower(raw)
		switch tk.GetToken() {
		case pg_query.Token_SCONST, pg_query.Token_USCONST, pg_query.Token_BCONST, pg_query.Token_XCONST:
			word = literalText(raw)
		case pg_query.Token_IDENT:
			word = identText(raw)
		}
		words[raw], words[strings.ToLower(raw)], words[word] = true, true, true
	}
	return words
}

// literalText is the text of a string literal, its doubled or escaped
// quotes undone: '…', E'…', $tag$…$tag$, U&'…', B'…', X'…'.
func literalText(raw string) string {
	if strings.HasPrefix(raw, "$") {
		if i := strings.Index(raw[1:], "$"); i >= 0 {
			tag := raw[:i+2]
			return strings.TrimSuffix(strings.TrimPrefix(raw, tag), tag)
		}
		return raw
	}
	escapes := strings.HasPrefix(raw, "E") || strings.HasPrefix(raw, "e")
	raw = strings.TrimLeft(raw, "EeNnUu&BbXx")
	raw = strings.TrimSuffix(strings.TrimPrefix(raw, "'"), "'")
	raw = strings.ReplaceAll(raw, "''", "'")
	if escapes {
		raw = strings.NewReplacer(`\'`, `'`, `\\`, `\`, `\n`, "\n", `\t`, "\t").Replace(raw)
	}
	return raw
}

// identText is a name as PostgreSQL keeps it: a quoted one as written
// ("Order ""A"""), any other in lower case.
func identText(raw string) string {
	if strings.HasPrefix(raw, `"`) && strings.HasSuffix(raw, `"`) && len(raw) >= 2 {
		return strings.ReplaceAll(raw[1:len(raw)-1], `""`, `"`)
	}
	return strings.ToLower(raw)
}
