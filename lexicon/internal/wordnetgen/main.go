// Command wordnetgen writes the compact WordNet that package lexicon
// embeds (lexicon/wordnet/wordnet.tar.gz) from a WordNet 3.0 dict
// directory (Debian's wordnet-base: /usr/share/wordnet). It keeps WordNet's
// own file format, so lexicon reads it with the same code as the
// directory, and only what lexicon.WordNet.Related reads: single-word
// lemmas (it neither looks up nor gives collocations such as
// "ice_cream", but reaches some as base forms: "comics" → comic_strip),
// each with its first five synsets; the single words of the synsets those
// are and reach; the pointers it follows (hypernyms,
// attributes, derived words). Every file keeps its licence lines. The output is the same for the same input
// and Go release: entries in a fixed order, no times, no names.
//
//	go run ./internal/wordnetgen -o wordnet/wordnet.tar.gz /usr/share/wordnet
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// maxSenses is how many of a lemma's synsets, most frequent first, are
// kept: lexicon reads at most five (maxRareSenses there).
const maxSenses = 5

// keptPointers are the pointers lexicon follows, by the letter of the
// part of speech they start from: a noun's hypernyms and instance
// hypernyms, an adjective's attributes (the nouns it is a value of), and
// the words derived from a word, of every part of speech.
var keptPointers = map[byte]map[string]bool{
	'n': {"@": true, "@i": true, "+": true},
	'v': {"+": true},
	'a': {"=": true, "+": true},
	'r': {"+": true},
}

var posNames = []string{"noun", "verb", "adj", "adv"}

// collocation says whether a lemma or a synset's word is a collocation
// ("ice_cream", "e-mail", "a.d."), which lexicon leaves out.
func collocation(w string) bool { return strings.ContainsAny(w, "_-.'") }

// readable says which lemmas and words lexicon may read, by the letter of
// their part of speech: single words, and the collocations an exception
// file gives as a single word's base form ("comics" → comic_strip).
type readable map[byte]map[string]bool

func (r readable) has(letter byte, w string) bool {
	w = strings.ToLower(w)
	return !collocation(w) || r[letter][w]
}

func main() {
	out := flag.String("o", "wordnet.tar.gz", "the file to write")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: wordnetgen [-o file] dict-directory")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out); err != nil {
		fmt.Fprintln(os.Stderr, "wordnetgen:", err)
		os.Exit(1)
	}
}

