package sqlguard

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// (x).f is x.f: a column of the relation x, or else the function f on x's
// whole row; (v).f of any other value v is its field f or the function f
// called on v. A function so called is judged as a call: on the
// allowlist, dangerous ones refused as pg_sleep(1) is, and a whole row
// with a masked or denied column refused whatever function reads it.
func TestNamesTakenFromRows(t *testing.T) {
	t.Parallel()
	base, analysts, _ := matrixPolicies()
	plain := Policy{Schemas: []string{"analytics", "hr"}}
	const (
		joined    = "(hr.employees e JOIN hr.v_people p USING (employee_id)) AS j"
		joinedApp = "(analytics.apps a JOIN analytics.app_genres g USING (app_id)) AS j"
	)
	tests := []struct {
		name, sql string
		p         Policy
		want      Class // "" when it may run
	}{
		// A function on a whole row by field notation.
		{"a function on a row as a field", "SELECT (c).to_json AS r FROM hr.employees c", analysts, ClassColumns},
		{"a function on a row in double parentheses", "SELECT ((c)).to_json AS r FROM hr.employees c", analysts, ClassColumns},
		{"a function on a table's row by its name", "SELECT (employees).to_json AS r FROM hr.employees", analysts, ClassColumns},
		{"a function on a join's row as a field", "SELECT (j).row_to_json AS r FROM " + joined, analysts, ClassColumns},
		{"a function on a denied row as a field", "SELECT (a).to_jsonb AS r FROM analytics.apps a", analysts, ClassColumns},
		{"an unlisted function on a row as a field", "SELECT (c).hash_record AS r FROM hr.employees c", analysts, ClassFunction},
		{"an unlisted function on a row by attribute", "SELECT c.record_out AS r FROM hr.employees c", analysts, ClassFunction},
		{"an unlisted function on a row without rules", "SELECT c.record_out AS r FROM hr.employees c", base, ClassFunction},

		// The allowlist holds for any value a name is taken from.
		{"pg_sleep as a field of a constant", "SELECT (0.1).pg_sleep AS r", plain, ClassSleep},
		{"pg_advisory_lock as a field of a constant", "SELECT (1).pg_advisory_lock AS r", plain, ClassSideEffect},
		{"pg_sleep as a field of a column", "SELECT (price).pg_sleep AS r FROM analytics.apps", plain, ClassSleep},
		{"pg_sleep as a field of a qualified column", "SELECT (a.price).pg_sleep AS r FROM analytics.apps a", plain, ClassSleep},
		{"pg_sleep as a field of a field", "SELECT (a).price.pg_sleep AS r FROM analytics.apps a", plain, ClassSleep},
		{"pg_sleep as a field after a subscript", "SELECT (ARRAY[0.1])[1].pg_sleep AS r", plain, ClassSleep},
		{"pg_sleep as a field of a function's column", "SELECT (g).pg_sleep AS r FROM generate_series(1, 2) g", plain, ClassSleep},
		{"pg_sleep as a field of a relation's row", "SELECT (a).pg_sleep AS r FROM analytics.apps a", base, ClassSleep},
		{"pg_sleep as a field of a function's result", "SELECT (abs(1)).pg_sleep AS r", plain, ClassSleep},
		{"pg_sleep quoted as a field", `SELECT (1)."pg_sleep" AS r`, plain, ClassSleep},
		{"a quoted name is the function of that case", `SELECT ('a')."LOWER" AS r`, plain, ClassFunction},
		{"an unlisted function as a field", "SELECT ('data_directory').current_setting AS r", plain, ClassFunction},
		{"an allowed function as a field", "SELECT (x).upper AS r FROM (SELECT 'a' AS x) s", plain, ""},
		{"a field of json_each", `SELECT (jsonb_each('{"a": 1}'::jsonb)).key`, plain, ""},
		{"a masked column through a function as a field", "SELECT count(*) AS n FROM hr.employees WHERE (email).int4 > 0", analysts, ClassColumns},
		{"a masked column through a safe function as a field", "SELECT count(*) AS n FROM hr.employees WHERE (email).lower LIKE 'a%'", analysts, ""},
		{"a field of a row that may be read", "SELECT (c).name FROM hr.employees c", analysts, ""},
		{"a column of a known relation as a field", "SELECT (c).name FROM hr.employees c", base, ""},

		// A name qualified by a join alias is a column of any relation joined.
		{"another table's column through a join alias", "SELECT j.genre_id FROM " + joinedApp, analysts, ""},
		{"another table's known column through a join alias", "SELECT j.country FROM (analytics.apps a JOIN hr.employees e ON true) AS j", analysts, ""},
		{"a derived table's column under a reused alias", "SELECT a.x FROM (SELECT name AS x FROM analytics.apps a) a", analysts, ""},
		{"a function on a join's row by attribute", "SELECT j.to_json AS r FROM " + joinedApp, analysts, ClassColumns},
		{"a function on a join's row of known tables", "SELECT j.to_json AS r FROM (analytics.apps a JOIN hr.employees e ON true) AS j", analysts, ClassColumns},

		// A name is looked up in the SELECT it is written in, then the
		// SELECTs around it: an alias a subquery reuses for a table is
		// that table there.
		{"a function on a table's row under an alias reused outside",
			"SELECT (SELECT a.hash_record FROM analytics.apps a WHERE a.app_id = 1) AS r FROM (SELECT 1) a", analysts, ClassFunction},
		{"a function on a table's row under an alias a function in FROM reuses",
			"SELECT (SELECT a.hash_record FROM analytics.apps a WHERE a.app_id = 1) AS r FROM generate_series(1, 1) a", analysts, ClassFunction},
		{"a whole row under an alias a derived table with that column reuses",
			"SELECT (SELECT a.to_json FROM analytics.apps a LIMIT 1) AS r FROM (SELECT 1 AS to_json) a", analysts, ClassColumns},
		{"a masked row under an alias reused outside",
			"SELECT (SELECT e.to_json FROM hr.employees e LIMIT 1) AS r FROM (SELECT 1 AS to_json) e", analysts, ClassColumns},
		{"a whole row in one branch of a UNION",
			"SELECT a.to_json::text AS r FROM analytics.apps a UNION ALL SELECT a.to_json::text FROM (SELECT 'x' AS to_json) a", analysts, ClassColumns},
		{"a CTE's column under a table's alias reused inside it",
			"WITH per AS (SELECT a.app_id, count(*) AS n FROM analytics.apps a GROUP BY a.app_id) SELECT a.app_id, a.n FROM per a", analysts, ""},
		{"a derived table's column of a cast", "SELECT d.release_date, d.n FROM (SELECT release_date::date, count(*) AS n FROM analytics.apps GROUP BY 1) d", analysts, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Check(tt.sql, tt.p)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			if assert.Error(t, err) {
				assert.Equal(t, tt.want, err.(*Rejection).Class, "%v", err)
			}
		})
	}
	t.Run("a refused function in field notation over a function in FROM", func(t *testing.T) {
		t.Parallel()
		for _, sql := range []string{
			"SELECT g.pg_sleep AS r FROM generate_series(1, 1) g",
			"SELECT g.pg_advisory_lock AS r FROM generate_series(7, 7) g",
			"SELECT g.pg_terminate_backend AS r FROM generate_series(1, 99999) g",
			"SELECT generate_series.pg_sleep AS r FROM generate_series(1, 1)",
			"SELECT (SELECT g.pg_sleep FROM (SELECT 1 AS pg_sleep) g) AS r FROM generate_series(1, 1) g",
		} {
			for _, p := range []Policy{plain, analysts} {
				err := Check(sql, p)
				if assert.Error(t, err, sql) {
					assert.Contains(t, []Class{ClassSleep, ClassSideEffect}, err.(*Rejection).Class, "%s: %v", sql, err)
				}
			}
		}
	})
	t.Run("a call in field notation is refused as the call is", func(t *testing.T) {
		t.Parallel()
		assert.Equal(t, Check("SELECT pg_sleep(1) AS r", plain), Check("SELECT (1).pg_sleep AS r", plain))
	})
}
