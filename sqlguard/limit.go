package sqlguard

import (
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// Guard checks sql like Check and returns the text to run. When p.RowLimit
// is positive the statement is made to return at most that many rows:
//
//   - without a LIMIT, "\nLIMIT n" is added at the end of the statement (on
//     a new line, so a trailing -- comment cannot swallow it; before a
//     trailing semicolon);
//   - a constant LIMIT or FETCH FIRST above n is lowered to n in place,
//     leaving the rest of the text, comments and layout as written;
//   - any other LIMIT (LIMIT ALL, an expression, WITH TIES) is kept and the
//     statement is wrapped: SELECT * FROM (\n<sql>\n) AS limited LIMIT n.
//
// The result is checked again under p and must carry a top-level LIMIT of
// at most n; if an edit fails that, the wrapped form is tried, and if that
// fails too (the added text breaks MaxLength or MaxDepth) its rejection is
// returned. Otherwise sql is returned unchanged.
func Guard(sql string, p Policy) (string, error) {
	g, err := GuardTree(sql, p)
	return g.Run, err
}

// Guarded is a statement Guard let through.
type Guarded struct {
	// Run is the text to run, as Guard returns it.
	Run string
	// Tree is the parse tree of the statement as written (not of Run), as
	// the guard read it: for what else needs the statement's structure (a
	// fingerprint, its deparsed form) without parsing it again. It is
	// shared: read it, never change it.
	Tree *pg_query.ParseResult
	// Encoded is the parser's protobuf encoding of Tree, which Tree was
	// decoded from: what a hash of the statement's structure reads
	// without encoding Tree again. Shared as Tree is.
	Encoded []byte
}

// GuardTree is Guard, returning the parse tree it checked with the text
// to run.
func GuardTree(sql string, p Policy) (Guarded, error) {
	tree, encoded, rej := checkTree(sql, p)
	if rej != nil {
		return Guarded{}, rej
	}
	if p.RowLimit <= 0 {
		return Guarded{Run: sql, Tree: tree, Encoded: encoded}, nil
	}
	candidates := limitRows(sql, tree.GetStmts()[0], p.RowLimit)
	for _, out := range candidates {
		if out == sql && limitedTo(sql, tree.GetStmts()[0], p.RowLimit) {
			// Already limited: the statement checked above, not parsed
			// again.
			return Guarded{Run: out, Tree: tree, Encoded: encoded}, nil
		}
		var outRaw *pg_query.RawStmt
		if outRaw, rej = check(out, p); rej == nil && limitedTo(out, outRaw, p.RowLimit) {
			return Guarded{Run: out, Tree: tree, Encoded: encoded}, nil
		}
	}
	if rej == nil {
		rej = reject(ClassSyntax, "the row limit could not be added; end the query with LIMIT %d", p.RowLimit)
	}
	return Guarded{}, rej
}

// limitRows returns the texts that make the single SELECT in raw return at
// most n rows, preferred first; sql itself when it already does.
func limitRows(sql string, raw *pg_query.RawStmt, n int) []string {
	sel := raw.GetStmt().GetSelectStmt()
	start, end := int(raw.GetStmtLocation()), len(sql)
	if raw.GetStmtLen() > 0 {
		end = start + int(raw.GetStmtLen())
	}
	limit := strconv.Itoa(n)
	wrapped := sql[:start] + "SELECT * FROM (\n" + sql[start:end] + "\n) AS limited LIMIT " + limit + sql[end:]
	count := sel.GetLimitCount()
	if count == nil {
		return []string{sql[:end] + "\nLIMIT " + limit + sql[end:], wrapped}
	}
	if sel.GetLimitOption() != pg_query.LimitOption_LIMIT_OPTION_WITH_TIES {
		if v, loc, width, ok := constantLimit(sql, count.GetAConst()); ok {
			if v <= int64(n) {
				return []string{sql}
			}
			return []string{sql[:loc] + limit + sql[loc+width:], wrapped}
		}
	}
	return []string{wrapped}
}

// limitedTo reports whether the statement in raw has a constant top-level
// LIMIT of at most n.
func limitedTo(sql string, raw *pg_query.RawStmt, n int) bool {
	sel := raw.GetStmt().GetSelectStmt()
	if sel == nil || sel.GetLimitOption() == pg_query.LimitOption_LIMIT_OPTION_WITH_TIES {
		return false
	}
	v, _, _, ok := constantLimit(sql, sel.GetLimitCount().GetAConst())
	return ok && v <= int64(n)
}

// constantLimit returns the value of a constant LIMIT and where its literal
// is in sql. It reports false for LIMIT ALL/NULL, non-integers and anything
// whose text does not read back as the parsed value, so an odd spelling is
// wrapped rather than edited blindly.
func constantLimit(sql string, c *pg_query.A_Const) (value int64, loc, width int, ok bool) {
	if c == nil || c.GetIsnull() {
		return 0, 0, 0, false
	}
	switch v := c.GetVal().(type) {
	case *pg_query.A_Const_Ival:
		value = int64(v.Ival.GetIval())
	case *pg_query.A_Const_Fval:
		f, err := strconv.ParseInt(v.Fval.GetFval(), 10, 64)
		if err != nil {
			return 0, 0, 0, false
		}
		value = f
	default:
		return 0, 0, 0, false
	}
	loc = int(c.GetLocation())
	if loc < 0 || loc >= len(sql) {
		// FETCH FIRST ROW ONLY has an implicit 1 and no text.
		return value, 0, 0, value == 1
	}
	width = strings.IndexFunc(sql[loc:], func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	})
	if width < 0 {
		width = len(sql) - loc
	}
	if got, err := parseInteger(sql[loc : loc+width]); err != nil || got != value {
		return 0, 0, 0, false
	}
	return value, loc, width, true
}

// parseInteger reads an integer literal as PostgreSQL 16 does: decimal with
// optional underscores (a leading 0 is not octal), or 0x/0o/0b prefixed.
func parseInteger(s string) (int64, error) {
	if len(s) > 1 && s[0] == '0' && strings.ContainsAny(s[1:2], "xXoObB") {
		return strconv.ParseInt(s, 0, 64)
	}
	return strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
}
