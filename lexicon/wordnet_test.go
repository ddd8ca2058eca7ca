package lexicon

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/wordnet is a few synsets in WordNet's own file format.
func TestWordNetRelated(t *testing.T) {
	t.Parallel()
	wn, err := OpenWordNet("testdata/wordnet")
	require.NoError(t, err)
	assert.True(t, wn.Loaded(), "a directory is read when opened")
	for _, tc := range []struct {
		name, word string
		want       []Related
	}{
		{name: "a synonym of a plural's base form", word: "clients",
			want: []Related{{"client", "base form"}, {"customer", "synonym"}}},
		{name: "both ways", word: "shop", want: []Related{{"store", "synonym"}}},
		{name: "an adjective's exception form, then its attribute", word: "heaviest",
			want: []Related{{"heavy", "base form"}, {"weight", "attribute"}}},
		{name: "a derived word", word: "voters",
			want: []Related{{"voter", "base form"}, {"elector", "synonym"}, {"vote", "derived"}}},
		{name: "a verb's past form", word: "voted", want: []Related{{"vote", "base form"}, {"voter", "derived"}}},
		{name: "collocations left out", word: "icecream", want: nil},
		{name: "nothing related", word: "staff", want: nil},
		{name: "unknown", word: "zzzz", want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, wn.Related(tc.word))
		})
	}
}

func TestOpenWordNetErrors(t *testing.T) {
	t.Parallel()
	_, err := OpenWordNet(t.TempDir())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "index.noun")

	dir := t.TempDir()
	for _, name := range []string{"index.noun", "index.verb", "index.adj", "index.adv", "data.noun", "data.verb", "data.adj", "data.adv"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("client n x\n"), 0o600))
	}
	_, err = OpenWordNet(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "index.noun:1")

	// Lemmas are found by binary search: an index out of order is refused.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "index.noun"),
		[]byte("  1 licence text\nshop n 1 0 1 0 00000001\nclient n 1 0 1 0 00000002\n"), 0o600))
	_, err = OpenWordNet(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `index.noun:3: "client" is out of order`)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "index.noun"), []byte("  1 licence text only\n"), 0o600))
	_, err = OpenWordNet(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "index.noun holds no lemma")
}

// installedDir is where Debian's wordnet-base installs WordNet's files.
const installedDir = "/usr/share/wordnet"

// installedWordNet returns installedDir, skipping the test where WordNet
// is not installed, or failing it in CI, which installs it.
func installedWordNet(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(installedDir, "index.noun")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("WordNet is not installed in %s (apt-get install wordnet-base)", installedDir)
		}
		t.Skip("WordNet is not installed in " + installedDir)
	}
	return installedDir
}

// The real database, where it is installed (Debian's wordnet-base; CI
// installs it): the issue's own examples.
func TestWordNetInstalled(t *testing.T) {
	t.Parallel()
	dir := installedWordNet(t)
	wn, err := OpenWordNet(dir)
	require.NoError(t, err)
	for word, want := range map[string]string{"clients": "customer", "shop": "store", "heaviest": "weight", "voters": "vote", "biggest": "size"} {
		var got []string
		for _, r := range wn.Related(word) {
			got = append(got, r.Word)
		}
		assert.Contains(t, got, want, "%s", word)
	}
	// A noun's broader words and rarer senses come after the rest.
	for word, want := range map[string]Related{
		"vendor": {"merchant", "broader"}, "trades": {"transaction", "broader"}, "trade": {"deal", "rarer sense"},
	} {
		assert.Contains(t, wn.Related(word), want, "%s", word)
	}
	assert.NotContains(t, wn.Related("clients"), Related{"customer", "rarer sense"}, "a frequent sense's synonym stays a synonym")
}

func TestForms(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"vote"}, Forms("voted"))
	assert.Equal(t, []string{"vote"}, Forms("votes"))
	assert.Equal(t, []string{"voter", "vote"}, Forms("voter"), "an agent noun reaches its verb")
	assert.Equal(t, []string{"buyer", "buy"}, Forms("buyer"))
	assert.Equal(t, []string{"editor", "edit"}, Forms("editor"))
	assert.Equal(t, []string{"engin"}, Forms("engineer"))
	assert.Equal(t, []string{"categori"}, Forms("categories"))
	assert.Equal(t, Stem("category"), Stem("categories"))
}

