package bot

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/caarlos0/env/v11"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/lexicon"
)

// WORDNET_DIR: empty reads the embedded WordNet, a directory that one,
// "off" none; the start log says which; a directory that is not WordNet's
// stops the bot saying what is wrong with it.
func TestConfigWordNet(t *testing.T) {
	t.Parallel()
	words := func(lex *lexicon.Lexicon, word string) []string {
		var out []string
		for _, e := range lex.Expand(word, []string{word}) {
			out = append(out, e.Word)
		}
		return out
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))

	lex, err := Config{}.lexicon(log)
	require.NoError(t, err)
	require.NotNil(t, lex.WordNet)
	assert.Equal(t, "embedded", lex.WordNet.Source)
	assert.True(t, lex.WordNet.Loaded(), "the embedded WordNet is decompressed at start, not by the first question")
	assert.Contains(t, words(lex, "clients"), "customer")
	assert.Contains(t, words(lex, "heaviest"), "weight")
	assert.Contains(t, logs.String(), "msg=WordNet source=embedded")

	lex, err = Config{WordNetDir: "../lexicon/testdata/wordnet"}.lexicon(log)
	require.NoError(t, err)
	assert.Equal(t, "../lexicon/testdata/wordnet", lex.WordNet.Source)
	assert.Equal(t, []string{"store"}, words(lex, "shop"))

	logs.Reset()
	lex, err = Config{WordNetDir: WordNetOff}.lexicon(log)
	require.NoError(t, err)
	assert.Nil(t, lex, "no WordNet and no glossary: nothing to expand with")
	assert.Contains(t, logs.String(), "WordNet is off")
	lex, err = Config{WordNetDir: WordNetOff, GlossaryFile: "../evals/defog-glossary.yaml"}.lexicon(log)
	require.NoError(t, err)
	assert.Nil(t, lex.WordNet)
	assert.NotContains(t, words(lex, "heaviest"), "weight", "the glossary, not WordNet")
	check := func(dir string) error {
		var c Config
		require.NoError(t, env.ParseWithOptions(&c, env.Options{Environment: map[string]string{"LLM_PROVIDER": "script", "WORDNET_DIR": dir}}))
		return c.Check()
	}
	assert.NoError(t, check(WordNetOff))

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "index.noun"), []byte("client n x\n"), 0o600))
	assert.NoError(t, check(dir), "it has an index.noun")
	_, err = Config{WordNetDir: dir}.lexicon(log)
	require.Error(t, err)
	assert.Equal(t, "WORDNET_DIR: open WordNet in "+dir+": index.noun:1: too few fields", err.Error())

	// Index files whose data files were emptied: refused at start, not
	// opened to relate nothing.
	broken := t.TempDir()
	for _, name := range []string{"index.noun", "index.verb", "index.adj", "index.adv", "data.adv"} {
		b, err := os.ReadFile(filepath.Join("../lexicon/testdata/wordnet", name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(broken, name), b, 0o600))
	}
	for _, name := range []string{"data.noun", "data.verb", "data.adj"} {
		require.NoError(t, os.WriteFile(filepath.Join(broken, name), nil, 0o600))
	}
	logs.Reset()
	_, err = Config{WordNetDir: broken}.lexicon(log)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "WORDNET_DIR: open WordNet in "+broken+": data.noun does not match index.noun")
	assert.NotContains(t, logs.String(), "msg=WordNet source=")

	missing := filepath.Join(dir, "nowhere")
	err = check(missing)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `WORDNET_DIR: "`+missing+`" is no WordNet dict directory`)
	assert.Contains(t, err.Error(), `leave it empty for the embedded copy, "off" for none`)
}
