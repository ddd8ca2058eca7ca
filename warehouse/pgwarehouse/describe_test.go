package pgwarehouse_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// A table described in part says how many columns it leaves out, and a
// column with few values lists them, quoted as SQL literals.
func TestDescribeInPartWithValues(t *testing.T) {
	t.Parallel()
	b := pgwarehouse.New(pgwarehouse.Config{})
	t.Cleanup(b.Close)
	got := b.Dialect().Describe([]warehouse.Table{{
		Schema: "world", Name: "countrylanguage", Comment: "Languages spoken per country.", LeftOut: 12,
		Columns: []warehouse.TableColumn{
			{Name: "countrycode", Type: "character(3)"},
			{Name: "is_official", Type: "text", Comment: "Official language?", Values: []string{"F", "T"}},
			{Name: "note", Type: "text", Values: []string{"it's"}},
		},
	}})
	assert.Equal(t, "\nTABLE world.countrylanguage -- Languages spoken per country.\n"+
		"  countrycode character(3)\n"+
		"  is_official text -- Official language?; values: 'F', 'T'\n"+
		"  note text -- values: 'it''s'\n"+
		"  … 12 more columns, not shown\n", got)
}
