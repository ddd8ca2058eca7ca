package pgwarehouse

import (
	"regexp"
	"sync"

	"github.com/jackc/pgx/v5"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// plainName is a name PostgreSQL reads as written without quotes: lower
// case letters, digits, underscores and dollars, not starting with a
// digit or a dollar.
var plainName = regexp.MustCompile(`^[a-z_][a-z0-9_$]*$`)

// quoted remembers, by name, whether ident quotes it: a catalog's names
// are few and asked for on every question.
var quoted sync.Map // string → bool

// ident writes name as SQL must: bare when PostgreSQL reads it so
// unquoted, else in double quotes ("Order Items", "CustomerName",
// "order"), as quote_ident does: quoted unless it is plain and no keyword
// but an unreserved one. The prompt shows names so, or the generator
// writes "SELECT CustomerName" for a column PostgreSQL then reads as
// customername.
func ident(name string) string {
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

// tableName writes t's name, schema first, as SQL must (ident).
func tableName(t warehouse.Table) string {
	if t.Schema == "" {
		return ident(t.Name)
	}
	return ident(t.Schema) + "." + ident(t.Name)
}

// columnName writes a column's name, schema and table first, as SQL must
// (ident): the stored values the prompt shows are named so.
func columnName(c warehouse.ColumnRef) string {
	return tableName(warehouse.Table{Schema: c.Schema, Name: c.Table}) + "." + ident(c.Column)
}
