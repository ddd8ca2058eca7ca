package pgwarehouse

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPrettySQL(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{
			name: "clauses on their own lines",
			in:   "SELECT p.name AS publisher, count(*) AS games FROM analytics.apps a JOIN analytics.app_publishers ap ON ap.app_id = a.app_id LEFT OUTER JOIN analytics.publishers p ON p.publisher_id = ap.publisher_id WHERE a.price > 0 GROUP BY p.name ORDER BY games DESC, publisher LIMIT 10",
			want: "SELECT p.name AS publisher, count(*) AS games\nFROM analytics.apps a\nJOIN analytics.app_publishers ap ON ap.app_id = a.app_id\n" +
				"LEFT OUTER JOIN analytics.publishers p ON p.publisher_id = ap.publisher_id\nWHERE a.price > 0\nGROUP BY p.name\nORDER BY games DESC, publisher\nLIMIT 10",
		},
		{
			name: "subqueries indented, calls and windows untouched",
			in:   "WITH t AS (SELECT left(name, 3) AS n, row_number() OVER (ORDER BY price) AS r FROM apps) SELECT n FROM t WHERE r IN (SELECT 1 UNION ALL SELECT 2)",
			want: "WITH t AS (SELECT left(name, 3) AS n, row_number() OVER (ORDER BY price) AS r\n  FROM apps)\nSELECT n\nFROM t\nWHERE r IN (SELECT 1\n  UNION ALL SELECT 2)",
		},
		{
			name: "keywords in literals and comments are text",
			in:   "SELECT 'a FROM b' AS s /* WHERE */ FROM t",
			want: "SELECT 'a FROM b' AS s /* WHERE */\nFROM t",
		},
		{name: "written over lines: kept", in: "SELECT 1\n  FROM t", want: "SELECT 1\n  FROM t"},
		{name: "not SQL: kept", in: "SELECT 'unterminated", want: "SELECT 'unterminated"},
		{name: "empty", in: "", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, prettySQL(tc.in))
		})
	}
}