func run(dir, out string) error {
	files, err := compact(dir)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := archive(&buf, files); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// file is one file of the compact dict directory.
type file struct {
	name string
	data []byte
}

// archive writes files as a gzip-compressed tar, with nothing that depends
// on when or where it was made.
func archive(w io.Writer, files []file) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), ModTime: time.Unix(0, 0), Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(f.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// synsetKey names a synset by its part of speech's letter (n, v, a, r)
// and its offset in the original data file.
type synsetKey struct {
	pos    byte
	offset int64
}

// indexLine is an index file's line: "lemma pos synset_cnt p_cnt [ptr…]
// sense_cnt tagsense_cnt offset…".
type indexLine struct {
	lemma, pos string
	offsets    []int64
}

// dataLine is a data file's line cut to what is kept: "offset lex_filenum
// ss_type w_cnt word lex_id … p_cnt ptr…" with its pointers as fields.
type dataLine struct {
	head     []string // lex_filenum ss_type w_cnt word lex_id …
	pointers [][4]string
	// renumber maps a word's number in the original line (from 1) to its
	// number here, 0 for a collocation left out.
	renumber []int
}

// compact reads dir and returns the compact files, in a fixed order.
func compact(dir string) ([]file, error) {
	letters := map[string]byte{"noun": 'n', "verb": 'v', "adj": 'a', "adv": 'r'}
	index := map[string][]indexLine{}
	licence := map[string][]byte{}
	data := map[synsetKey]dataLine{}
	order := map[string][]int64{} // each data file's offsets, in file order
	excs := map[string][]byte{}
	read := readable{}
	for _, p := range posNames {
		exc, err := os.ReadFile(filepath.Join(dir, p+".exc"))
		if err != nil {
			return nil, err
		}
		excs[p] = exc
		read[letters[p]] = map[string]bool{}
		for _, line := range strings.Split(string(exc), "\n") {
			if fs := strings.Fields(line); len(fs) >= 2 && !collocation(fs[0]) {
				for _, base := range fs[1:] {
					read[letters[p]][base] = true
				}
			}
		}
	}
	for _, p := range posNames {
		lines, lic, err := readIndex(filepath.Join(dir, "index."+p), func(w string) bool { return read.has(letters[p], w) })
		if err != nil {
			return nil, err
		}
		index[p], licence["index."+p] = lines, lic
		lic, err = readData(filepath.Join(dir, "data."+p), letters[p], read, data, func(off int64) { order[p] = append(order[p], off) })
		if err != nil {
			return nil, err
		}
		licence["data."+p] = lic
	}
	// Kept: each lemma's first synsets with their pointers, and the
	// synsets those point to, with their words only.
	senses := map[synsetKey]bool{}
	kept := map[synsetKey]bool{}
	for _, p := range posNames {
		for _, l := range index[p] {
			for _, off := range l.offsets {
				k := synsetKey{letters[p], off}
				if _, ok := data[k]; !ok {
					return nil, fmt.Errorf("index.%s: %q: no synset at %08d in data.%s", p, l.lemma, off, p)
				}
				senses[k], kept[k] = true, true
			}
		}
	}
	for k := range senses {
		l := data[k]
		var pointers [][4]string
		for _, ptr := range l.pointers {
			t, err := target(ptr)
			if err != nil {
				return nil, err
			}
			tl, ok := data[t]
			if !ok {
				return nil, fmt.Errorf("a pointer from %c %08d to %c %08d, which is not there", k.pos, k.offset, t.pos, t.offset)
			}
			if len(tl.head) <= 3 {
				continue // a synset of collocations only
			}
			if ptr[3] != "0000" {
				// A pointer to a word: to a collocation it is left out.
				tgt, err := strconv.ParseInt(ptr[3][2:], 16, 32)
				if err != nil || tgt < 1 || int(tgt) >= len(tl.renumber) {
					return nil, fmt.Errorf("a pointer from %c %08d to word %s of %c %08d, which is not there", k.pos, k.offset, ptr[3][2:], t.pos, t.offset)
				}
				if tl.renumber[tgt] == 0 {
					continue
				}
				ptr[3] = fmt.Sprintf("%s%02x", ptr[3][:2], tl.renumber[tgt])
			}
			pointers = append(pointers, ptr)
			kept[t] = true
		}
		l.pointers = pointers
		data[k] = l
	}
	// New offsets: every offset is written with eight digits, so a line's
	// length does not depend on them.
	renumbered := map[synsetKey]int64{}
	for _, p := range posNames {
		at := int64(len(licence["data."+p]))
		for _, off := range order[p] {
			k := synsetKey{letters[p], off}
			if kept[k] {
				renumbered[k] = at
				at += int64(len(renderData(0, data[k], senses[k], nil)))
			}
		}
	}
	var files []file
	for _, p := range posNames {
		var b bytes.Buffer
		b.Write(licence["index."+p])
		for _, l := range index[p] {
			fmt.Fprintf(&b, "%s %s %d 0 %d 0", l.lemma, l.pos, len(l.offsets), len(l.offsets))
			for _, off := range l.offsets {
				fmt.Fprintf(&b, " %08d", renumbered[synsetKey{letters[p], off}])
			}
			b.WriteString("\n")
		}
		files = append(files, file{"index." + p, b.Bytes()})

		var d bytes.Buffer
		d.Write(licence["data."+p])
		for _, off := range order[p] {
			k := synsetKey{letters[p], off}
			if kept[k] {
				d.WriteString(renderData(renumbered[k], data[k], senses[k], renumbered))
			}
		}
		files = append(files, file{"data." + p, d.Bytes()})
	}
	for _, p := range posNames {
		files = append(files, file{p + ".exc", excs[p]})
	}
	return files, nil
}

// renderData writes a kept synset's line at offset off; a synset kept only
// as a pointer's target loses its pointers. Offsets come from renumbered
// (nil: zeros, for measuring).
func renderData(off int64, l dataLine, withPointers bool, renumbered map[synsetKey]int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%08d %s", off, strings.Join(l.head, " "))
	if !withPointers {
		b.WriteString(" 000\n")
		return b.String()
	}
	fmt.Fprintf(&b, " %03d", len(l.pointers))
	for _, ptr := range l.pointers {
		t, _ := target(ptr)
		fmt.Fprintf(&b, " %s %08d %s %s", ptr[0], renumbered[t], ptr[2], ptr[3])
	}
	b.WriteString("\n")
	return b.String()
}

// target is the synset a pointer "symbol offset pos source/target" names.
func target(ptr [4]string) (synsetKey, error) {
	off, err := strconv.ParseInt(ptr[1], 10, 64)
	if err != nil || len(ptr[2]) != 1 {
		return synsetKey{}, fmt.Errorf("bad pointer %q", ptr)
	}
	p := ptr[2][0]
	if p == 's' {
		p = 'a' // an adjective satellite lives in data.adj
	}
	return synsetKey{p, off}, nil
}

// readIndex returns the lines of an index file's lemmas to keep, each with
// its first synsets, and its licence lines (those that open with a space).
func readIndex(path string, keep func(lemma string) bool) ([]indexLine, []byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var lines []indexLine
	var licence []byte
	for n, text := range strings.Split(string(raw), "\n") {
		if text == "" {
			continue
		}
		if text[0] == ' ' {
			licence = append(licence, text+"\n"...)
			continue
		}
		fs := strings.Fields(text)
		bad := fmt.Errorf("%s:%d: malformed line", filepath.Base(path), n+1)
		if len(fs) < 6 {
			return nil, nil, bad
		}
		synsets, err1 := strconv.Atoi(fs[2])
		pointers, err2 := strconv.Atoi(fs[3])
		first := 4 + pointers + 2
		if err1 != nil || err2 != nil || synsets < 1 || first+synsets != len(fs) {
			return nil, nil, bad
		}
		if !keep(fs[0]) {
			continue
		}
		l := indexLine{lemma: fs[0], pos: fs[1]}
		for _, f := range fs[first : first+min(synsets, maxSenses)] {
			off, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return nil, nil, bad
			}
			l.offsets = append(l.offsets, off)
		}
		lines = append(lines, l)
	}
	return lines, licence, nil
}

