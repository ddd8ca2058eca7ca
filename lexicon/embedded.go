package lexicon

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"io/fs"
	"sync"
)

// The embedded WordNet: WordNet 3.0's dict files (Debian's wordnet-base)
// cut to what Related reads, by lexicon/internal/wordnetgen. Its licence,
// source and changes are in wordnet/README.md.
//
//go:generate go run ./internal/wordnetgen -o wordnet/wordnet.tar.gz /usr/share/wordnet
//go:embed wordnet/wordnet.tar.gz
var embeddedArchive []byte

// EmbeddedSource is the Source of the embedded WordNet.
const EmbeddedSource = "embedded"

// EmbeddedWordNet is the WordNet this package embeds (WordNet 3.0, cut to
// the lemmas and pointers Related reads, 2.3 MB compressed). It costs
// nothing until its first use, which decompresses it (about 8 MB) once
// for the whole process.
func EmbeddedWordNet() *WordNet {
	return &WordNet{Source: EmbeddedSource, dict: embeddedDict, related: &relatedCache{}}
}

var embeddedDict = sync.OnceValues(func() (*dict, error) {
	d, err := decodeArchive(embeddedArchive)
	if err != nil {
		return nil, fmt.Errorf("the embedded WordNet: %w", err)
	}
	return d, nil
})

// decodeArchive reads a dict directory from a gzip-compressed tar.
func decodeArchive(archive []byte) (*dict, error) {
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		b := make([]byte, h.Size)
		if _, err := io.ReadFull(tr, b); err != nil {
			return nil, fmt.Errorf("%s: %w", h.Name, err)
		}
		files[h.Name] = b
	}
	file := func(name string) ([]byte, error) {
		b, ok := files[name]
		if !ok {
			return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
		}
		return b, nil
	}
	return openDict(file, func(name string) (io.ReaderAt, error) {
		b, err := file(name)
		if err != nil {
			return nil, err
		}
		return bytes.NewReader(b), nil
	})
}

// Load opens the database now, where its first use would: the embedded
// copy decompresses once for the process. A bot calls it at start, so its
// first question does not pay for it. It returns why the database cannot
// be read.
func (w *WordNet) Load() error {
	_, err := w.open()
	return err
}
