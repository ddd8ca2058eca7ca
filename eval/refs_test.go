package eval

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReferences(t *testing.T) {
	tests := []struct {
		name     string
		sql      string
		tables   []string
		columns  []string
		literals []Literal
	}{
		{
			name:     "aliases lead to the table",
			sql:      `SELECT count(*) FROM analytics.apps a JOIN analytics.app_publishers ap ON ap.app_id = a.app_id JOIN analytics.publishers p ON p.publisher_id = ap.publisher_id WHERE p.name IN ('Ubisoft', 'Ubisoft®')`,
			tables:   []string{"analytics.apps", "analytics.app_publishers", "analytics.publishers"},
			columns:  []string{"app_id", "publisher_id", "name"},
			literals: []Literal{{Table: "analytics.publishers", Column: "name", Value: "Ubisoft"}, {Table: "analytics.publishers", Column: "name", Value: "Ubisoft®"}},
		},
		{
			name:     "a CTE is not a table; either side of =",
			sql:      `WITH t AS (SELECT name FROM tags WHERE 'VR' = name) SELECT * FROM t WHERE t.name <> 'x'`,
			tables:   []string{"tags"},
			columns:  []string{"name"},
			literals: []Literal{{Column: "name", Value: "VR"}},
		},
		{
			name:    "LIKE patterns are no stored values",
			sql:     `SELECT name FROM apps WHERE name ILIKE '%witcher%' AND price > 10`,
			tables:  []string{"apps"},
			columns: []string{"name", "price"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := References(tt.sql)
			require.NoError(t, err)
			assert.ElementsMatch(t, tt.tables, r.Tables)
			assert.ElementsMatch(t, tt.columns, r.Columns)
			assert.ElementsMatch(t, tt.literals, r.Literals)
		})
	}
	_, err := References("SELEC nothing")
	assert.Error(t, err)
}
