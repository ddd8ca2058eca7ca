package sqlguard

import (
	"errors"
	"slices"
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
)

var testPolicy = Policy{
	Schemas: []string{"analytics"},
	Tables:  []string{"apps", "genres", "app_genres", "reviews"},
}

// requireClass asserts that err is a *Rejection of class want.
func requireClass(t *testing.T, sql string, err error, want Class) {
	t.Helper()
	var rej *Rejection
	require.True(t, errors.As(err, &rej), "Check(%.120q) = %v, want a rejection of class %s", sql, err, want)
	assert.Equal(t, want, rej.Class, "Check(%.120q) class: got %s (%s), want %s", sql, rej.Class, rej.Reason, want)
	assert.NotEmpty(t, rej.Reason)
}

func TestCheckAcceptsAnalytics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		sql  string
	}{
		{"simple select", "SELECT count(*) FROM apps WHERE release_year = 2018"},
		{"qualified table", "SELECT name FROM analytics.apps LIMIT 5"},
		{"trailing semicolon", "SELECT 1;"},
		{"no table", "SELECT now()::date"},
		{"cte join", "WITH g AS (SELECT * FROM genres) SELECT * FROM g JOIN app_genres USING (genre_id)"},
		{"cte named like a catalog", "WITH pg_stats AS (SELECT 1 AS n) SELECT n FROM pg_stats"},
		{"union", "SELECT name FROM apps UNION ALL SELECT name FROM genres"},
		{"window functions", "SELECT name, rank() OVER w, lag(price) OVER w, sum(price) OVER (PARTITION BY genre_id ORDER BY price ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM apps WINDOW w AS (ORDER BY price DESC)"},
		{"rollup and grouping", "SELECT genre_id, release_year, grouping(genre_id), count(*) FROM apps GROUP BY ROLLUP (genre_id, release_year)"},
		{"cube and grouping sets", "SELECT genre_id, count(*) FROM apps GROUP BY GROUPING SETS ((genre_id), ()), CUBE (release_year)"},
		{"filter", "SELECT count(*) FILTER (WHERE price = 0) AS free, avg(price) FILTER (WHERE price > 0) FROM apps"},
		{"distinct on", "SELECT DISTINCT ON (genre_id) genre_id, name FROM apps ORDER BY genre_id, rating DESC"},
		{"lateral", "SELECT g.name, top.name FROM genres g CROSS JOIN LATERAL (SELECT a.name FROM apps a JOIN app_genres ag USING (app_id) WHERE ag.genre_id = g.genre_id ORDER BY a.rating DESC LIMIT 3) top"},
		{"ordered-set aggregates", "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY price), mode() WITHIN GROUP (ORDER BY genre_id), rank(4.99) WITHIN GROUP (ORDER BY price) FROM apps"},
		{"json", "SELECT meta->>'developer', meta #> '{links,0}', jsonb_array_length(meta->'tags'), jsonb_build_object('n', name), json_agg(name) OVER () FROM apps WHERE meta ? 'developer' AND meta @> '{\"free\": true}'"},
		{"sql json constructors", "SELECT JSON_OBJECT('name': name), JSON_ARRAYAGG(price ORDER BY price) FROM apps GROUP BY name"},
		{"date math", "SELECT date_trunc('month', released) AS m, extract(year FROM released), released + interval '30 days', age(now(), released), to_char(released, 'YYYY-MM'), make_date(2024, 1, 1) - current_date FROM apps WHERE released >= current_date - 90"},
		{"at time zone and overlaps", "SELECT released AT TIME ZONE 'UTC', (released, released + interval '1 day') OVERLAPS (now(), now()) FROM apps"},
		{"pattern matching", "SELECT name FROM apps WHERE name ILIKE '%chess%' OR name ~* '^go' OR name SIMILAR TO '%(x|y)%' OR regexp_like(name, 'a+') OR name LIKE 'a!%' ESCAPE '!'"},
		{"string functions", "SELECT substring(name FROM 1 FOR 3), trim(BOTH ' ' FROM name), position('a' IN name), overlay(name PLACING 'x' FROM 1), split_part(name, ' ', 1), initcap(lower(name)) FROM apps"},
		{"conditionals", "SELECT CASE WHEN price = 0 THEN 'free' ELSE 'paid' END, coalesce(rating, 0), nullif(price, 0), greatest(price, 1), least(price, 9) FROM apps"},
		{"casts", "SELECT price::numeric(10, 2), CAST(rating AS int), '2024-01-01'::date, '{1,2}'::int[], TREAT(price AS numeric) FROM apps"},
		{"arrays and unnest", "SELECT a.name, t.tag FROM apps a, unnest(a.tags) WITH ORDINALITY AS t(tag, i) WHERE cardinality(a.tags) > 1 AND 'x' = ANY(a.tags)"},
		{"generate_series of 12 months", "SELECT m::date FROM generate_series(date_trunc('month', current_date) - interval '11 months', date_trunc('month', current_date), interval '1 month') AS m"},
		{"constant date series", "SELECT d FROM generate_series('2024-01-01'::date, '2024-12-31'::date, '1 day') d LEFT JOIN apps ON released = d"},
		{"small series cross join", "SELECT * FROM generate_series(1, 100) a, generate_series(1, 100) b"},
		{"bounded recursive cte", "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10) SELECT sum(n) FROM t"},
		{"recursive cte bounded by depth in join", "WITH RECURSIVE tree AS (SELECT genre_id, 1 AS depth FROM genres WHERE parent_id IS NULL UNION ALL SELECT g.genre_id, tree.depth + 1 FROM genres g JOIN tree ON g.parent_id = tree.genre_id AND tree.depth < 5) SELECT * FROM tree"},
		{"recursive cte read through limit", "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT n FROM t LIMIT 10"},
		{"subqueries everywhere", "SELECT name, (SELECT count(*) FROM reviews r WHERE r.app_id = a.app_id) FROM apps a WHERE EXISTS (SELECT 1 FROM app_genres ag WHERE ag.app_id = a.app_id) AND price > ALL (SELECT 0) ORDER BY (SELECT 1)"},
		{"values", "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(id, label)"},
		{"tablesample", "SELECT avg(price) FROM apps TABLESAMPLE BERNOULLI (10) REPEATABLE (42)"},
		{"full text search", "SELECT ts_rank(to_tsvector('english', name), plainto_tsquery('english', 'chess')) FROM apps"},
		{"statistics", "SELECT corr(price, rating), stddev_samp(price), regr_slope(rating, price) FROM apps"},
		{"comments and dollar quotes", "/* top apps */ SELECT name -- the name\nFROM apps WHERE name <> $$it's$$ /* nested /* comment */ ok */"},
		{"nested comment hides a call", "SELECT 1 /* /* */ pg_sleep(1) */"},
		{"unicode escaped identifier", `SELECT U&"n\0061me" FROM apps`},
		{"upper case names fold", "SELECT UPPER(NAME), COUNT(*) FROM APPS GROUP BY 1"},
		{"string mentioning danger", "SELECT 'pg_sleep(10); DROP TABLE apps' AS s"},
		{"column named like a catalog", "SELECT pg_class FROM (SELECT 1 AS pg_class) x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.NoError(t, Check(tt.sql, testPolicy), "Check(%q)", tt.sql)
		})
	}
}

func TestCheckPolicyOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		sql  string
		p    Policy
		want Class // "" means accepted
	}{
		{"extra function allowed", "SELECT similarity(name, 'chess') FROM apps", Policy{Functions: []string{"similarity"}}, ""},
		{"extra function needed", "SELECT similarity(name, 'chess') FROM apps", Policy{}, ClassFunction},
		{"extra tablesample method", "SELECT * FROM apps TABLESAMPLE system_rows(5)", Policy{Functions: []string{"system_rows"}}, ""},
		{"extras cannot allow denied", "SELECT pg_sleep(1)", Policy{Functions: []string{"pg_sleep"}}, ClassSleep},
		{"catalog allowed", "SELECT relname FROM pg_catalog.pg_class JOIN pg_namespace n ON true WHERE 'apps'::regclass > 0", Policy{AllowCatalog: true}, ""},
		{"information_schema allowed", "SELECT column_name FROM information_schema.columns", Policy{AllowCatalog: true}, ""},
		{"nil tables allow any name", "SELECT * FROM anything", Policy{Schemas: []string{"analytics"}}, ""},
		{"nil tables still guard pg_ names", "SELECT * FROM pg_roles", Policy{}, ClassCatalog},
		{"catalog schema listed but not allowed", "SELECT * FROM pg_catalog.pg_class", Policy{Schemas: []string{"pg_catalog"}}, ClassCatalog},
		{"type of an allowed schema", "SELECT 'x'::analytics.mood", Policy{Schemas: []string{"analytics"}}, ""},
		{"max depth raised", "SELECT 1" + strings.Repeat("+1", 300), Policy{MaxDepth: 1000}, ""},
		{"max length raised", "SELECT '" + strings.Repeat("x", 30000) + "'", Policy{MaxLength: 40000}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Check(tt.sql, tt.p)
			if tt.want == "" {
				assert.NoError(t, err, "Check(%.120q)", tt.sql)
				return
			}
			requireClass(t, tt.sql, err, tt.want)
		})
	}
}

