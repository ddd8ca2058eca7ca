package grounding

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// A catalog's facts are made once and read by every question after; a
// catalog changed in place gets new ones, and the choice is the same as
// from a catalog seen for the first time.
func TestFactsMadeOncePerCatalog(t *testing.T) {
	t.Parallel()
	cat := steam(100)
	first := factsOf(cat)
	assert.Same(t, first, factsOf(cat), "asked again")

	req := Request{Question: "Which publishers released the most games in 2018?", Budget: 400}
	again := Build(cat, sqlLike, req)
	fresh := &warehouse.Catalog{Tables: append([]warehouse.Table(nil), cat.Tables...)}
	assert.Equal(t, Build(fresh, sqlLike, req), again, "the same choice as from a catalog never seen")

	cat.Tables[0].Comment = "Storefront listings of games"
	changed := factsOf(cat)
	require.NotSame(t, first, changed, "a changed comment")
	assert.Contains(t, changed.bags[0], "storefront")
	cat.Tables = append(cat.Tables, table("analytics", "reviews", "User reviews.", "review_id", "stars"))
	assert.Len(t, factsOf(cat).bags, len(cat.Tables), "a table added")
}

// The whole catalog's description is kept from one question to the next,
// per describer, and never outlives a change to what it shows: a
// column's values set in place are shown at the next question.
func TestWholeDescriptionKeptPerDescriber(t *testing.T) {
	t.Parallel()
	cat := steam(0)
	req := Request{Question: "Which publishers released the most games?", Budget: 100_000}
	c := Build(cat, sqlLike, req)
	require.True(t, c.Whole, "the catalog fits")
	assert.Equal(t, describe(cat.Tables), c.Catalog)
	assert.Equal(t, describe(cat.Tables), Build(cat, sqlLike, req).Catalog, "asked again")
	assert.Equal(t, describeValues(cat.Tables), Build(cat, withValues, req).Catalog, "another describer")

	cat.Tables[0].Columns[1].Values = []string{"Early Access"}
	got := Build(cat, withValues, req).Catalog
	assert.Contains(t, got, "'Early Access'", "values set after the first question")
	assert.Equal(t, describeValues(cat.Tables), got)
}

// Two describers of the same code that describe differently (closures
// over different state) each get their own whole description, by their
// names; one with no name is asked every time.
func TestWholeDescriptionPerDescriberName(t *testing.T) {
	t.Parallel()
	cat := steam(0)
	req := Request{Question: "Which publishers released the most games?", Budget: 100_000}
	headed := func(name, heading string) Describer {
		return Describer{Name: name, Describe: func(tables []warehouse.Table) string { return heading + describe(tables) }}
	}
	for _, heading := range []string{"-- Steam store\n", "-- Steam warehouse\n"} {
		c := Build(cat, headed(heading, heading), req)
		require.True(t, c.Whole, "the catalog fits")
		assert.Equal(t, heading+describe(cat.Tables), c.Catalog)
	}
	calls := 0
	unnamed := Describer{Describe: func(tables []warehouse.Table) string { calls++; return describe(tables) }}
	Build(cat, unnamed, req)
	Build(cat, unnamed, req)
	assert.Equal(t, 2, calls, "an unnamed describer describes the whole catalog at each question")
}

// withValues describes tables with each column's values (describeValues).
var withValues = Describer{Name: "with values", Describe: describeValues}

// describeValues describes tables as describe does, with each column's
// values.
func describeValues(tables []warehouse.Table) string {
	out := describe(tables)
	for _, tb := range tables {
		for _, c := range tb.Columns {
			if len(c.Values) > 0 {
				out += tb.Name + "." + c.Name + " values: " + warehouse.DescribeValues(c.Values) + "\n"
			}
		}
	}
	return out
}
