package sqlguard

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	pg_query "github.com/pganalyze/pg_query_go/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// A name taken from the row of a function, VALUES list, derived table or
// CTE in FROM is judged as PostgreSQL reads it: the relation's column, or
// else a function called on its whole row, which over a function
// returning a scalar is that scalar (g.current_setting over
// unnest(ARRAY['data_directory']) g reads a setting).
func TestNamesTakenFromRowsOfRelationsThatAreNoTable(t *testing.T) {
	t.Parallel()
	base, analysts, _ := matrixPolicies()
	plain := Policy{Schemas: []string{"analytics", "hr"}}
	tests := []struct {
		name, sql string
		want      Class // "" when it may run
	}{
		{"a setting read through a function's scalar row", "SELECT g.current_setting AS s FROM unnest(ARRAY['data_directory']) g", ClassFunction},
		{"a setting read as a field of a function's scalar row", "SELECT (g).current_setting AS s FROM unnest(ARRAY['data_directory']) g", ClassFunction},
		{"a setting read through a function named without alias", "SELECT unnest.current_setting AS s FROM unnest(ARRAY['data_directory'])", ClassFunction},
		{"a setting read under a column alias", "SELECT current_setting.current_setting AS s FROM unnest(ARRAY['data_directory']) AS current_setting(x)", ClassFunction},
		{"a setting read through ROWS FROM", "SELECT r.current_setting AS s FROM ROWS FROM (unnest(ARRAY['data_directory'])) r", ClassFunction},
		{"a setting read through a scalar function in FROM", "SELECT u.current_setting AS s FROM lower('DATA_DIRECTORY') u", ClassFunction},
		{"a row hashed through VALUES", "SELECT v.hash_record AS h FROM (VALUES (1)) v", ClassFunction},
		{"a row hashed through a derived table", "SELECT d.hash_record AS h FROM (SELECT 1 AS n) d", ClassFunction},
		{"a row hashed through a CTE", "WITH c AS (SELECT 1 AS n) SELECT c.hash_record AS h FROM c", ClassFunction},

		{"a setting read through a cast in FROM", "SELECT x.current_setting FROM CAST('data_directory' AS text) x", ClassFunction},
		{"a setting read through a cast in FROM named by its type", "SELECT text.current_setting FROM CAST('data_directory' AS text)", ClassFunction},
		{"a setting read through COALESCE in FROM", "SELECT x.current_setting FROM COALESCE('data_directory') x", ClassFunction},
		{"a setting read through a renamed cast in FROM", "SELECT x.current_setting FROM CAST('data_directory' AS text) AS x(y)", ClassFunction},
		{"a backend's query read through a LATERAL cast", "SELECT x.pg_stat_get_backend_activity FROM generate_series(1, 5) g, LATERAL CAST(g AS int) x", ClassFunction},
		{"a setting read under a name quoted in another case", `SELECT g.current_setting FROM (SELECT 'x' AS current_setting) "G", unnest(ARRAY['data_directory']) g`, ClassFunction},
		{"a setting read past a join alias that hides a name",
			"SELECT (SELECT g.current_setting FROM ((SELECT 'x' AS current_setting) g CROSS JOIN (SELECT 1 AS k) h) AS j) AS r FROM unnest(ARRAY['data_directory']) g", ClassFunction},
		{"a setting read past a sibling a subquery in FROM does not see",
			"SELECT (SELECT d.v FROM (SELECT 'x' AS current_setting) g, (SELECT g.current_setting AS v) d) AS r FROM unnest(ARRAY['data_directory']) g", ClassFunction},
		{"a setting read past its owner's FROM from a CTE",
			"SELECT (SELECT x.v FROM (WITH c AS (SELECT g.current_setting AS v) SELECT c.v FROM c, (SELECT 'x' AS current_setting) g) x) AS r FROM unnest(ARRAY['data_directory']) g", ClassFunction},
		{"a row's size through a quoted column name", `SELECT d.pg_column_size FROM (SELECT 1 AS "PG_COLUMN_SIZE") d`, ClassFunction},
		{"a setting read in ON past the items of its join",
			"SELECT (SELECT count(*) FROM (SELECT 'x' AS current_setting) g, analytics.genres a JOIN analytics.app_genres b ON g.current_setting LIKE '/%') AS r FROM unnest(ARRAY['data_directory']) g", ClassFunction},
		{"a setting read in TABLESAMPLE past its FROM",
			"SELECT (SELECT count(*) FROM analytics.genres g TABLESAMPLE system((g.current_setting)::float4)) AS n FROM unnest(ARRAY['data_directory']) g", ClassFunction},
		{"a setting read in a LATERAL item past its join's alias",
			"SELECT (SELECT j.v FROM ((SELECT 1 AS current_setting) a JOIN LATERAL (SELECT j.current_setting AS v) s ON true) AS j) AS n FROM unnest(ARRAY['data_directory']) j", ClassFunction},
		{"a setting read in a function's arguments past its join's alias",
			"SELECT (SELECT j.x FROM ((SELECT 1 AS current_setting) a JOIN LATERAL unnest(ARRAY[j.current_setting]) u(x) ON true) AS j) AS n FROM unnest(ARRAY['data_directory']) j", ClassFunction},
		{"a setting read past a USING alias an aliased join hides",
			"SELECT u.current_setting FROM ((SELECT 1 AS current_setting) a JOIN (SELECT 1 AS current_setting) b USING (current_setting) AS u) AS j JOIN unnest(ARRAY['data_directory']) u ON true", ClassFunction},
		{"a setting read through a USING alias", "SELECT x.current_setting FROM analytics.apps a JOIN analytics.app_genres g USING (app_id) AS x", ClassFunction},

		{"a function's column under its alias", "SELECT g.g FROM generate_series(1, 3) g", ""},
		{"a quoted column of a derived table", `SELECT d."Total" FROM (SELECT 1 AS "Total") d`, ""},
		{"a LATERAL subquery's column of the item before it", "SELECT d.n FROM analytics.apps a, LATERAL (SELECT a.app_id AS n) d", ""},
		{"a function's argument of the item before it", "SELECT g FROM analytics.apps a, unnest(ARRAY[a.app_id]) g", ""},
		{"a table inside an aliased join in its ON clause", "SELECT j.app_id FROM (analytics.apps a JOIN analytics.app_genres g ON a.app_id = g.app_id) AS j", ""},
		{"a LATERAL subquery's column of an item before its join", "SELECT d.n FROM analytics.apps a, analytics.genres x CROSS JOIN LATERAL (SELECT a.app_id AS n) d", ""},
		{"a nested join's alias seen by a later LATERAL item", "SELECT k.n FROM ((analytics.apps a JOIN analytics.app_genres g USING (app_id)) AS j CROSS JOIN LATERAL (SELECT j.app_id AS n) s) AS k", ""},
		{"TABLESAMPLE with constants", "SELECT count(*) FROM analytics.apps a TABLESAMPLE system(10) REPEATABLE (1)", ""},
		{"nested joins' ON clauses", "SELECT a.name FROM analytics.apps a JOIN analytics.app_genres g ON a.app_id = g.app_id JOIN analytics.genres n ON n.genre_id = g.genre_id AND a.app_id > 0", ""},
		{"a table's column by its schema-qualified name", "SELECT analytics.apps.name FROM analytics.apps", ""},
		{"a USING alias's column", "SELECT x.app_id FROM analytics.apps a JOIN analytics.app_genres g USING (app_id) AS x", ""},
		{"a function's column under a column alias", "SELECT g.n FROM generate_series(1, 3) g(n)", ""},
		{"a function's ordinality", "SELECT g.g, g.ordinality FROM generate_series(1, 3) WITH ORDINALITY g", ""},
		{"json_each's fields", `SELECT j.key, j.value FROM json_each('{"a": 1}') j`, ""},
		{"a column definition list", `SELECT r.a FROM json_to_record('{"a": 1}') AS r(a int)`, ""},
		{"a populated record's column", `SELECT p.name FROM jsonb_populate_record(NULL::analytics.apps, '{}') p`, ""},
		{"a derived table's column as a field", "SELECT (d).total FROM (SELECT count(*) AS total FROM analytics.apps) d", ""},
		{"a derived table's column of a cast as a field", "SELECT (d).release_date FROM (SELECT release_date::date FROM analytics.apps) d", ""},
		{"VALUES's columns", "SELECT v.column1, (v).column2 FROM (VALUES (1, 'a')) v", ""},
		{"a CTE's renamed column", "WITH c(x) AS (SELECT 1) SELECT c.x FROM c", ""},
		{"a recursive CTE's search column", "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3) SEARCH DEPTH FIRST BY n SET ord SELECT c.n, c.ord FROM c", ""},
		{"a scalar subquery's column", "SELECT d.q FROM (SELECT (SELECT 1 AS q)) d", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Without Policy.Columns a derived table over a table has
			// unknown columns; the refusals hold whatever the guard knows.
			policies := []Policy{base, analysts}
			if tt.want != "" {
				policies = append(policies, plain)
			}
			for _, p := range policies {
				err := Check(tt.sql, p)
				if tt.want == "" {
					assert.NoError(t, err)
					continue
				}
				if assert.Error(t, err) {
					assert.Equal(t, tt.want, err.(*Rejection).Class, "%v", err)
				}
			}
		})
	}
}