func TestCheckRejectsInvalidUTF8(t *testing.T) {
	t.Parallel()
	sql := "SELECT '\xff\xfe' FROM apps"
	requireClass(t, sql, Check(sql, testPolicy), ClassSyntax)
}

func TestCheckReasonNamesTables(t *testing.T) {
	t.Parallel()
	err := Check("SELECT * FROM games", Policy{Schemas: []string{"analytics"}, Tables: []string{"apps"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "apps", "the reason should list the real table")

	// Written as a query must write them, for the retry to copy.
	err = Check("SELECT * FROM orders", Policy{Schemas: []string{"Sales Data"}, Tables: []string{"Sales Data.Order Items", "Sales Data.users", "Sales Data.order"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `use one of the tables "Sales Data"."Order Items", "Sales Data".users, "Sales Data"."order"`)
}

// Ident quotes a name as quote_ident does: plain lower-case names and
// unreserved keywords bare, anything else in double quotes.
func TestIdent(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"apps": "apps", "release_year": "release_year", "year": "year", "name": "name",
		"order": `"order"`, "select": `"select"`, "time": `"time"`, "user": `"user"`,
		"CustomerName": `"CustomerName"`, "Full Name": `"Full Name"`, "2fa": `"2fa"`, `say "hi"`: `"say ""hi"""`, "": `""`,
	} {
		assert.Equal(t, want, Ident(name), "%q", name)
	}
}

func TestCheckReasonSuggestsUnquoted(t *testing.T) {
	t.Parallel()
	err := Check(`SELECT "LOWER"(name) FROM apps`, testPolicy)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "write lower unquoted")
}

func TestCheckDeepButLegitFitsDefault(t *testing.T) {
	t.Parallel()
	// Four levels of scalar subqueries and a 40-term sum: deeper than any
	// corpus query, well within the default.
	sql := "SELECT (SELECT (SELECT (SELECT max(price" + strings.Repeat(" + price", 40) + ") FROM apps) FROM apps) FROM apps) FROM apps"
	assert.NoError(t, Check(sql, testPolicy))
}

func TestClassUnsafe(t *testing.T) {
	t.Parallel()
	fixable := []Class{ClassEmpty, ClassTooLong, ClassTooDeep, ClassSyntax, ClassExplain,
		ClassUnbounded, ClassCatalog, ClassRelation, ClassFunction, ClassColumns}
	for _, c := range allClasses {
		assert.Equal(t, !slices.Contains(fixable, c), c.Unsafe(), "%s.Unsafe()", c)
	}
	assert.True(t, Class("something_new").Unsafe(), "an unknown class must not be retried")
}

func TestAllowedFunctions(t *testing.T) {
	t.Parallel()
	got := AllowedFunctions()
	assert.True(t, slices.IsSorted(got), "AllowedFunctions is not sorted")
	for _, want := range []string{"count", "percentile_cont", "row_number", "date_trunc", "regexp_replace", "jsonb_build_object", "generate_series", "to_char"} {
		assert.Contains(t, got, want)
	}
	for _, name := range got {
		class, _ := deniedFunction(name, 1)
		assert.Empty(t, class, "%s is both allowed and denied", name)
	}
}

// topLimit parses sql and returns its top-level constant LIMIT, or -1.
func topLimit(t *testing.T, sql string) int64 {
	t.Helper()
	tree, err := pg_query.Parse(sql)
	require.NoError(t, err)
	require.Len(t, tree.GetStmts(), 1)
	c := tree.GetStmts()[0].GetStmt().GetSelectStmt().GetLimitCount().GetAConst()
	if c == nil || c.GetIval() == nil {
		return -1
	}
	return int64(c.GetIval().GetIval())
}

func TestGuardLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		sql  string
		want string
	}{
		{"added", "SELECT name FROM apps", "SELECT name FROM apps\nLIMIT 100"},
		{"added before semicolon", "SELECT name FROM apps;", "SELECT name FROM apps\nLIMIT 100;"},
		{"added after trailing comment", "SELECT name FROM apps -- all of them", "SELECT name FROM apps -- all of them\nLIMIT 100"},
		{"added after offset", "SELECT name FROM apps OFFSET 10", "SELECT name FROM apps OFFSET 10\nLIMIT 100"},
		{"added to union", "(SELECT name FROM apps LIMIT 500) UNION ALL SELECT name FROM genres", "(SELECT name FROM apps LIMIT 500) UNION ALL SELECT name FROM genres\nLIMIT 100"},
		{"lowered", "SELECT name FROM apps ORDER BY rating DESC LIMIT 5000 -- top", "SELECT name FROM apps ORDER BY rating DESC LIMIT 100 -- top"},
		{"lowered with offset", "SELECT name FROM apps LIMIT 1000 OFFSET 5", "SELECT name FROM apps LIMIT 100 OFFSET 5"},
		{"lowered fetch first", "SELECT name FROM apps FETCH FIRST 250 ROWS ONLY", "SELECT name FROM apps FETCH FIRST 100 ROWS ONLY"},
		{"lowered underscores", "SELECT name FROM apps LIMIT 1_000;", "SELECT name FROM apps LIMIT 100;"},
		{"lowered hex", "SELECT name FROM apps LIMIT 0x1000", "SELECT name FROM apps LIMIT 100"},
		{"lowered beyond int32", "SELECT name FROM apps LIMIT 10000000000", "SELECT name FROM apps LIMIT 100"},
		{"lowered in parentheses", "SELECT name FROM apps LIMIT (500)", "SELECT name FROM apps LIMIT (100)"},
		{"kept", "SELECT name FROM apps LIMIT 10", "SELECT name FROM apps LIMIT 10"},
		{"kept at the limit", "SELECT name FROM apps LIMIT 100", "SELECT name FROM apps LIMIT 100"},
		{"kept leading zero is decimal", "SELECT name FROM apps LIMIT 010", "SELECT name FROM apps LIMIT 010"},
		{"kept fetch first row", "SELECT name FROM apps FETCH FIRST ROW ONLY", "SELECT name FROM apps FETCH FIRST ROW ONLY"},
		{"wrapped limit all", "SELECT name FROM apps LIMIT ALL", "SELECT * FROM (\nSELECT name FROM apps LIMIT ALL\n) AS limited LIMIT 100"},
		{"wrapped expression", "SELECT name FROM apps LIMIT 50 * 10", "SELECT * FROM (\nSELECT name FROM apps LIMIT 50 * 10\n) AS limited LIMIT 100"},
		{"wrapped with ties", "SELECT name FROM apps ORDER BY price FETCH FIRST 5 ROWS WITH TIES; -- ties", "SELECT * FROM (\nSELECT name FROM apps ORDER BY price FETCH FIRST 5 ROWS WITH TIES\n) AS limited LIMIT 100; -- ties"},
		{"wrapped comment at the end", "SELECT name FROM apps LIMIT NULL -- no limit", "SELECT * FROM (\nSELECT name FROM apps LIMIT NULL -- no limit\n) AS limited LIMIT 100"},
		{"wrapped cte", "WITH a AS (SELECT name FROM apps) SELECT * FROM a LIMIT ALL", "SELECT * FROM (\nWITH a AS (SELECT name FROM apps) SELECT * FROM a LIMIT ALL\n) AS limited LIMIT 100"},
	}
	p := testPolicy
	p.RowLimit = 100
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Guard(tt.sql, p)
			require.NoError(t, err, "Guard(%q)", tt.sql)
			assert.Equal(t, tt.want, got, "Guard(%q)", tt.sql)
			assert.NoError(t, Check(got, p), "Guard's output must pass Check")
			if strings.HasPrefix(got, "SELECT * FROM (\n") {
				assert.Equal(t, int64(100), topLimit(t, got))
			} else if l := topLimit(t, got); l >= 0 {
				assert.LessOrEqual(t, l, int64(100), "top-level LIMIT of %q", got)
			}
		})
	}
}

