package defog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExpandAlternatives(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, sql, want string
		expanded        bool
		wantErr         string
	}{
		{name: "none", sql: "SELECT a FROM t", want: "SELECT a FROM t"},
		{name: "first choice", sql: "SELECT {t.name, t.id} FROM t", want: "SELECT t.name FROM t", expanded: true},
		{name: "no spaces", sql: "SELECT {t.name,t.id} FROM t", want: "SELECT t.name FROM t", expanded: true},
		{name: "group by repeats the choice",
			sql:  "SELECT {a.aid, a.name}, count(*) FROM author a GROUP BY {} ORDER BY 2",
			want: "SELECT a.aid, count(*) FROM author a GROUP BY a.aid ORDER BY 2", expanded: true},
		{name: "commas inside a call stay with the choice",
			sql:  "SELECT {coalesce(a, b), c} FROM t GROUP BY {}",
			want: "SELECT coalesce(a, b) FROM t GROUP BY coalesce(a, b)", expanded: true},
		{name: "each group its own choice",
			sql:  "SELECT {a, b}, {c, d} FROM t GROUP BY {}",
			want: "SELECT a, c FROM t GROUP BY c", expanded: true},
		{name: "braces in strings and comments stay",
			sql:  "SELECT {a, b} FROM t WHERE x ~ '^[0-9]{3}$' -- {c}\n",
			want: "SELECT a FROM t WHERE x ~ '^[0-9]{3}$' -- {c}\n", expanded: true},
		{name: "empty group first", sql: "SELECT a FROM t GROUP BY {}", wantErr: "before any group"},
		{name: "nested", sql: "SELECT {a, {b, c}} FROM t", wantErr: "nested"},
		{name: "unclosed", sql: "SELECT {a, b FROM t", wantErr: "without '}'"},
		{name: "unopened", sql: "SELECT a, b} FROM t", wantErr: "without '{'"},
		{name: "empty first choice", sql: "SELECT {, b} FROM t", wantErr: "empty first choice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, expanded, err := expandAlternatives(tt.sql)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.expanded, expanded, "expanded")
		})
	}
}

func TestQualifyQuery(t *testing.T) {
	t.Parallel()
	academic := &database{name: "academic", from: []string{"public"}}
	ewallet := &database{name: "ewallet", from: []string{"public", "consumer_div"}}
	tests := []struct {
		name string
		db   *database
		sql  string
		want string
	}{
		{"plain table", academic, "SELECT name FROM author",
			"SELECT name FROM academic.author"},
		{"keyword spelling of a table", academic, "SELECT domain.did FROM DOMAIN WHERE domain.name = 'x'",
			"SELECT domain.did FROM academic.domain WHERE domain.name = 'x'"},
		{"join and alias", academic, "SELECT a.name FROM author a JOIN writes w ON a.aid = w.aid",
			"SELECT a.name FROM academic.author a JOIN academic.writes w ON a.aid = w.aid"},
		{"subqueries in where and from", academic,
			"SELECT x.n FROM (SELECT count(*) AS n FROM writes) x WHERE EXISTS (SELECT 1 FROM cite)",
			"SELECT x.n FROM (SELECT count(*) AS n FROM academic.writes) x WHERE EXISTS (SELECT 1 FROM academic.cite)"},
		{"cte left unqualified", academic,
			"WITH w AS (SELECT aid FROM writes) SELECT * FROM w JOIN author USING (aid)",
			"WITH w AS (SELECT aid FROM academic.writes) SELECT * FROM w JOIN academic.author USING (aid)"},
		{"cte name out of scope is a table", academic,
			"SELECT * FROM (WITH w AS (SELECT 1) SELECT * FROM w) a, w",
			"SELECT * FROM (WITH w AS (SELECT 1) SELECT * FROM w) a, academic.w"},
		{"later cte sees earlier", academic,
			"WITH a AS (SELECT * FROM b), b AS (SELECT * FROM a) SELECT * FROM b",
			"WITH a AS (SELECT * FROM academic.b), b AS (SELECT * FROM a) SELECT * FROM b"},
		{"recursive cte sees itself", academic,
			"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r",
			"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r"},
		{"other schema left alone", academic, "SELECT * FROM other.author JOIN public.writes USING (aid)",
			"SELECT * FROM other.author JOIN academic.writes USING (aid)"},
		{"source schema moved", ewallet, "SELECT count(*) FROM consumer_div.users u JOIN merchants m ON true",
			"SELECT count(*) FROM ewallet.users u JOIN ewallet.merchants m ON true"},
		{"mixed case folds", &database{name: "broker", from: []string{"public"}}, "SELECT sbCustId FROM sbCustomer",
			"SELECT sbcustid FROM broker.sbcustomer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := qualifyQuery(tt.sql, tt.db)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDumpStatements(t *testing.T) {
	t.Parallel()
	dump := `SET statement_timeout = 0;
SELECT pg_catalog.set_config('search_path', '', false);
CREATE SCHEMA public;
COMMENT ON SCHEMA public IS 'standard public schema';
CREATE SCHEMA IF NOT EXISTS consumer_div;
CREATE TABLE consumer_div.users (uid bigint PRIMARY KEY);
CREATE TABLE public.coupons (cid bigint, uid bigint REFERENCES consumer_div.users(uid));
ALTER TABLE public.coupons OWNER TO defog;
GRANT SELECT ON public.coupons TO PUBLIC;
INSERT INTO coupons VALUES (1, 2);
COMMENT ON COLUMN public.coupons.cid IS 'id';
COMMENT ON TABLE coupons IS 'coupons';`
	db := &database{name: "ewallet", dump: dump, from: []string{"public", "consumer_div"}}
	stmts, skipped, err := dumpStatements(db)
	require.NoError(t, err)
	var got []string
	for _, s := range stmts {
		got = append(got, s.sql)
	}
	assert.Equal(t, []string{
		"CREATE TABLE ewallet.users (uid bigint PRIMARY KEY)",
		"CREATE TABLE ewallet.coupons (cid bigint, uid bigint REFERENCES ewallet.users (uid))",
		"INSERT INTO ewallet.coupons VALUES (1, 2)",
		"COMMENT ON COLUMN ewallet.coupons.cid IS 'id'",
		"COMMENT ON TABLE ewallet.coupons IS 'coupons'",
	}, got)
	assert.Equal(t, 7, skipped, "statements skipped")

	db.dump = "CREATE TABLE other.t (a int);"
	_, _, err = dumpStatements(db)
	require.Error(t, err, "a dump naming another schema")
	assert.Contains(t, err.Error(), "refers to schema other")
}

func TestQuoteLiteral(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain", "name of the author", "'name of the author'"},
		{"quote doubled", "author's name", "'author''s name'"},
		{"backslash escaped", `a\b 'c'`, `E'a\\b ''c'''`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, quoteLiteral(tt.in))
		})
	}
}
