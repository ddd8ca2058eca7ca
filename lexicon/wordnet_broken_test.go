package lexicon

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// copyWordNet copies testdata/wordnet into a directory of the test's own.
func copyWordNet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir("testdata/wordnet")
	require.NoError(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("testdata/wordnet", e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600))
	}
	return dir
}

// A directory whose data files do not hold the synsets its index files
// name is refused at open, saying which file, rather than opened to
// relate nothing.
func TestOpenWordNetBrokenData(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, file, text, want string
	}{
		{name: "data.noun emptied", file: "data.noun", text: "",
			want: `data.noun does not match index.noun (the synset of "client"): data.noun at offset 169: no line there`},
		{name: "data.verb emptied", file: "data.verb", text: "",
			want: `data.verb does not match index.verb (the synset of "vote")`},
		{name: "data.adj of another version", file: "data.adj", text: strings.Repeat("x", 169) + "00000999 00 a 01 heavy 0 000 | shifted\n",
			want: `data.adj at offset 169: the line there is not the synset of that offset`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := copyWordNet(t)
			require.NoError(t, os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.text), 0o600))
			_, err := OpenWordNet(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "open WordNet in "+dir+": ")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// A data file cut short under a running bot relates less, and its
// Logger is told once.
func TestWordNetUnreadWarnsOnce(t *testing.T) {
	t.Parallel()
	dir := copyWordNet(t)
	wn, err := OpenWordNet(dir)
	require.NoError(t, err)
	var logs bytes.Buffer
	wn.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	require.NoError(t, os.Truncate(filepath.Join(dir, "data.noun"), 0))
	assert.Empty(t, wn.Related("clients")[1:], "no synonym read")
	assert.Empty(t, wn.Related("customer"))
	got := logs.String()
	assert.Equal(t, 1, strings.Count(got, "level=WARN"), "logs: %s", got)
	assert.Contains(t, got, "WordNet: a synset could not be read")
	assert.Contains(t, got, "data.noun at offset")
}
