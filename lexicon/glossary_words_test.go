package lexicon

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A question's words are split as grounding splits them: on dashes,
// ellipses, no-break spaces and guillemets too, not only on ASCII.
func TestGlossaryMatchUnicode(t *testing.T) {
	t.Parallel()
	testMatches(t, `terms:
  - term: customer
    synonyms: [client]
  - term: active user
    means: a user whose last_seen is within the last 30 days
  - term: 顧客
    synonyms: [お客様]
`, []matchCase{
		{name: "em dash", question: "clients—by region", want: []string{"customer"}},
		{name: "ellipsis", question: "clients… ok", want: []string{"customer"}},
		{name: "no-break space", question: "each active\u00a0user", want: []string{"active user"}},
		{name: "guillemets", question: "«client» count", want: []string{"customer"}},
		{name: "not ASCII, a word of its own", question: "お客様 数", want: []string{"顧客"}},
		{name: "a dash alone names nothing", question: "sales — by region"},
	})
}

// A word with + or # at its end (C++, C#) or a short token of letters
// joined by & (AT&T) is matched as written, up to case.
func TestGlossaryMatchSymbols(t *testing.T) {
	t.Parallel()
	testMatches(t, `terms:
  - term: C++
    synonyms: [cpp]
  - term: C#
    synonyms: [csharp]
  - term: AT&T
    means: the carrier
`, []matchCase{
		{name: "C++ as written", question: "jobs asking for C++, by city", want: []string{"C++"}},
		{name: "C# as written", question: "jobs asking for (C#)", want: []string{"C#"}},
		{name: "a single letter is not C++", question: "vitamin c sales"},
		{name: "C is neither", question: "grade C students"},
		{name: "AT&T as written", question: "at&t subscribers", want: []string{"AT&T"}},
		{name: "AT and T apart is not AT&T", question: "at t subscribers"},
	})
}

// A word joined to + # & or @ in any other way is split from it as any
// other symbol splits words, so the glossary still finds it by its stem;
// C++, C# and C stay three terms, and "Q & A" spaced is Q&A.
func TestGlossaryMatchJoinedWords(t *testing.T) {
	t.Parallel()
	testMatches(t, `terms:
  - term: sales
    means: the sales table
  - term: signup
    means: a row of signups
  - term: customer
    synonyms: [client]
  - term: e-mail
    means: customers.email
  - term: Q&A
    means: the questions table
  - term: C++
    means: the language
  - term: C#
    means: another
  - term: C
    means: a third
`, []matchCase{
		{name: "& between long words", question: "sales&marketing budget", want: []string{"sales"}},
		{name: "& spaced between long words", question: "sales & marketing budget", want: []string{"sales"}},
		{name: "+ between words", question: "total sales+refunds", want: []string{"sales"}},
		{name: "# before a word", question: "how many #signups", want: []string{"signup"}},
		{name: "@ between words", question: "signups@acme", want: []string{"signup"}},
		{name: "@ before a word", question: "@customers by city", want: []string{"customer"}},
		{name: "Q&A as written", question: "Q&A count", want: []string{"Q&A"}},
		{name: "Q & A spaced", question: "Q & A count", want: []string{"Q&A"}},
		{name: "Q & A in brackets", question: "count (q & a) rows", want: []string{"Q&A"}},
		{name: "Q and A apart is not Q&A", question: "q a count"},
		{name: "C++", question: "jobs asking for C++", want: []string{"C++"}},
		{name: "C#", question: "jobs asking for C#", want: []string{"C#"}},
		{name: "C", question: "jobs asking for C", want: []string{"C"}},
		{name: "all three", question: "c++, c# or c jobs", want: []string{"C++", "C#", "C"}},
		{name: "C++ and C# are not C", question: "c++/c# jobs", want: []string{"C++", "C#"}},
		{name: "vitamin c is C, not C++ or C#", question: "vitamin c sales", want: []string{"sales", "C"}},
		{name: "e-mail", question: "e-mail of each client", want: []string{"customer", "e-mail"}},
		{name: "curly apostrophe", question: "each customer’s orders", want: []string{"customer"}},
		{name: "plural apostrophe", question: "the customers' orders", want: []string{"customer"}},
		{name: "plurals", question: "clients with signups", want: []string{"signup", "customer"}},
	})
}