// The whole row of a table with masked or denied columns is refused
// however a relation of another name seems to have the column that
// would make x.to_json no call: PostgreSQL matches names exactly, a
// subquery in FROM does not see its siblings, a CTE's query does not see
// its owner's FROM, and a join alias hides the names of what it joins.
func TestWholeRowsUnderNamesOfOtherRelations(t *testing.T) {
	t.Parallel()
	_, analysts, _ := matrixPolicies()
	for _, sql := range []string{
		`SELECT "E".to_json FROM hr.employees "E", (SELECT 1 AS to_json) e`,
		"SELECT (SELECT e.to_json FROM ((SELECT 1 AS to_json) e CROSS JOIN (SELECT 1 AS k) k) AS j LIMIT 1) AS r FROM hr.employees e",
		"SELECT (SELECT d.v FROM (SELECT 1 AS to_json) e, (SELECT e.to_json AS v) d LIMIT 1) AS r FROM hr.employees e",
		"SELECT (SELECT d.v FROM (SELECT e.to_json AS v) d, (SELECT 1 AS to_json) e LIMIT 1) AS r FROM hr.employees e",
		"SELECT (SELECT x.v FROM (WITH c AS (SELECT e.to_json AS v) SELECT c.v FROM c, (SELECT 1 AS to_json) e) x LIMIT 1) AS r FROM hr.employees e",
		`SELECT "A".row_to_json FROM analytics.apps "A", generate_series(1, 1) AS a(row_to_json)`,
		`SELECT "E".to_json FROM hr.employees "E", (VALUES (1)) AS e(to_json)`,
		// A subquery in FROM inside a join sees no item of its SELECT.
		"SELECT (SELECT j.v FROM (SELECT 1 AS to_json) e, (analytics.genres a CROSS JOIN (SELECT e.to_json AS v) s) j LIMIT 1) AS r FROM hr.employees e",
		"SELECT (SELECT count(*) FROM (SELECT 1 AS to_json) e, analytics.genres a CROSS JOIN (SELECT e.to_json AS v) s) AS r FROM hr.employees e",
		"SELECT (SELECT j.v FROM (SELECT 1 AS to_json) e, (analytics.genres a CROSS JOIN (WITH c AS (SELECT 1 AS k) SELECT e.to_json AS v FROM c) s) j LIMIT 1) AS r FROM hr.employees e",
		// LATERAL and a function's arguments see only the items before them.
		"SELECT (SELECT j.v FROM (analytics.genres a CROSS JOIN LATERAL (SELECT e.to_json AS v) s) j, (SELECT 1 AS to_json) e LIMIT 1) AS r FROM hr.employees e",
		"SELECT (SELECT j.u FROM (analytics.genres a CROSS JOIN unnest(ARRAY[e.to_json]) u) j, (SELECT 1 AS to_json) e LIMIT 1) AS r FROM hr.employees e",
		// ON sees only the items of its join.
		"SELECT (SELECT count(*) FROM (SELECT 1 AS to_json) e, analytics.genres a JOIN analytics.app_genres b ON e.to_json::text::int = 1) AS r FROM hr.employees e",
		// schema.table.f is that table, whatever else is named table.
		"SELECT (SELECT hr.employees.to_json FROM (SELECT 1 AS to_json) employees) AS r FROM hr.employees",
		"WITH employees AS (SELECT 1 AS to_json) SELECT (SELECT hr.employees.to_json FROM employees) AS r FROM hr.employees",
		// TABLESAMPLE's arguments see no item of their SELECT's FROM.
		"SELECT (SELECT count(*) FROM (SELECT 1 AS to_json) e, analytics.genres TABLESAMPLE system((e.to_json)::text::float4)) AS n FROM hr.employees e",
		// A join's alias is named once the join is read, not inside it.
		"SELECT (SELECT j.v FROM ((SELECT 1 AS to_json) a JOIN LATERAL (SELECT j.to_json AS v) s ON true) AS j) AS n FROM hr.employees j",
		// An aliased join hides its USING alias.
		"SELECT e.to_json FROM ((SELECT 1 AS to_json) a JOIN (SELECT 1 AS to_json) b USING (to_json) AS e) AS j JOIN hr.employees e ON true",
		// ROWS FROM is named after its first function only.
		`SELECT (SELECT json_to_record.to_json FROM ROWS FROM (generate_series(1, 1), json_to_record('{"to_json": "x"}') AS (to_json text))) AS r FROM hr.employees AS json_to_record`,
	} {
		err := Check(sql, analysts)
		if assert.Error(t, err, sql) {
			assert.Equal(t, ClassColumns, err.(*Rejection).Class, "%s: %v", sql, err)
		}
	}
}

