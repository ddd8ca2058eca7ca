package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// TestCLIContext shows what the generator would be given, without the
// model: the whole demo catalog under the default budget, the tables the
// question needs under a small one, and the prompt on request.
func TestCLIContext(t *testing.T) {
	_, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)
	load := runCLI(t, "", "demo", "load")
	require.NoError(t, load.err, "stderr: %s", load.stderr)
	const question = "Which genres have the most games?"

	got := runCLI(t, "", "context", "--json", question)
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	var whole contextJSON
	require.NoError(t, json.Unmarshal([]byte(got.stdout), &whole))
	assert.True(t, whole.Whole, "the demo's 13 tables fit the default budget")
	assert.Len(t, whole.Tables, 13)
	assert.Equal(t, whole.CatalogTokens, whole.WholeCatalogTokens)
	assert.Equal(t, "postgres", whole.Backend)
	assert.Empty(t, whole.Prompt, "the prompt only with --prompt")

	t.Setenv("SCHEMA_BUDGET_TOKENS", "1200")
	got = runCLI(t, "", "context", "--json", "--prompt", question)
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	var cut contextJSON
	require.NoError(t, json.Unmarshal([]byte(got.stdout), &cut))
	assert.False(t, cut.Whole)
	assert.LessOrEqual(t, cut.CatalogTokens, 1200, "within the budget")
	assert.Less(t, cut.PromptTokens, cut.WholePromptTokens)
	require.NotEmpty(t, cut.Tables)
	var chosen []string
	for _, tb := range cut.Tables {
		chosen = append(chosen, tb.Name)
		assert.NotEmpty(t, tb.Reasons, "every chosen table says why: %s", tb.Name)
	}
	assert.Contains(t, chosen, "analytics.genres")
	assert.Contains(t, chosen, "analytics.app_genres")
	assert.NotContains(t, chosen, "analytics.platforms")
	assert.Contains(t, cut.Prompt, "TABLE analytics.genres", "--prompt shows the rendered prompt")
	assert.Contains(t, cut.Prompt, "\nQuestion: "+question)

	got = runCLI(t, "", "context", question)
	require.NoError(t, got.err)
	assert.Contains(t, got.stdout, "analytics.genres", "the human form lists the tables")
	assert.Contains(t, got.stdout, "question: genre, game", "with their reasons")

	// A name the data spells several ways, none of them the name: the
	// generator may ask back which.
	got = runCLI(t, "", "context", "How many games did Bethesda publish?")
	require.NoError(t, got.err)
	assert.Contains(t, got.stdout, "may ask back (several values match about equally well):\n"+
		`  "Bethesda": analytics.publishers.name `)
	for _, v := range []string{"'Bethesda Softworks'", "'Bethesda-Softworks'", "'Bethesda-Soft'"} {
		assert.Contains(t, got.stdout, v)
	}
	got = runCLI(t, "", "context", "How many games did Ubisoft publish?")
	require.NoError(t, got.err)
	assert.NotContains(t, got.stdout, "may ask back", "one value is the name itself")

	// The codes are listed whole: the demo's platforms, a lookup table of
	// a key and a name, the top table's codes before lower tables' columns.
	got = runCLI(t, "", "context", "--json", "--prompt", "How many games run on Linux?")
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	var listed contextJSON
	require.NoError(t, json.Unmarshal([]byte(got.stdout), &listed))
	assert.Contains(t, listed.Listed, contextListedJSON{Column: "analytics.platforms.name", Values: []string{"linux", "mac", "windows"}, Why: "top table, room kept"})
	assert.Contains(t, listed.Prompt, "values: 'linux', 'mac', 'windows'")
	require.NotEmpty(t, listed.Values)
	assert.Equal(t, contextValueJSON{Column: "analytics.platforms.name", Value: "linux", Phrase: "Linux", Similarity: 1, Why: "exact"},
		listed.Values[0], "an exact match first, saying why")

	// At 700 tokens the apps table (about 790 described) is described in
	// part: its key and the columns the question needs, and how many it
	// leaves out.
	t.Setenv("SCHEMA_BUDGET_TOKENS", "700")
	const pricey = "What is the average price of games by Ubisoft?"
	got = runCLI(t, "", "context", "--json", "--prompt", pricey)
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	var part contextJSON
	require.NoError(t, json.Unmarshal([]byte(got.stdout), &part))
	assert.LessOrEqual(t, part.CatalogTokens, 700)
	var apps *contextTableJSON
	for i, tb := range part.Tables {
		if tb.Name == "analytics.apps" {
			apps = &part.Tables[i]
		}
	}
	require.NotNil(t, apps, "apps is described, in part: %+v", part.Tables)
	assert.Positive(t, apps.LeftOut)
	assert.Contains(t, apps.Columns, contextColumnJSON{Name: "app_id", Why: "key"})
	why := map[string]string{}
	for _, c := range apps.Columns {
		why[c.Name] = c.Why
	}
	assert.Contains(t, why["price"], "question: price")
	assert.Contains(t, part.Prompt, fmt.Sprintf("  … %d more columns, not shown\n", apps.LeftOut))
	got = runCLI(t, "", "context", pricey)
	require.NoError(t, got.err)
	assert.Contains(t, got.stdout, "app_id (key)", "the human form lists the kept columns")
	assert.Regexp(t, `\d+ of 18 columns: .*price \(question: price.*; \d+ left out`, got.stdout)

	usage := runCLI(t, "", "context")
	assert.ErrorIs(t, usage.err, errUsage, "no question")

	// Under an access file the choice is what the asker's policy sees: the
	// command line's (the default policy), or --user's. `demo load` built
	// the value index.
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
policies:
  - name: full
    users: [UADMIN]
    tables: ["analytics.*"]
  - name: titles_masked
    tables: ["analytics.*"]
    mask_columns: ["analytics.apps.name"]
