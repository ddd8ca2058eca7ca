package grounding

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Two words of a table with one stem and the same weight ("voted",
// "voting"): the word form's reason names the same one, the first in
// alphabetical order, however the table's words happen to be kept. Each
// round is a catalog seen for the first time, so its facts are made anew.
func TestWordFormReasonIsStable(t *testing.T) {
	t.Parallel()
	r := Request{Question: "Count the voters", Budget: 100_000}
	for range 50 {
		cat := &warehouse.Catalog{Tables: []warehouse.Table{
			table("polls", "ballots", "", "ballot_id", "voting", "voted"),
		}}
		c := Build(cat, sqlLike, r)
		require.Len(t, c.Tables, 1)
		if !assert.Equal(t, []string{"word form: voter → voted"}, c.Tables[0].Reasons) {
			return
		}
	}
}
