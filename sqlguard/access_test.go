package sqlguard

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A caller's policy: tables outside it and columns of its tables that are
// not theirs are refused as access_denied (never retried), however the
// statement reaches them; everything else in it reads as before.
func TestAccessPolicy(t *testing.T) {
	t.Parallel()
	p := Policy{
		Schemas:       []string{"sales", "analytics"},
		Tables:        []string{"analytics.orders", "analytics.customers", "sales.regions"},
		Forbidden:     []string{"analytics.salaries", "sales.orders"},
		DeniedColumns: []string{"analytics.customers.email"},
	}
	tests := []struct {
		name, sql string
		want      string // the reason, "" when allowed
	}{
		{"allowed table", "SELECT count(*) FROM analytics.orders", ""},
		{"allowed column", "SELECT c.name, count(*) FROM analytics.customers c GROUP BY 1", ""},
		{"forbidden table", "SELECT * FROM analytics.salaries", "you may not read analytics.salaries"},
		{"forbidden, unqualified", "SELECT * FROM salaries", "you may not read analytics.salaries"},
		{"unqualified resolves by search path", "SELECT * FROM orders", "you may not read sales.orders"},
		{"in a subquery", "SELECT name FROM analytics.customers WHERE id IN (SELECT customer_id FROM analytics.salaries)", "you may not read analytics.salaries"},
		{"in a CTE", "WITH s AS (SELECT * FROM analytics.salaries) SELECT count(*) FROM s", "you may not read analytics.salaries"},
		{"in a join", "SELECT o.id FROM analytics.orders o JOIN analytics.salaries s ON s.id = o.id", "you may not read analytics.salaries"},
		{"a CTE named like it is not it", "WITH salaries AS (SELECT 1 AS n) SELECT n FROM salaries", ""},
		{"denied column", "SELECT email FROM analytics.customers", "you may not read the column analytics.customers.email"},
		{"denied column qualified", "SELECT c.email FROM analytics.customers c", "you may not read the column analytics.customers.email"},
		{"denied column in WHERE", "SELECT name FROM analytics.customers WHERE email LIKE '%@acme.com'", "you may not read the column analytics.customers.email"},
		{"denied column in a function", "SELECT count(DISTINCT lower(email)) FROM analytics.customers", "you may not read the column analytics.customers.email"},
		{"star", "SELECT * FROM analytics.customers", "name the columns you need instead of *"},
		{"qualified star", "SELECT c.* FROM analytics.customers c", "name the columns you need instead of *"},
		{"whole row", "SELECT row_to_json(c) FROM analytics.customers c", "instead of the whole row"},
		{"whole row by name", "SELECT to_jsonb(customers) FROM analytics.customers", "instead of the whole row"},
		{"star through a CTE", "WITH x AS (SELECT name, email AS e FROM analytics.customers) SELECT * FROM x", "you may not read the column analytics.customers.email"},
		{"join using", "SELECT count(*) FROM analytics.customers JOIN analytics.orders USING (email)", "you may not read the column analytics.customers.email"},
		{"natural join", "SELECT count(*) FROM analytics.customers NATURAL JOIN analytics.orders", "name the columns you need instead of *"},
		{"star of another table is fine", "SELECT * FROM analytics.orders", ""},
		{"count star is not a star", "SELECT count(*) FROM analytics.customers", ""},
		{"a regclass cast reads the catalog", "SELECT 'analytics.salaries'::regclass", "system catalog"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Check(tt.sql, p)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			if assert.Error(t, err) {
				assert.Contains(t, err.Error(), tt.want)
				if !strings.Contains(tt.want, "column analytics.customers.email") {
					assert.NotContains(t, err.Error(), "email", "a rejection the generator may act on never names a denied column")
				}
				switch class := err.(*Rejection).Class; {
				case strings.HasPrefix(tt.want, "you may not read"):
					assert.Equal(t, ClassAccess, class)
					assert.True(t, class.Unsafe(), "access_denied is not the generator's to fix")
				case strings.Contains(tt.want, "instead of"):
					assert.Equal(t, ClassColumns, class)
					assert.False(t, class.Unsafe(), "listing the allowed columns fixes it")
				}
			}
		})
	}
	// Without access rules nothing changes.
	assert.NoError(t, Check("SELECT * FROM analytics.customers", Policy{Schemas: p.Schemas}))
}

// A masked column may narrow, group, order and be counted, never be
// returned, however the select list reaches it.
func TestMaskedColumns(t *testing.T) {
	t.Parallel()
	p := Policy{
		Schemas:       []string{"analytics"},
		Tables:        []string{"analytics.customers", "analytics.orders"},
		MaskedColumns: []string{"analytics.customers.email"},
	}
	tests := []struct {
		name, sql string
		ok        bool
	}{
		{"count distinct", "SELECT count(DISTINCT email) FROM analytics.customers", true},
		{"count of a filter", "SELECT count(*) FROM analytics.customers WHERE email LIKE '%@acme.com'", true},
		{"group by", "SELECT count(*) AS n FROM analytics.customers GROUP BY email ORDER BY n DESC", true},
		{"in a join condition", "SELECT count(*) FROM analytics.orders o JOIN analytics.customers c ON c.email = o.customer_email", true},
		{"a subquery's filter inside the select list", "SELECT (SELECT count(*) FROM analytics.customers c WHERE c.email LIKE 'a%') AS n", true},
		{"other columns", "SELECT name FROM analytics.customers", true},
		{"returned", "SELECT email FROM analytics.customers", false},
		{"returned qualified", "SELECT c.email FROM analytics.customers c", false},
		{"returned through a function", "SELECT lower(email) AS e FROM analytics.customers", false},
		{"returned through an aggregate", "SELECT string_agg(email, ',') FROM analytics.customers", false},
		{"returned through max", "SELECT max(email) FROM analytics.customers", false},
		{"returned through a CTE", "WITH x AS (SELECT email AS e FROM analytics.customers) SELECT count(*) FROM x", false},
		{"returned by a scalar subquery", "SELECT (SELECT min(email) FROM analytics.customers) AS e", false},
		{"star", "SELECT * FROM analytics.customers", false},
		{"whole row", "SELECT row_to_json(c) FROM analytics.customers c", false},
		{"a comparison returned", "SELECT email = 'ana@example.com' AS is_ana FROM analytics.customers", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Check(tt.sql, p)
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			if assert.Error(t, err) {
				assert.Equal(t, ClassColumns, err.(*Rejection).Class, "%v", err)
			}
		})
	}
}
