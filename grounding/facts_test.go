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
	again := Build(cat, describe, req)
	fresh := &warehouse.Catalog{Tables: append([]warehouse.Table(nil), cat.Tables...)}
	assert.Equal(t, Build(fresh, describe, req), again, "the same choice as from a catalog never seen")

	cat.Tables[0].Comment = "Storefront listings of games"
	changed := factsOf(cat)
	require.NotSame(t, first, changed, "a changed comment")
	assert.Contains(t, changed.bags[0], "storefront")
	cat.Tables = append(cat.Tables, table("analytics", "reviews", "User reviews.", "review_id", "stars"))
	assert.Len(t, factsOf(cat).bags, len(cat.Tables), "a table added")
}
