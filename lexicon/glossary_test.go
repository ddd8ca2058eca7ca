package lexicon

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseGlossaryErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, file, want string }{
		{name: "empty", file: "", want: "the file is empty"},
		{name: "no terms", file: "terms: []\n", want: "no terms"},
		{name: "syntax", file: "terms:\n  - term: customer\n    synonyms: [client\n", want: "line "},
		{name: "unknown field", file: "terms:\n  - term: customer\n    synonym: [client]\n", want: "line 3: field synonym not found"},
		{name: "missing term", file: "terms:\n  - term: customer\n    synonyms: [client]\n  - synonyms: [buyer]\n", want: "line 4: a term is missing"},
		{name: "no effect", file: "terms:\n  - term: customer\n", want: `line 2: term "customer" has neither synonyms nor means`},
		{name: "claimed twice", file: "terms:\n  - term: customer\n    synonyms: [client]\n  - term: user\n    synonyms: [clients]\n",
			want: `line 4: "clients" is already a term or synonym of "customer"`},
		{name: "empty synonym", file: "terms:\n  - term: customer\n    synonyms: [\"\"]\n", want: `line 2: term "customer" has a synonym with no word in it`},
		{name: "a term of no word", file: "terms:\n  - term: \"%%\"\n    synonyms: [percent]\n", want: `line 2: term "%%" has no word in it`},
		{name: "a list, not a mapping", file: "- term: customer\n  synonyms: [client]\n", want: `expected a mapping with a list under "terms:"`},
		{name: "plain text", file: "customers are clients\n", want: `expected a mapping with a list under "terms:"`},
		{name: "a second document", file: "terms:\n  - term: customer\n    synonyms: [client]\n---\nterms: [\n", want: "more than one YAML document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseGlossary([]byte(tc.file))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestGlossaryMatch(t *testing.T) {
	t.Parallel()
	g, err := ParseGlossary([]byte(`terms:
  - term: customer
    synonyms: [client, buyer]
  - term: active user
    synonyms: [engaged users]
    means: a user whose last_seen is within the last 30 days
`))
	require.NoError(t, err)
	got := g.Match("How many Clients and engaged user accounts?")
	require.Len(t, got, 2)
	assert.Equal(t, "customer", got[0].Entry.Term)
	assert.Equal(t, "client", got[0].Phrase)
	assert.True(t, got[0].BySynonym)
	assert.Equal(t, "engaged users", got[1].Phrase, "matched up to word forms")

	got = g.Match("active users this week")
	require.Len(t, got, 1)
	assert.False(t, got[0].BySynonym)
	assert.Contains(t, got[0].Entry.Means, "last_seen")

	assert.Empty(t, g.Match("users who are active"), "a phrase matches word for word, in order")

	l := &Lexicon{Glossary: g}
	assert.Equal(t, []Expansion{{Word: "customer", From: "client", Source: SourceGlossary}}, l.Expand("top buyers? no: top client", nil))
}

func TestLoadGlossaryNamesTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "glossary.yaml")
	require.NoError(t, os.WriteFile(path, []byte("terms:\n  - synonyms: [x]\n"), 0o600))
	_, err := LoadGlossary(path)
	require.Error(t, err)
	assert.Equal(t, "glossary "+path+": line 2: a term is missing (each entry needs \"term:\")", err.Error())
}