// readData reads a data file's synsets into data, keyed by the letter of
// its part of speech, calls each with every offset in file order, and
// returns the file's licence lines.
func readData(path string, letter byte, read readable, data map[synsetKey]dataLine, each func(int64)) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var licence []byte
	at := int64(0)
	for n, text := range strings.SplitAfter(string(raw), "\n") {
		off := at
		at += int64(len(text))
		if strings.TrimSpace(text) == "" {
			continue
		}
		if text[0] == ' ' {
			licence = append(licence, text...)
			continue
		}
		bad := fmt.Errorf("%s:%d: malformed line", filepath.Base(path), n+1)
		text, _, _ = strings.Cut(text, "|")
		fs := strings.Fields(text)
		if len(fs) < 4 || fs[0] != fmt.Sprintf("%08d", off) {
			return nil, bad
		}
		words, err := strconv.ParseInt(fs[3], 16, 32)
		at2 := 4 + 2*int(words)
		if err != nil || at2 >= len(fs) {
			return nil, bad
		}
		np, err := strconv.Atoi(fs[at2])
		if err != nil || at2+1+4*np > len(fs) {
			return nil, bad
		}
		// The words kept, numbered anew from 1 (0: left out);
		// lex_filenum and each word's lex_id, which lexicon does not
		// read, become 0.
		renumber := make([]int, words+1)
		var single []string
		for i := range int(words) {
			if w := fs[4+2*i]; read.has(letter, w) {
				single = append(single, w, "0")
				renumber[i+1] = len(single) / 2
			}
		}
		l := dataLine{head: append([]string{"00", fs[2], fmt.Sprintf("%02x", len(single)/2)}, single...)}
		for i := range np {
			f := fs[at2+1+4*i : at2+5+4*i]
			if !keptPointers[letter][f[0]] {
				continue
			}
			if f[3] != "0000" {
				// A pointer between words: both must be single words,
				// the target's counted in its own synset, so checked when
				// the target is read (resolveWords).
				src, err1 := strconv.ParseInt(f[3][:2], 16, 32)
				tgt, err2 := strconv.ParseInt(f[3][2:], 16, 32)
				if err1 != nil || err2 != nil || src < 1 || int(src) > int(words) {
					return nil, bad
				}
				if renumber[src] == 0 {
					continue
				}
				f = []string{f[0], f[1], f[2], fmt.Sprintf("%02x%02x", renumber[src], tgt)}
			}
			l.pointers = append(l.pointers, [4]string{f[0], f[1], f[2], f[3]})
		}
		l.renumber = renumber
		data[synsetKey{letter, off}] = l
		each(off)
	}
	return licence, nil
}