// Policy.Functions may return rows the guard cannot name: only the
// fields it knows are taken for their columns.
func TestNamesTakenFromRowsOfExtraFunctions(t *testing.T) {
	t.Parallel()
	base, _, _ := matrixPolicies()
	base.Functions = []string{"similarity"}
	err := Check("SELECT s.pg_column_size FROM similarity('a', 'b') s", base)
	if assert.Error(t, err) {
		assert.Equal(t, ClassFunction, err.(*Rejection).Class, "%v", err)
	}
	assert.NoError(t, Check("SELECT s.s, s.name FROM similarity('a', 'b') s", base))
}

// A star stands for its relations' columns; only where none is
// restricted, as a star over a table with restricted columns is refused.
func TestNamesTakenFromADerivedTableByStar(t *testing.T) {
	t.Parallel()
	base, _, _ := matrixPolicies()
	assert.NoError(t, Check("SELECT (d).name, d.app_id FROM (SELECT * FROM analytics.apps) d", base))
	assert.NoError(t, Check("SELECT (d).name, d.one FROM (SELECT a.*, 1 AS one FROM analytics.apps a) d", base))
	err := Check("SELECT d.hash_record FROM (SELECT * FROM analytics.apps) d", base)
	if assert.Error(t, err) {
		assert.Equal(t, ClassFunction, err.(*Rejection).Class, "%v", err)
	}
}