func TestGuardWithoutRowLimit(t *testing.T) {
	t.Parallel()
	sql := "SELECT name FROM apps -- everything"
	got, err := Guard(sql, testPolicy)
	require.NoError(t, err)
	assert.Equal(t, sql, got)
}

func TestGuardRejects(t *testing.T) {
	t.Parallel()
	p := testPolicy
	p.RowLimit = 100
	got, err := Guard("SELECT pg_sleep(1)", p)
	assert.Empty(t, got)
	requireClass(t, "SELECT pg_sleep(1)", err, ClassSleep)

	// The added LIMIT must not push the text over MaxLength unnoticed.
	sql := "SELECT name FROM apps WHERE name <> '" + strings.Repeat("x", 40) + "'"
	p.MaxLength = len(sql)
	require.NoError(t, Check(sql, p))
	got, err = Guard(sql, p)
	assert.Empty(t, got)
	requireClass(t, sql, err, ClassTooLong)
}

func TestDataBoundedTimeSeries(t *testing.T) {
	t.Parallel()
	p := Policy{Schemas: []string{"analytics"}, Tables: []string{"apps"}}
	tests := []struct {
		name, sql string
		want      Class
	}{
		{name: "months between the first and last release", want: "",
			sql: "SELECT m FROM generate_series((SELECT date_trunc('month', min(released)) FROM apps), (SELECT date_trunc('month', max(released)) FROM apps), interval '1 month') m"},
		{name: "days from data", want: "", sql: "SELECT generate_series(min(released), max(released), '1 day'::interval) FROM apps"},
		{name: "hours from data", want: ClassUnbounded, sql: "SELECT generate_series(min(released), max(released), '1 hour'::interval) FROM apps"},
		{name: "infinity is no data bound", want: ClassUnbounded, sql: "SELECT * FROM generate_series(now(), 'infinity'::timestamp, '1 day')"},
		{name: "numbers from data", want: ClassUnbounded, sql: "SELECT generate_series(1, (SELECT max(price)::int FROM apps))"},
		{name: "two data-bounded series multiply", want: ClassUnbounded,
			sql: "SELECT count(*) FROM generate_series((SELECT min(released) FROM apps), (SELECT max(released) FROM apps), '1 day') a, generate_series((SELECT min(released) FROM apps), (SELECT max(released) FROM apps), '1 day') b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Check(tt.sql, p)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Check(%q) = %v, want accepted", tt.sql, err)
				}
				return
			}
			var rej *Rejection
			if !errors.As(err, &rej) || rej.Class != tt.want {
				t.Fatalf("Check(%q) = %v, want class %s", tt.sql, err, tt.want)
			}
		})
	}
}

// GuardTree returns what Guard runs and the tree of the statement as
// written, not as limited, so that a fingerprint taken from it is the
// query's own; a rejected statement has neither.
func TestGuardTreeIsTheStatementAsWritten(t *testing.T) {
	p := testPolicy
	p.RowLimit = 10
	for _, sql := range []string{
		"SELECT name FROM apps",
		"SELECT name FROM apps LIMIT 5",
		"SELECT name FROM apps LIMIT 500",
		"SELECT name FROM apps LIMIT ALL",
	} {
		g, err := GuardTree(sql, p)
		require.NoError(t, err, sql)
		run, err := Guard(sql, p)
		require.NoError(t, err, sql)
		assert.Equal(t, run, g.Run, sql)
		want, err := pg_query.Parse(sql)
		require.NoError(t, err)
		assert.True(t, proto.Equal(want, g.Tree), "the tree of %q", sql)
	}
	g, err := GuardTree("DELETE FROM apps", p)
	assert.Error(t, err)
	assert.Equal(t, Guarded{}, g)
}