type matchCase struct {
	name, question string
	want           []string
}

// testMatches checks the terms (or none) each case's question names in the
// glossary file, in the glossary's order.
func testMatches(t *testing.T, file string, cases []matchCase) {
	t.Helper()
	g, err := ParseGlossary([]byte(file))
	require.NoError(t, err)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, m := range g.Match(tc.question) {
				got = append(got, m.Entry.Term)
			}
			assert.Equal(t, tc.want, got, "terms %q names", tc.question)
		})
	}
}

// Each problem of an entry is reported, once, in characters rather than
// bytes; a term of symbols alone, a repeated term and too many synonyms
// are refused.
func TestParseGlossaryProblems(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("客", 81)
	for _, tc := range []struct {
		name, file string
		want       []string
	}{
		{name: "a dash is no word", file: "terms:\n  - term: \"—\"\n    means: a dash\n",
			want: []string{`line 2: term "—" has no word in it (a letter or a digit)`}},
		{name: "a trademark sign is no word", file: "terms:\n  - term: brand\n    synonyms: [\"™\"]\n",
			want: []string{`line 2: term "brand" has a synonym with no word in it (a letter or a digit): "™"`}},
		{name: "pluses are no word", file: "terms:\n  - term: \"++\"\n    means: increment\n",
			want: []string{`line 2: term "++" has no word in it`}},
		{name: "a term twice", file: "terms:\n  - term: customer\n    synonyms: [client]\n  - term: Customer\n    means: a buyer\n",
			want: []string{`line 4: term "Customer" is already an entry, at line 2: merge the two`}},
		{name: "a long term and a long meaning", file: "terms:\n  - term: " + long + "\n    means: " + strings.Repeat("x", 501) + "\n",
			want: []string{`means is 501 characters, longer than 500`, `is 81 characters, longer than 80`}},
		{name: "too many synonyms", file: "terms:\n  - term: customer\n    synonyms: [" + synonyms(51) + "]\n",
			want: []string{`line 2: term "customer" has 51 synonyms, more than 50`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseGlossary([]byte(tc.file))
			require.Error(t, err)
			problems := strings.Split(err.Error(), "; ")
			require.Len(t, problems, len(tc.want), "problems: %v", problems)
			for i, w := range tc.want {
				assert.Contains(t, problems[i], w)
			}
		})
	}
}

func synonyms(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("client%d", i)
	}
	return strings.Join(s, ", ")
}

// Terms longer than 80 bytes but not 80 characters, and terms that
// differ only by their symbols, are accepted.
func TestParseGlossaryAccepts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, file string }{
		{name: "27 Chinese characters", file: "terms:\n  - term: " + strings.Repeat("客", 27) + "\n    means: a customer\n"},
		{name: "C++ and C#", file: "terms:\n  - term: C++\n    means: the language\n  - term: C#\n    means: another\n  - term: C\n    means: a third\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g, err := ParseGlossary([]byte(tc.file))
			require.NoError(t, err)
			assert.NotEmpty(t, g.Entries)
		})
	}
}

// A glossary file larger than the cap is refused before it is parsed.
func TestLoadGlossaryTooLarge(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "glossary.yaml")
	var b strings.Builder
	b.WriteString("terms:\n")
	for i := 0; b.Len() <= MaxGlossaryBytes; i++ {
		fmt.Fprintf(&b, "  - term: term%d\n    means: %s\n", i, strings.Repeat("x", 400))
	}
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	_, err := LoadGlossary(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "larger than 1048576 bytes")
}

// BenchmarkGlossaryMatch matches a question against the largest glossary
// the caps allow in 1 MiB: every term and synonym is indexed once, at load.
func BenchmarkGlossaryMatch(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("terms:\n")
	for i := 0; i < maxGlossaryEntries; i++ {
		fmt.Fprintf(&sb, "  - term: term%d\n    synonyms: [", i)
		for j := 0; j < 6; j++ {
			fmt.Fprintf(&sb, "s%dx%d word, ", i, j)
		}
		sb.WriteString("]\n")
	}
	g, err := ParseGlossary([]byte(sb.String()))
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		g.Match("how many active users of s12x3 word bought clients each month in 2024")
	}
}
