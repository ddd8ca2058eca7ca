package llm

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The prefilter rules a prompt out only when the expression cannot match
// it: never a prompt the expression matches, whatever its letter case,
// the other spellings (?i) matches (the Kelvin sign, the long s) or
// invalid bytes.
func TestPrefilterNeverRulesOutAMatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, expr, prompt string
		may                bool
	}{
		{"the question line", `(?im)^Question: how many games were released in (?P<year>(?:19|20)\d\d) ?\??$`,
			"Tables: ...\nQUESTION: How Many Games were released in 2018?\n", true},
		{"another question", `(?im)^Question: how many games are free ?\??$`,
			"Question: How many games were released in 2018?", false},
		{"a case-sensitive literal missing", `(?s)^.*\nUser: (?P<before>[^\n]*?)(?:19|20)\d\d`, "Question: And in 2017?", false},
		{"the Kelvin sign is a k", `(?i)kelvin`, "\u212aELVIN", true},
		{"the long s is an s", `(?i)question`, "queſtion", true},
		{"an alternative requires nothing", `(?i)(?:joke|weather)`, "no such words", true},
		{"a group repeated at least once", `(?:abc)+x`, "zzabx", false},
		{"a group perhaps absent", `(?:abc)?x`, "zzx", true},
		{"a literal matching an invalid byte", "a\uFFFDb", "a\xffb", true},
		{"an empty expression", ``, "anything", true},
	} {
		re := regexp.MustCompile(tc.expr)
		canon := ""
		got := newPrefilter(tc.expr).may(tc.prompt, &canon)
		assert.Equal(t, tc.may, got, tc.name)
		if re.MatchString(tc.prompt) {
			assert.True(t, got, "%s: the expression matches", tc.name)
		}
	}

	// Prompts that match, changed at random: letters in the other case,
	// other spellings (?i) matches, stray bytes. Whenever an expression
	// still matches, the prefilter lets it.
	cases := []struct{ expr, prompt string }{
		{`(?im)^Question: how many games did bethesda publish\? \((?P<choice>Bethesda Softworks|Bethesda-Softworks|Bethesda-Soft)\)$`,
			"Tables: apps\nQuestion: how many games did bethesda publish? (Bethesda Softworks)\n"},
		{`(?s)First rows \(tab-separated\):\n[^\n]+\n(?P<n>\d+)\n.*\nQuestion: How many games were released in (?P<year>\d{4}) ?\??\s*$`,
			"Rows returned: 1\nFirst rows (tab-separated):\ngames\n8160\n\nQuestion: How many games were released in 2018?\n"},
		{`(?im)^Question: .*\bstudios?\b`, "Question: which studios made the most games?"},
		{`(?i)kiss(?:es)+ and s`, "KISSES and S"},
	}
	rng := rand.New(rand.NewPCG(31, 1))
	matched := map[string]int{}
	for range 5000 {
		for _, c := range cases {
			prompt := changed(rng, c.prompt, 1+rng.IntN(3), 8, false)
			if regexp.MustCompile(c.expr).MatchString(prompt) {
				matched[c.expr]++
				canon := ""
				if !newPrefilter(c.expr).may(prompt, &canon) {
					t.Fatalf("%q matches %q, but the prefilter rules it out", c.expr, prompt)
				}
			}
		}
	}
	for _, c := range cases {
		assert.Positive(t, matched[c.expr], "changed prompts %q still matched", c.expr)
	}
	t.Logf("prompts matched: %v", matched)
}

// changed is prompt with edits runes changed at random, as a model's
// caller might send it: a k or s in another spelling (?i) matches (the
// Kelvin sign, the long s), one in oneIn an invalid byte (and, with
// newlines, one in oneIn of the rest a line break), the rest a letter in
// either case.
func changed(rng *rand.Rand, prompt string, edits, oneIn int, newlines bool) string {
	rs := []rune(prompt)
	for range edits {
		i := rng.IntN(len(rs))
		switch r := rs[i]; {
		case r == 'k' || r == 'K':
			rs[i] = '\u212a'
		case r == 's' || r == 'S':
			rs[i] = 'ſ'
		case rng.IntN(oneIn) == 0:
			rs[i] = '\uFFFD'
		case newlines && rng.IntN(oneIn) == 0:
			rs[i] = '\n'
		default:
			rs[i] = []rune(strings.ToUpper(string(r)))[0]
			if rng.IntN(2) == 0 {
				rs[i] = []rune(strings.ToLower(string(r)))[0]
			}
		}
	}
	return strings.ReplaceAll(string(rs), "\uFFFD", "\xff")
}

// foldCanon spells a text as strings.Map(canonRune, …) does, rune by rune:
// ASCII, letters of other scripts, the Kelvin sign and the long s, invalid
// bytes, in texts long enough to cross its buffer anywhere in a rune.
func TestFoldCanonIsCanonRuneMapped(t *testing.T) {
	t.Parallel()
	pieces := []string{"a", "Z", "k", "s", "\u212a", "ſ", "é", "Σσς", "ǅ", "中", "😀", "\xff", "\xe2\x84", " ", "\n", "Question: "}
	rng := rand.New(rand.NewPCG(31, 4))
	for range 300 {
		var b strings.Builder
		for n := rng.IntN(3000); b.Len() < n; {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := foldCanon(s), strings.Map(canonRune, s); got != want {
			t.Fatalf("foldCanon(%q) = %q, want %q", s, got, want)
		}
	}
}