// Opening the installed database and the embedded copy, and relating a
// question's words with each: what WordNet costs a starting bot (the
// embedded copy's first use decompresses it), and a question.
func BenchmarkWordNet(b *testing.B) {
	question := []string{"clients", "eateries", "town", "trades", "vendors", "heaviest", "write"}
	related := func(wn *WordNet) func(b *testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, w := range question {
					wn.Related(w)
				}
			}
		}
	}
	b.Run("embedded/decompress", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeArchive(embeddedArchive); err != nil {
				b.Fatal(err)
			}
		}
		// After the loop: b.Loop resets the metrics reported before it.
		b.ReportMetric(retainedBy(b, func() (any, error) { return decodeArchive(embeddedArchive) }), "retained-B")
	})
	embedded := EmbeddedWordNet()
	if err := embedded.Load(); err != nil {
		b.Fatal(err)
	}
	b.Run("embedded/related", related(embedded))

	dir := installedDir
	if _, err := os.Stat(filepath.Join(dir, "index.noun")); err != nil {
		b.Skip("WordNet is not installed in " + dir)
	}
	b.Run("open", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := OpenWordNet(dir); err != nil {
				b.Fatal(err)
			}
		}
		// After the loop: b.Loop resets the metrics reported before it.
		b.ReportMetric(retainedBy(b, func() (any, error) { return OpenWordNet(dir) }), "retained-B")
	})
	wn, err := OpenWordNet(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("related", related(wn))
}

// retainedBy is how many bytes of heap what open returns keeps, after a
// collection: the memory a bot holds for it (README's WORDNET_DIR figures).
func retainedBy(b *testing.B, open func() (any, error)) float64 {
	b.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v, err := open()
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	return float64(after.HeapAlloc) - float64(before.HeapAlloc)
}

// The embedded copy relates the examples, with nothing installed.
func TestEmbeddedWordNet(t *testing.T) {
	t.Parallel()
	wn := EmbeddedWordNet()
	assert.False(t, wn.Loaded(), "nothing is read before Load or Related")
	require.NoError(t, wn.Load())
	assert.True(t, wn.Loaded(), "after Load, Related decompresses nothing")
	assert.Equal(t, "embedded", wn.Source)
	for word, want := range map[string]Related{
		"clients": {"customer", "synonym"}, "shop": {"store", "synonym"}, "heaviest": {"weight", "attribute"},
		"voters": {"vote", "derived"}, "biggest": {"size", "attribute"}, "vendor": {"merchant", "broader"},
		"trade": {"deal", "rarer sense"},
	} {
		assert.Contains(t, wn.Related(word), want, "%s", word)
	}
	assert.Empty(t, wn.Related("ice_cream"), "a collocation is not looked up")
	assert.Empty(t, wn.Related("zzzz"))
	for word, want := range map[string]bool{"weekends": true, "stopover": true, "cited": true, "heaviest": true,
		"timezone": false, "username": false, "datetime": false, "zzzz": false} {
		assert.Equal(t, want, wn.Has(word), "%s", word)
	}
	var none *WordNet
	assert.False(t, none.Has("weekend"))
}

// The embedded copy relates every word as the installed files do: a
// sample of every part of speech's lemmas and inflected forms.
func TestEmbeddedWordNetMatchesInstalled(t *testing.T) {
	t.Parallel()
	dir := installedWordNet(t)
	installed, err := OpenWordNet(dir)
	require.NoError(t, err)
	embedded := EmbeddedWordNet()
	words := []string{"clients", "shop", "heaviest", "voters", "voted", "biggest", "vendor", "trades", "staff", "company"}
	// Lemmas, collocations too (neither relates them), with the endings
	// WordNet's rules take off, and the exceptions' inflected forms.
	for name, endings := range map[string][]string{
		"index.noun": {"", "s", "es"}, "index.verb": {"", "ed", "ing"}, "index.adj": {"", "er", "est"}, "index.adv": {""},
		"noun.exc": {""}, "verb.exc": {""}, "adj.exc": {""}, "adv.exc": {""},
	} {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		for i, line := range strings.Split(string(raw), "\n") {
			if w, _, _ := strings.Cut(line, " "); i%sampleEvery == 0 && w != "" {
				for _, e := range endings {
					words = append(words, w+e)
				}
			}
		}
	}
	require.Greater(t, len(words), 1500)
	related := 0
	for _, w := range words {
		want := installed.Related(w)
		if len(want) > 0 {
			related++
		}
		if got := embedded.Related(w); !assert.Equal(t, want, got, "%s", w) {
			break
		}
	}
	assert.Greater(t, related, len(words)/3, "many sampled words relate to some")
}

// sampleEvery: every that many lines of WordNet's files is a sampled word
// (1 checks them all: about 8 s without -race).
const sampleEvery = 29

// Asked again, WordNet relates a word as the first time, whatever the
// caller did with the first answer, and in any letter case.
func TestWordNetRelatedAgain(t *testing.T) {
	t.Parallel()
	wn := EmbeddedWordNet()
	first := wn.Related("clients")
	require.NotEmpty(t, first)
	want := slices.Clone(first)
	first[0] = Related{Word: "changed", Via: "by the caller"}
	assert.Equal(t, want, wn.Related("clients"))
	assert.Equal(t, want, wn.Related("Clients"))
	assert.Empty(t, wn.Related("zzzz"))
	assert.Empty(t, wn.Related("zzzz"))
}
