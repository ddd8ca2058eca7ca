package sqlguard

import (
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"github.com/pganalyze/pg_query_go/v5/parser"
	"google.golang.org/protobuf/proto"
)

// Defaults for the zero values of Policy's limits.
const (
	// DefaultMaxLength is the statement length limit in bytes.
	DefaultMaxLength = 20000
	// DefaultMaxDepth is the parse-tree depth limit. The deepest query of
	// TPC-H, TPC-DS and defog's sql-eval is 29 levels below the statement
	// (about two levels per expression, six per subquery), so 256 leaves
	// eight times that for model-written SQL while staying far below the
	// ~10,000 levels at which the parser or protobuf decoding give up.
	DefaultMaxDepth = 256
)

// Policy says what a statement may read and how much it may ask for.
type Policy struct {
	// Schemas are the schemas whose relations may be read, schema-qualified
	// or not.
	Schemas []string
	// Tables are the relations of those schemas that statements may use,
	// each by name ("apps", any of the schemas) or qualified
	// ("analytics.apps"). Nil allows any name that is not a catalog
	// relation. Unqualified names matter most: PostgreSQL searches
	// pg_catalog before the search_path.
	Tables []string
	// MaxLength caps the statement text in bytes; 0 means DefaultMaxLength.
	MaxLength int
	// MaxDepth caps the nesting depth of the parse tree (protobuf messages
	// below the statement); 0 means DefaultMaxDepth.
	MaxDepth int
	// RowLimit, when positive, makes Guard cap the rows the statement
	// returns. Check ignores it.
	RowLimit int
	// AllowCatalog allows relations in pg_catalog and information_schema,
	// unqualified pg_* relations and reg* casts. pg_authid, pg_shadow,
	// pg_user_mapping(s) and pg_statistic stay forbidden.
	AllowCatalog bool
	// Forbidden are relations of Schemas ("schema.table") that exist but
	// are outside the caller's access policy: reading one is rejected as
	// ClassAccess, never as a mistake to retry. Tables then lists the
	// readable ones qualified, so unqualified names resolve as the
	// search_path does.
	Forbidden []string
	// DeniedColumns are columns ("schema.table.column") of readable
	// relations that the caller may not read: naming one is ClassAccess; a
	// star, the whole row of its table (c, a join alias j, c.to_json), a
	// NATURAL JOIN with it or a column alias list renaming its table's
	// columns is ClassColumns, a mistake the generator can fix by naming
	// columns. (c).f is c.f: the column f, or the function f on c's
	// whole row when c has no column f (fields.go).
	// Column names are not resolved to their tables: any column of that
	// name in a statement reading the table is refused.
	DeniedColumns []string
	// MaskedColumns are columns ("schema.table.column") the caller may
	// filter, group, order and count by but never see: in any select list
	// (outside count()), by *, in a whole row, or renamed by a column
	// alias list, they are ClassColumns.
	MaskedColumns []string
	// Columns are the columns ("schema.table" → names) of relations with
	// denied or masked columns, as the catalog shows them: with them,
	// c.f or (c).f where f is not a column of any relation c names is a
	// function called on c's whole row (c.to_json, c.record_out), judged
	// against the allowlist; their names are the fields (v).f may take
	// from other values. Without a relation's columns the names of
	// allowed functions count as such calls.
	Columns map[string][]string
	// Functions are extra function names to allow (lower case, unqualified),
	// e.g. "similarity" from pg_trgm. They cannot allow a function of a
	// dangerous class such as pg_sleep. One in FROM is taken to return a
	// column named as a scalar function's is, or fields the guard knows
	// (Columns'): x.f of any other f is judged as the call f(x).
	Functions []string
}

func (p Policy) maxLength() int {
	if p.MaxLength > 0 {
		return p.MaxLength
	}
	return DefaultMaxLength
}

func (p Policy) maxDepth() int {
	if p.MaxDepth > 0 {
		return p.MaxDepth
	}
	return DefaultMaxDepth
}

// Check returns nil when sql may run under p, or a *Rejection saying why
// not.
func Check(sql string, p Policy) error {
	if _, rej := check(sql, p); rej != nil {
		return rej
	}
	return nil
}

// check parses and checks sql, returning the single statement on success so
// that Guard need not parse twice.
func check(sql string, p Policy) (*pg_query.RawStmt, *Rejection) {
	tree, _, rej := checkTree(sql, p)
	if rej != nil {
		return nil, rej
	}
	return tree.GetStmts()[0], nil
}

// checkTree parses and checks sql, returning its parse tree, of one
// statement, on success, with the parser's protobuf encoding of the tree.
func checkTree(sql string, p Policy) (*pg_query.ParseResult, []byte, *Rejection) {
	if strings.TrimSpace(sql) == "" {
		return nil, nil, reject(ClassEmpty, "the statement is empty; write one SELECT")
	}
	if len(sql) > p.maxLength() {
		return nil, nil, reject(ClassTooLong, "the statement is %d bytes long; the limit is %d, so write a shorter query", len(sql), p.maxLength())
	}
	// The parser stops at a NUL byte and may read invalid UTF-8 differently
	// from the server, so what it checks could differ from what would run.
	if strings.IndexByte(sql, 0) >= 0 {
		return nil, nil, reject(ClassSyntax, "the statement contains a NUL byte; remove it")
	}
	if !utf8.ValidString(sql) {
		return nil, nil, reject(ClassSyntax, "the statement is not valid UTF-8; remove the invalid bytes")
	}
	// pg_query.Parse, keeping the encoding its tree is decoded from.
	encoded, err := parser.ParseToProtobuf(sql)
	if err != nil {
		return nil, nil, parseRejection(err)
	}
	tree := &pg_query.ParseResult{}
	if err := proto.Unmarshal(encoded, tree); err != nil {
		return nil, nil, parseRejection(err)
	}
	switch n := len(tree.GetStmts()); {
	case n == 0:
		return nil, nil, reject(ClassEmpty, "the statement has only comments; write one SELECT")
	case n > 1:
		return nil, nil, reject(ClassStacked, "write exactly one statement; found %d", n)
	}
	raw := tree.GetStmts()[0]
	if rej := checkStatement(raw.GetStmt(), sql, p); rej != nil {
		return nil, nil, rej
	}
	return tree, encoded, nil
}

// parseRejection tells a nesting too deep for the parser or the protobuf
// decoder apart from an ordinary syntax error.
func parseRejection(err error) *Rejection {
	msg := err.Error()
	for _, deep := range []string{"memory exhausted", "stack depth limit exceeded", "exceeded maximum recursion depth"} {
		if strings.Contains(msg, deep) {
			return reject(ClassTooDeep, "the statement nests too deeply for the parser; flatten subqueries and expressions")
		}
	}
	return reject(ClassSyntax, "%s", msg)
}

// checkStatement classifies one top-level statement: anything but SELECT by
// its node type, a SELECT by walking its whole tree.
func checkStatement(stmt *pg_query.Node, sql string, p Policy) *Rejection {
	if sel := stmt.GetSelectStmt(); sel != nil {
		return newChecker(sql, p).run(sel)
	}
	if ex := stmt.GetExplainStmt(); ex != nil {
		// EXPLAIN ANALYZE executes its statement, so an attack inside it
		// is reported as the attack.
		if rej := checkStatement(ex.GetQuery(), sql, p); rej != nil && rej.Class.Unsafe() {
			return rej
		}
		return reject(ClassExplain, "do not EXPLAIN; write the SELECT that answers the question")
	}
	return statementRejection(stmt)
}
