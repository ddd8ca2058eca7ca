package pgwarehouse

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// prettySQL lays a query written on one line out for reading: each clause
// (SELECT, FROM, each JOIN, WHERE, GROUP BY, HAVING, ORDER BY, LIMIT, a
// UNION…) starts a line, indented by how many subqueries enclose it. Only
// the whitespace between tokens changes: literals, comments and the
// parentheses of calls and windows (OVER (ORDER BY …)) are left as they
// are. A query that already has line breaks is kept as its author wrote
// it, and one the scanner cannot read is returned unchanged.
func prettySQL(sql string) string {
	if strings.Contains(strings.TrimSpace(sql), "\n") {
		return sql
	}
	res, err := pg_query.Scan(sql)
	if err != nil || len(res.Tokens) == 0 {
		return sql
	}
	toks := res.Tokens
	next := func(i int) pg_query.Token {
		if i+1 < len(toks) {
			return toks[i+1].Token
		}
		return pg_query.Token_NUL
	}
	prev := func(i int) pg_query.Token {
		if i > 0 {
			return toks[i-1].Token
		}
		return pg_query.Token_NUL
	}
	// parens holds, for each open parenthesis, whether it opens a subquery.
	var parens []bool
	inSubqueries := func() (int, bool) {
		depth := 0
		for _, sub := range parens {
			if !sub {
				return 0, false
			}
			depth++
		}
		return depth, true
	}
	var b strings.Builder
	last := 0
	for i, t := range toks {
		breaks := false
		switch t.Token {
		case pg_query.Token_SELECT:
			breaks = prev(i) != pg_query.Token_ASCII_40 && prev(i) != pg_query.Token_ALL && prev(i) != pg_query.Token_DISTINCT
		case pg_query.Token_FROM, pg_query.Token_WHERE, pg_query.Token_HAVING, pg_query.Token_LIMIT, pg_query.Token_OFFSET,
			pg_query.Token_UNION, pg_query.Token_EXCEPT, pg_query.Token_INTERSECT, pg_query.Token_WINDOW, pg_query.Token_FETCH:
			breaks = true
		case pg_query.Token_GROUP_P, pg_query.Token_ORDER:
			breaks = next(i) == pg_query.Token_BY
		case pg_query.Token_JOIN:
			switch prev(i) {
			case pg_query.Token_LEFT, pg_query.Token_RIGHT, pg_query.Token_FULL, pg_query.Token_INNER_P,
				pg_query.Token_CROSS, pg_query.Token_NATURAL, pg_query.Token_OUTER_P:
			default:
				breaks = true
			}
		case pg_query.Token_LEFT, pg_query.Token_RIGHT, pg_query.Token_FULL, pg_query.Token_INNER_P, pg_query.Token_CROSS, pg_query.Token_NATURAL:
			n := next(i)
			if n == pg_query.Token_OUTER_P && i+2 < len(toks) {
				n = toks[i+2].Token
			}
			breaks = n == pg_query.Token_JOIN && prev(i) != pg_query.Token_NATURAL
		}
		start := int(t.Start)
		if depth, ok := inSubqueries(); breaks && ok && start > 0 {
			b.WriteString(strings.TrimRight(sql[last:start], " \t"))
			b.WriteString("\n" + strings.Repeat("  ", depth))
			last = start
		}
		switch t.Token {
		case pg_query.Token_ASCII_40:
			n := next(i)
			parens = append(parens, n == pg_query.Token_SELECT || n == pg_query.Token_WITH)
		case pg_query.Token_ASCII_41:
			if len(parens) > 0 {
				parens = parens[:len(parens)-1]
			}
		}
	}
	b.WriteString(sql[last:])
	return b.String()
}
