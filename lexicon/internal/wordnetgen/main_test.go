package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The archive is the same bytes each time, and the embedded copy is what
// the generator makes of the installed WordNet (regenerate with `go
// generate ./lexicon`). One compaction: it takes 20 s under -race.
func TestGenerated(t *testing.T) {
	const dir = "/usr/share/wordnet"
	if _, err := os.Stat(dir + "/index.noun"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("WordNet is not installed in %s (apt-get install wordnet-base)", dir)
		}
		t.Skip("WordNet is not installed in " + dir)
	}
	files, err := compact(dir)
	require.NoError(t, err)
	var runs [2]bytes.Buffer
	for i := range runs {
		require.NoError(t, archive(&runs[i], files))
	}
	assert.Equal(t, runs[0].Bytes(), runs[1].Bytes(), "the same bytes each time")

	embedded, err := os.ReadFile("../../wordnet/wordnet.tar.gz")
	require.NoError(t, err)
	// Compared unpacked: another Go release may compress differently.
	assert.Equal(t, unpack(t, runs[0].Bytes()), unpack(t, embedded), "lexicon/wordnet/wordnet.tar.gz is out of date: go generate ./lexicon")
}

func unpack(t *testing.T, archive []byte) map[string][]byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	require.NoError(t, err)
	out := map[string][]byte{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		out[h.Name], err = io.ReadAll(tr)
		require.NoError(t, err)
	}
}

// A directory that is not WordNet's says which file is missing.
func TestCompactMissing(t *testing.T) {
	_, err := compact(t.TempDir())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "noun.exc")
}