// TestRelationColumnsAsPostgresNamesThem holds the guard's names for the
// columns of relations that are no table to PostgreSQL's own: each case's
// columns are what the server returns for it, and the guard's are those
// (in order, unless a star made them) or unknown.
func TestRelationColumnsAsPostgresNamesThem(t *testing.T) {
	t.Parallel()
	_, dbURL := storetest.NewWithURL(t)
	conn, err := pgx.Connect(t.Context(), dbURL)
	require.NoError(t, err, "connect to the test database")
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	_, err = conn.Exec(t.Context(), "CREATE TABLE apps (app_id int, name text, release_date timestamptz)")
	require.NoError(t, err)
	p := Policy{Schemas: []string{"public"}, Tables: []string{"public.apps"}, Columns: map[string][]string{"public.apps": {"app_id", "name", "release_date"}}}

	tests := []struct {
		name, from string
		sql        string   // the whole statement, instead of from
		extra      []string // names the guard also counts, of no column
		unknown    bool
	}{
		{name: "a set function", from: "generate_series(1, 3) g"},
		{name: "a set function without alias", from: "generate_series(1, 3)"},
		{name: "a column alias", from: "generate_series(1, 3) g(n)"},
		{name: "ordinality", from: "generate_series(1, 3) WITH ORDINALITY g"},
		{name: "ordinality renamed", from: "generate_series(1, 3) WITH ORDINALITY g(a, b)"},
		{name: "ROWS FROM", from: "ROWS FROM (generate_series(1, 2), upper('x')) r"},
		{name: "ROWS FROM of one function", from: "ROWS FROM (generate_series(1, 2)) r"},
		{name: "a scalar function", from: "upper('x') u"},
		{name: "json_each", from: `json_each('{"a": 1}') j`},
		{name: "json_each renamed", from: `jsonb_each_text('{"a": 1}') j(k)`},
		{name: "an OUT parameter's name", from: "jsonb_array_elements('[1]') e"},
		{name: "a column definition list", from: `json_to_record('{"a": 1}') AS t(a int, b text)`},
		{name: "a column definition list in ROWS FROM", from: `ROWS FROM (json_to_record('{"a": 1}') AS (a int), generate_series(1, 1)) r`},
		{name: "unnest of an array", from: "unnest(ARRAY[1, 2]) u", extra: []string{"lexeme", "positions", "weights"}},
		{name: "unnest of a tsvector", from: "unnest(to_tsvector('a b')) u", extra: []string{"u"}},
		{name: "unnest of two arrays", from: "unnest(ARRAY[1], ARRAY['a']) u"},
		{name: "a populated record", from: "json_populate_record(NULL::apps, '{}') p", unknown: true},
		{name: "VALUES", from: "(VALUES (1, 'a')) v"},
		{name: "VALUES renamed", from: "(VALUES (1, 'a')) v(n)"},
		{name: "a union", from: "(SELECT 1 AS a UNION SELECT 2) d"},
		{name: "a star", from: "(SELECT * FROM apps) d"},
		{name: "a qualified star and a column", from: "(SELECT a.*, 1 AS one FROM apps a) d"},
		{name: "names figured from expressions", from: `(SELECT 1::int, 'a'::text, app_id::varchar(3), CASE WHEN true THEN 1 END,
			CASE WHEN true THEN 1 ELSE app_id END, (SELECT 1 AS q), NULLIF(1, 1), CURRENT_DATE, ARRAY[1], ROW(1), COALESCE(1),
			GREATEST(1), LEAST(1), EXISTS (SELECT 1), ARRAY(SELECT 1), (SELECT 2), app_id + 1, true AND false, name IS NULL,
			(ARRAY[app_id])[1], date_trunc('month', release_date), EXTRACT(year FROM release_date), name COLLATE "C",
			CURRENT_USER, (SELECT a.name FROM apps a LIMIT 1) FROM apps) d`},
		{name: "a CTE", sql: "WITH c(x) AS (SELECT 1, 2 AS y) SELECT * FROM c"},
		{name: "a CTE renamed again", sql: "WITH c(x) AS (SELECT 1, 2 AS y) SELECT * FROM c AS d(z)"},
		{name: "a CTE's SEARCH column", sql: "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3) SEARCH DEPTH FIRST BY n SET ord SELECT * FROM c"},
		{name: "a CTE's CYCLE columns", sql: "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3) CYCLE n SET seen USING path SELECT * FROM c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sql := cmp.Or(tt.sql, "SELECT * FROM "+tt.from)
			rows, err := conn.Query(t.Context(), sql+" LIMIT 0")
			require.NoError(t, err, sql)
			var server []string
			for _, f := range rows.FieldDescriptions() {
				server = append(server, strings.ToLower(f.Name))
			}
			rows.Close()

			got := outputOf(t, sql, p)
			if tt.unknown {
				assert.False(t, got.known, "the guard names %v, PostgreSQL %v; want them unknown", got.cols, server)
				return
			}
			require.True(t, got.known, "the guard does not know the columns %v", server)
			want := append(server, tt.extra...)
			if got.unordered {
				assert.ElementsMatch(t, want, got.cols)
				return
			}
			if len(tt.extra) > 0 {
				assert.ElementsMatch(t, want, got.cols)
				return
			}
			assert.Equal(t, want, got.cols)
		})
	}
}

