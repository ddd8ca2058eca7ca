package sqlguard

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// WithoutComments is sql with each of its comments (-- to the end of the
// line, /* … */ however nested) written as one space, as PostgreSQL's
// scanner finds them: a "--" inside a string literal or quoted identifier
// is no comment. Text the scanner cannot read is returned as it is.
func WithoutComments(sql string) string {
	scan, err := pg_query.Scan(sql)
	if err != nil {
		return sql
	}
	var b strings.Builder
	last := 0
	for _, t := range scan.Tokens {
		if t.Token != pg_query.Token_SQL_COMMENT && t.Token != pg_query.Token_C_COMMENT {
			continue
		}
		start, end := int(t.Start), int(t.End)
		if start < last || end > len(sql) || start > end {
			return sql
		}
		b.WriteString(sql[last:start])
		b.WriteByte(' ')
		last = end
	}
	if last == 0 {
		return sql
	}
	b.WriteString(sql[last:])
	return b.String()
}
