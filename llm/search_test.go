package llm

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/demo"
)

// A rule's match is found where a search of the whole prompt finds it,
// groups and indexes included, whatever spares the scripted model that
// search: prefilters, line scopes, the lines and the folded prompt a call's
// rules share, a search from the literal prefix's first occurrence. The
// demo script's rules are searched in the bot's prompts and in hand-made
// ones (a prefix that occurs before the match, or twice in it; a follow-up), changed at
// random.
func TestScriptedFindsWhatTheWholePromptSearchFinds(t *testing.T) {
	t.Parallel()
	s, err := ParseScript(demo.Script())
	require.NoError(t, err)
	prompts := []string{
		"Rows returned: 3\nRows returned: 4\nFirst rows (tab-separated):\ngenre\tprice\nAction\t9.99\n\nQuestion: What is the average price of paid games by genre?\n",
		"Rows returned: x\nFirst rows (tab-separated):\n\nRows returned: 3\nFirst rows (tab-separated):\ngenre\tprice\nAction\t9.99\n\nQuestion: What is the average price of paid games by genre?\n",
		"First rows (tab-separated):\ngames\nmany\nFirst rows (tab-separated):\ngames\n8160\n\nQuestion: How many games were released in 2018?",
		"History:\nUser: How many games were released in 2018?\nBot: 8160\nQuestion: and in 2017?",
		"Question: tell me a joke\nquestion: show me the SQL\nQUESTION: how many games did bethesda publish? (Bethesda-Soft)\n",
	}
	var bots []string // the bot's prompts, 10 KB the largest: fewer rounds
	files, err := filepath.Glob(filepath.Join("testdata", "prompts", "*.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		bots = append(bots, string(raw))
	}
	rng := rand.New(rand.NewPCG(31, 3))
	matched := 0
	search := func(prompt string) {
		scan := newPromptScan(prompt, s.numScopes)
		for i, re := range s.matches {
			want := re.FindStringSubmatchIndex(prompt)
			if want != nil && re.NumSubexp() == 0 {
				want = []int{}
			}
			require.Equal(t, want, s.find(i, scan), "rules[%d] %q in %q", i, s.rules[i].Match, prompt)
			if want != nil && s.rules[i].Match != "" {
				matched++
			}
		}
	}
	for round := range 40 {
		for _, p := range prompts {
			search(changed(rng, p, rng.IntN(4), 6, true))
		}
		if round < 3 {
			for _, p := range bots {
				search(changed(rng, p, round, 6, true)) // the first round unchanged
			}
		}
	}
	assert.Greater(t, matched, 3*len(bots), "the rules matched the bot's prompts, changed or not")
}