// TestRowFunctionsAreTheCatalogs holds rowFunctions and recordFunctions
// to pg_proc: every allowed function that returns a row, or a column
// named by an OUT parameter, is listed there with those names.
func TestRowFunctionsAreTheCatalogs(t *testing.T) {
	t.Parallel()
	_, dbURL := storetest.NewWithURL(t)
	conn, err := pgx.Connect(t.Context(), dbURL)
	require.NoError(t, err, "connect to the test database")
	t.Cleanup(func() { _ = conn.Close(context.Background()) })

	rows, err := conn.Query(t.Context(), `
		SELECT p.proname,
		       coalesce(array_agg(p.proargnames[k.i] ORDER BY k.i) FILTER (WHERE p.proargmodes[k.i] IN ('o', 'b', 't')), '{}'),
		       p.prorettype = 'record'::regtype OR p.prorettype = 'anyelement'::regtype
		FROM pg_proc p
		LEFT JOIN LATERAL generate_subscripts(p.proargmodes, 1) AS k(i) ON true
		WHERE p.proname = ANY ($1) AND p.pronamespace = 'pg_catalog'::regnamespace AND p.prokind = 'f'
		GROUP BY p.oid, p.proname, p.prorettype`, AllowedFunctions())
	require.NoError(t, err)
	type overload struct {
		Name   string
		Out    []string
		Record bool
	}
	all, err := pgx.CollectRows(rows, pgx.RowToStructByPos[overload])
	require.NoError(t, err)
	require.NotEmpty(t, all)
	for _, o := range all {
		switch {
		case o.Name == "unnest": // of a tsvector: unnestColumns
			assert.Subset(t, unnestColumns(1), o.Out, "unnest")
		case len(o.Out) > 0:
			assert.Equal(t, o.Out, rowFunctions[o.Name], "the columns of %s", o.Name)
		case o.Record && !recordFunctions[o.Name] && !slices.Contains(polymorphicScalars, o.Name):
			t.Errorf("%s returns a row of columns the guard does not know; list it in rowFunctions or recordFunctions", o.Name)
		}
	}
}

// polymorphicScalars are allowed functions returning anyelement that in
// FROM return one column of their argument's type: an element of a range
// or array, or a window or aggregate's value (which FROM refuses).
var polymorphicScalars = []string{"lower", "upper", "first_value", "last_value", "nth_value", "lag", "lead", "mode", "percentile_disc", "unnest"}

// outputOf returns the columns the guard names for the statement sql
// returns.
func outputOf(t *testing.T, sql string, p Policy) relation {
	t.Helper()
	tree, err := pg_query.Parse(sql)
	require.NoError(t, err)
	sel := tree.GetStmts()[0].GetStmt().GetSelectStmt()
	c := newChecker(sql, p)
	require.Nil(t, c.run(sel), "the guard refuses %s", sql)
	return c.outputs[sel]
}