default: titles_masked
`), 0o600))
	t.Setenv("ACCESS_FILE", path)
	columns := func(args ...string) []string {
		t.Helper()
		got := runCLI(t, "", append([]string{"context", "--json"}, args...)...)
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		var c contextJSON
		require.NoError(t, json.Unmarshal([]byte(got.stdout), &c))
		var cols []string
		for _, v := range c.Values {
			cols = append(cols, v.Column)
		}
		return cols
	}
	const title = `Release year of "Counter-Strike"`
	assert.Contains(t, columns("--user", "UADMIN", title), "analytics.apps.name", "the full policy's matched titles")
	assert.NotContains(t, columns(title), "analytics.apps.name", "none for a policy that masks them")
}

// TestCLIContextRelatedWords shows why a table was chosen when the
// question does not use its words: the glossary's term for a synonym,
// WordNet's related word, a word form, and the classifier's terms as
// --terms gives them; and the glossary's meaning of a term it names.
func TestCLIContextRelatedWords(t *testing.T) {
	_, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)
	load := runCLI(t, "", "demo", "load")
	require.NoError(t, load.err, "stderr: %s", load.stderr)
	glossary := filepath.Join(t.TempDir(), "glossary.yaml")
	require.NoError(t, os.WriteFile(glossary, []byte(`terms:
  - term: publisher
    synonyms: [studio, label]
    means: a company in analytics.publishers that put out games
`), 0o600))
	t.Setenv("GLOSSARY_FILE", glossary)
	t.Setenv("WORDNET_DIR", "../../lexicon/testdata/wordnet") // shop → store
	const question = "Which studios released the most games in the shop?"

	got := runCLI(t, "", "context", "--terms", "genres, !!", question)
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	for _, want := range []string{
		"glossary: studio → publisher",
		"word form: released → release",
		"model term: genres",
		"wordnet synonym: shop → store", // the demo's comments say "Steam store"
		"model terms: genres, !!",
		"glossary:\n  publisher (said \"studio\"): a company in analytics.publishers that put out games\n",
	} {
		assert.Contains(t, got.stdout, want)
	}

	got = runCLI(t, "", "context", "--json", "--prompt", "--terms", "genres", question)
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	var c contextJSON
	require.NoError(t, json.Unmarshal([]byte(got.stdout), &c))
	assert.Equal(t, []string{"genres"}, c.SearchTerms)
	assert.Equal(t, []contextGlossaryJSON{{Term: "publisher", Said: "studio", Means: "a company in analytics.publishers that put out games"}}, c.Glossary)
	assert.Contains(t, c.Prompt, "- publisher: a company in analytics.publishers that put out games\n", "the generator is told")

	t.Setenv("GLOSSARY_FILE", filepath.Join(t.TempDir(), "missing.yaml"))
	got = runCLI(t, "", "context", question)
	require.Error(t, got.err)
	assert.Contains(t, got.err.Error(), "GLOSSARY_FILE", "stderr: %s", got.stderr)
}
