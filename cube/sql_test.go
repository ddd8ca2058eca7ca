package cube

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSQL(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.script("sql", ok(readFile(t, "testdata/sql-0.33.json")))
	q := Query{Measures: []string{"Apps.count"}, Dimensions: []string{"Apps.name"}}

	got, err := f.client().SQL(t.Context(), q)
	require.NoError(t, err)
	assert.Equal(t, `SELECT
      "apps".name "apps__name", count("apps".app_id) "apps__count"
    FROM
      analytics.apps AS "apps"  WHERE ("apps".release_date >= '2018-01-01T00:00:00.000Z'::timestamptz AND "apps".release_date <= '2018-12-31T23:59:59.999Z'::timestamptz) AND ("apps".name ILIKE '%' || 'it''s' || '%') AND ("apps".price >= '5') GROUP BY 1 ORDER BY 2 DESC LIMIT 10`, got)

	calls := f.calls()
	require.Len(t, calls, 1)
	assert.Equal(t, "POST", calls[0].method)
	assert.Equal(t, "/cubejs-api/v1/sql", calls[0].path)
	assert.Equal(t, map[string]any{"query": map[string]any{"measures": []any{"Apps.count"}, "dimensions": []any{"Apps.name"}}}, calls[0].body)
}

func TestSQLErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reply   reply
		wantErr string
	}{
		{name: "query error", reply: status(400, `{"error":"'foo' not found for path 'Apps.foo'"}`), wantErr: "cube sql: cube rejected the query: 'foo' not found for path 'Apps.foo'"},
		{name: "no sql", reply: ok(`{"sql":{}}`), wantErr: "cube sql: cube is unavailable: the answer has no sql"},
		{name: "sql not a string", reply: ok(`{"sql":{"sql":[1,[]]}}`), wantErr: "cube sql: cube is unavailable: the sql is not a string"},
		{name: "params not a list", reply: ok(`{"sql":{"sql":["SELECT 1", "x"]}}`), wantErr: "cube sql: cube is unavailable: the parameters are not a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t)
			f.script("sql", tt.reply)
			_, err := f.client().SQL(t.Context(), Query{Measures: []string{"Apps.count"}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr, "got %q, want it to contain %q", err, tt.wantErr)
		})
	}
}

func TestInlineParams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		sql    string
		params []any
		want   string
	}{
		{name: "no params", sql: "SELECT 1", want: "SELECT 1"},
		{name: "postgres placeholders", sql: "SELECT * FROM t WHERE a = $1 AND b > $2::int AND c = $1",
			params: []any{"x", json.Number("5")}, want: "SELECT * FROM t WHERE a = 'x' AND b > 5::int AND c = 'x'"},
		{name: "$10 is not $1 followed by 0", sql: "SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10",
			params: []any{"1", "2", "3", "4", "5", "6", "7", "8", "9", "ten"}, want: "SELECT '1', '2', '3', '4', '5', '6', '7', '8', '9', 'ten'"},
		{name: "question marks", sql: "SELECT * FROM t WHERE a = ? AND b = ?", params: []any{"it's", true}, want: "SELECT * FROM t WHERE a = 'it''s' AND b = TRUE"},
		{name: "null and float", sql: "SELECT ?, ?", params: []any{nil, 1.5}, want: "SELECT NULL, 1.5"},
		{name: "placeholders in strings, identifiers and comments left alone",
			sql:    `SELECT '$1 ?', "col?", ` + "`x?`" + ` -- is it $1?` + "\n" + `/* $2 ? */ FROM t WHERE a = $1`,
			params: []any{"v"},
			want:   `SELECT '$1 ?', "col?", ` + "`x?`" + ` -- is it $1?` + "\n" + `/* $2 ? */ FROM t WHERE a = 'v'`},
		{name: "doubled quotes inside a literal", sql: "SELECT 'it''s $1', $1", params: []any{"v"}, want: "SELECT 'it''s $1', 'v'"},
		{name: "placeholder beyond the params", sql: "SELECT $2", params: []any{"a"}, want: "SELECT $2\n-- params: [\"a\"]"},
		{name: "fewer question marks than params", sql: "SELECT ?", params: []any{"a", "b"}, want: "SELECT ?\n-- params: [\"a\",\"b\"]"},
		{name: "both styles", sql: "SELECT $1 WHERE j ? 'k'", params: []any{"a"}, want: "SELECT $1 WHERE j ? 'k'\n-- params: [\"a\"]"},
		{name: "dollar quoting", sql: "SELECT $$text$$, $1", params: []any{"a"}, want: "SELECT $$text$$, $1\n-- params: [\"a\"]"},
		{name: "unterminated literal", sql: "SELECT 'x, $1", params: []any{"a"}, want: "SELECT 'x, $1\n-- params: [\"a\"]"},
		{name: "backslash in a value", sql: "SELECT $1", params: []any{`a\'b`}, want: "SELECT $1\n-- params: [\"a\\\\'b\"]"},
		{name: "newline in a value stays in the comment's JSON", sql: "SELECT $1 -- x", params: []any{map[string]any{"k": "a\nb"}},
			want: "SELECT $1 -- x\n-- params: [{\"k\":\"a\\nb\"}]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := inlineParams(tt.sql, tt.params)
			assert.Equal(t, tt.want, got, "inlineParams(%q, %v)", tt.sql, tt.params)
		})
	}
}
