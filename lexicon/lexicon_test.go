package lexicon

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A quoted name's words are not read for their senses: "Mark’s Bistro"
// is a business, not a grade; the same word outside quotes still is.
func TestExpandSkipsQuotedNames(t *testing.T) {
	l := &Lexicon{WordNet: EmbeddedWordNet()}
	related := func(question string, words ...string) map[string]bool {
		out := map[string]bool{}
		for _, e := range l.Expand(question, words) {
			out[e.From] = true
		}
		return out
	}
	for _, q := range []string{
		`check-ins for the business named "Mark’s Bistro"`,
		`check-ins for the business named “Mark’s Bistro”`,
		`check-ins for the business named 'Mark’s Bistro'?`,
		`check-ins for 'Marks Bistro'`,
	} {
		got := related(q, "mark", "bistro", "business")
		assert.False(t, got["mark"], "%s: a quoted name's word expanded", q)
		assert.True(t, got["business"], "%s: a word outside the quotes not expanded", q)
	}
	assert.True(t, related("the highest mark of each student", "mark")["mark"], "an unquoted word is expanded")
	assert.True(t, related("Mark’s and Joe’s marks", "mark")["mark"], "apostrophes are not quotes")
}

func TestSameRoot(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		word, related string
		want          bool
	}{
		{"cited", "citation", true},
		{"stopover", "stop", true},
		{"time", "timing", true},
		{"vendor", "vend", true},
		{"trade", "transaction", false},
		{"clients", "customer", false},
		{"company", "accompany", false},
		{"at", "atom", false},
	} {
		assert.Equal(t, tc.want, SameRoot(tc.word, tc.related), "%s, %s", tc.word, tc.related)
	}
}
