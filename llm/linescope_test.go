package llm

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An expression searched line by line finds what a search of the whole
// prompt finds, groups and indexes included: whatever the letter case, the
// other spellings (?i) matches, stray bytes, newlines and several question
// lines. Expressions a line cannot hold are searched whole.
func TestLineScopeFindsWhatTheWholePromptSearchFinds(t *testing.T) {
	t.Parallel()
	scoped := []string{
		`(?im)^Question: .*\b(joke|weather|hello|hi|hey|thanks|thank you|poem|who are you|recipe)\b`,
		`(?im)^Question: (?:(?:please|can you|could you|can i|could i|let me) )?(?:show|see|give)(?: me)? the (?:sql|query)\b`,
		`(?im)^Question: how many games were released in (?P<year>(?:19|20)\d\d) ?\??$`,
		`(?im)^Question: how many games did bethesda publish\? \((?P<choice>Bethesda Softworks|Bethesda-Softworks|Bethesda-Soft)\)$`,
		`(?im)^Question: .*\bstudios?\b`,
		`(?m)^Question: (\w+) (?:games|kiss)`,
		`(?im)^kelvin$`,
	}
	whole := []string{
		`(?s)First rows \(tab-separated\):\n[^\n]+\n(?P<n>\d+)\n.*\nQuestion: How many games were released in (?P<year>\d{4}) ?\??\s*$`,
		`(?im)^Question: how many games\s+are free`, // \s matches a newline
		`(?i)^Question: how many`,                   // ^ is the text's start
		`(?im)^Question: [^?]*\?`,                   // [^?] matches a newline
		`(?im)^(Question): x`,                       // no literal after ^
		`(?im)^Question: x\z`,
	}
	for _, e := range scoped {
		assert.True(t, newLineScope(e).ok, "%s is searched line by line", e)
	}
	for _, e := range whole {
		assert.False(t, newLineScope(e).ok, "%s is searched whole", e)
	}
	prompts := []string{
		"Tables: apps\nQuestion: how many games were released in 2018?\n",
		"Example\nQuestion: how many games did bethesda publish? (Bethesda Softworks)\nQuestion: tell me a joke\n",
		"User: hi\nQuestion: which studios made the most games?",
		"Question: show me the sql\nquestion: kiss games\nKelvin\n",
		"Question: could you give the query\r\nQuestion: hello there\n\n",
	}
	rng := rand.New(rand.NewPCG(31, 2))
	matched := map[string]int{}
	for range 3000 {
		for _, p := range prompts {
			prompt := changed(rng, p, rng.IntN(4), 6, true)
			for _, e := range scoped {
				re := regexp.MustCompile(e)
				s := newLineScope(e)
				want := re.FindStringSubmatchIndex(prompt)
				got := s.find(re, prompt, true)
				require.Equal(t, want, got, "%q in %q", e, prompt)
				assert.Equal(t, re.MatchString(prompt), s.find(re, prompt, false) != nil, "%q in %q", e, prompt)
				if want != nil {
					matched[e]++
				}
			}
		}
	}
	for _, e := range scoped {
		assert.Positive(t, matched[e], "changed prompts %q still matched", e)
	}
	t.Logf("prompts matched: %v", matched)
}
