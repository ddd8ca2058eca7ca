package sqlguard

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// matrixPolicies are the guard's policies of the access matrix (bottest's
// access file) over its tables: base with no restricted column, the
// analysts' (the addresses masked, the prices denied) and everyone's (the
// addresses and prices denied, the titles masked).
func matrixPolicies() (base, analysts, everyone Policy) {
	base = Policy{
		Schemas: []string{"analytics", "hr"},
		Tables:  []string{"analytics.apps", "analytics.genres", "analytics.app_genres", "hr.employees", "hr.v_people"},
		Columns: map[string][]string{
			"hr.employees":   {"employee_id", "name", "email", "country", "hired"},
			"analytics.apps": {"app_id", "name", "price", "release_date"},
		},
	}
	analysts, everyone = base, base
	analysts.MaskedColumns = []string{"hr.employees.email"}
	analysts.DeniedColumns = []string{"analytics.apps.price"}
	everyone.MaskedColumns = []string{"analytics.apps.name"}
	everyone.DeniedColumns = []string{"analytics.apps.price", "hr.employees.email"}
	return base, analysts, everyone
}

// Columns reached under another name: a column alias list renames a
// table's columns, a join alias's whole row holds the columns of the
// tables joined, (x).f takes a field from a row and c.f calls a function
// on the whole row of c. The access rules hold through each of them, as
// for the access matrix's analysts (the addresses masked) and everyone
// (the addresses and prices denied, the titles masked).
func TestColumnsUnderOtherNames(t *testing.T) {
	t.Parallel()
	base, analysts, everyone := matrixPolicies()

	const (
		joined    = "(hr.employees e JOIN hr.v_people p USING (employee_id)) AS j"
		joinedApp = "(analytics.apps a JOIN analytics.app_genres g USING (app_id)) AS j"
	)
	refused := [2]bool{true, true}
	tests := []struct {
		name, sql string
		refused   [2]bool // for analysts, everyone
	}{
		{"a renamed masked column", "SELECT e FROM hr.employees AS c(i, n, e)", refused},
		{"a renamed column qualified", "SELECT a.n FROM analytics.apps AS a(i, n)", refused},
		{"a renamed column in a cast", "SELECT count(*) AS n FROM hr.employees AS c(i, n, e) WHERE e::int > 0", refused},
		{"a renamed column through a join alias", "SELECT x FROM " + joined[:len(joined)-1] + "j(x, y, z)", refused},
		{"a renamed column of a derived table", "SELECT x FROM (SELECT email FROM hr.employees) AS s(x)", refused},
		{"a renamed column of a CTE", "WITH w(x) AS (SELECT email FROM hr.employees) SELECT x FROM w", refused},
		{"a renamed function result", "SELECT x FROM hr.employees e, LATERAL lower(e.email) AS f(x)", refused},
		{"a field of a join's row", "SELECT (j).email FROM " + joined, refused},
		{"a join's whole row", "SELECT j FROM " + joined, refused},
		{"a join's row as JSON", "SELECT to_json(j) AS r FROM " + joined, refused},
		{"a join's row taken apart", "SELECT (j).* FROM " + joined, refused},
		{"a join's row into a record", "SELECT (jsonb_populate_record(NULL::hr.v_people, to_jsonb(j))).name FROM " + joined, refused},
		{"a join's column", "SELECT j.email FROM " + joined, refused},
		{"a denied field of a join's row", "SELECT (j).price FROM " + joinedApp, refused},
		{"a masked field of a join's row", "SELECT (j).name FROM " + joinedApp, [2]bool{false, true}},
		{"a join's row in a cast", "SELECT count(*) AS n FROM " + joined + " WHERE (j).email::int > 0", refused},
		{"a join inside a join alias", "SELECT j FROM ((hr.employees e JOIN hr.v_people p USING (employee_id)) JOIN analytics.genres g ON true) AS j", refused},
		{"a function on a row by attribute", "SELECT c.to_json FROM hr.employees c", refused},
		{"an aggregate on a row by attribute", "SELECT employees.array_agg FROM hr.employees", refused},
		{"a function on a join's row by attribute", "SELECT j.row_to_json FROM " + joined, refused},
		{"a field of a table's row", "SELECT (c).email FROM hr.employees c", refused},

		{"a field that may be read", "SELECT (c).name FROM hr.employees c", [2]bool{}},
		{"a masked field filtered", "SELECT count(*) AS n FROM hr.employees c WHERE (c).email LIKE 'a%'", [2]bool{false, true}},
		{"a join's column that may be read", "SELECT j.country, count(*) AS n FROM " + joined + " GROUP BY 1", [2]bool{}},
		{"a join's masked column filtered", "SELECT count(*) AS n FROM " + joined + " WHERE j.email LIKE 'a%'", [2]bool{false, true}},
		{"a subquery inside a join alias", "SELECT j FROM (hr.v_people p JOIN (SELECT employee_id FROM hr.employees) s USING (employee_id)) AS j", [2]bool{}},
		{"a column by attribute", "SELECT c.name, c.hired FROM hr.employees c", [2]bool{}},
		{"a derived table renamed", "SELECT x FROM (SELECT name FROM hr.employees) AS s(x)", [2]bool{}},
		{"a CTE renamed", "WITH w(x) AS (SELECT name FROM hr.employees) SELECT x FROM w", [2]bool{}},
		{"a table without restricted columns renamed", "SELECT i FROM analytics.genres AS g(i, n)", [2]bool{}},
		{"a join without restricted columns", "SELECT j FROM (analytics.genres g JOIN analytics.app_genres ag USING (genre_id)) AS j", [2]bool{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for i, p := range []Policy{analysts, everyone} {
				err := Check(tt.sql, p)
				who := [2]string{"analysts", "everyone"}[i]
				if !tt.refused[i] {
					assert.NoError(t, err, who)
					continue
				}
				if assert.Error(t, err, who) {
					class := err.(*Rejection).Class
					assert.Contains(t, []Class{ClassColumns, ClassAccess}, class, "%s: %v", who, err)
				}
			}
			// Without access rules the same statement is the database's.
			assert.NoError(t, Check(tt.sql, base))
		})
	}
	t.Run("without the catalog's columns a function name is a call", func(t *testing.T) {
		t.Parallel()
		p := analysts
		p.Columns = nil
		assert.Error(t, Check("SELECT c.to_jsonb FROM hr.employees c", p))
		assert.Error(t, Check("SELECT c.record_send FROM hr.employees c", p))
		assert.NoError(t, Check("SELECT c.name FROM hr.employees c", p))
	})
	t.Run("the reason says what to write instead", func(t *testing.T) {
		t.Parallel()
		err := Check("SELECT i FROM hr.employees AS c(i, n, e)", everyone)
		assert.EqualError(t, err, "columns_not_allowed: hr.employees has columns you may not read or see; do not rename its columns in FROM (AS alias(a, b, …)), name them in the select list instead (column AS name)")
	})
}
