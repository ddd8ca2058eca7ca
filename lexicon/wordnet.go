package lexicon

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// WordNet is Princeton's lexical database of English, read from the files
// of its dict directory (Debian's wordnet-base installs them in
// /usr/share/wordnet) or from the compact copy of them this package embeds
// (EmbeddedWordNet). Opening reads the index files whole, checks they are
// sorted and looks lemmas up in them by binary search, as WordNet's own
// library does; synsets are read from the data files at the offsets the
// index gives, when asked for. So opening costs a few milliseconds and
// the index files' size (6 MB), not a parse of every line.
type WordNet struct {
	// Source says where the database is read from: its directory, or
	// "embedded".
	Source string
	// dict returns the files, opened once.
	dict func() (*dict, error)
	// related remembers Related's answers: the database never changes and
	// a catalog's words come back in question after question.
	related *relatedCache
	// loaded is set once w has read its database (Loaded).
	loaded atomic.Bool
	// Logger is told, once, of a synset that could not be read after
	// opening (a data file changed or truncated under a running bot); nil
	// logs nothing.
	Logger *slog.Logger
	// warned is set once Logger has been told.
	warned atomic.Bool
}

// open returns w's database, read once for the process.
func (w *WordNet) open() (*dict, error) {
	d, err := w.dict()
	if err == nil {
		w.loaded.Store(true)
	}
	return d, err
}

// Loaded reports whether w has read its database: at once for a
// directory (OpenWordNet), after Load or a first Related for the embedded
// copy. Once it has, Related decompresses nothing.
func (w *WordNet) Loaded() bool { return w.loaded.Load() }

// maxCachedRelated bounds the words a WordNet remembers Related for; the
// cache starts over when full.
const maxCachedRelated = 4096

// relatedCache maps a lower-case word to its Related answer.
type relatedCache struct {
	mu sync.Mutex
	m  map[string][]Related
}

func (c *relatedCache) get(word string) ([]Related, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[word]
	return r, ok
}

func (c *relatedCache) put(word string, r []Related) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedRelated {
		c.m = make(map[string][]Related)
	}
	c.m[word] = r
}

// dict is a WordNet dict directory's files, opened.
type dict struct {
	// index holds each part of speech's index file: after licence lines
	// that open with a space, one line per lemma ("client", "ice_cream"),
	// sorted.
	index [numPOS][]byte
	// exc maps an inflected form to its base forms ("heaviest" → heavy).
	exc  [numPOS]map[string][]string
	data [numPOS]io.ReaderAt
	// unread is the first synset that could not be read, once opened
	// (nil while none): Related then relates less, and says so once.
	unread atomic.Pointer[error]
}

type pos int

const (
	noun pos = iota
	verb
	adj
	adv
	numPOS
)

var posNames = [numPOS]string{"noun", "verb", "adj", "adv"}

// maxSenses is how many of a lemma's senses, most frequent first, give
// synonyms, attributes and derived words; further ones are rarer meanings
// ("staff" as a stick). A noun's senses up to maxRareSenses give their
// synonyms and broader words too, as "rarer sense" and "broader", which
// grounding weighs less. The embedded copy keeps five senses a lemma
// (lexicon/internal/wordnetgen).
const (
	maxSenses     = 2
	maxRareSenses = 5
)

// maxRelated bounds the words one question word is related to.
const maxRelated = 24

// OpenWordNet opens the WordNet dict directory dir: index.{noun,verb,adj,adv},
// data.* and *.exc. The data files stay open for the life of the process.
func OpenWordNet(dir string) (_ *WordNet, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("open WordNet in %s: %w", dir, err)
		}
	}()
	var files []*os.File
	defer func() {
		if err != nil {
			for _, f := range files {
				f.Close()
			}
		}
	}()
	d, err := openDict(func(name string) ([]byte, error) {
		return os.ReadFile(filepath.Join(dir, name))
	}, func(name string) (io.ReaderAt, error) {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		return f, nil
	})
	if err != nil {
		return nil, err
	}
	w := &WordNet{Source: dir, dict: func() (*dict, error) { return d, nil }, related: &relatedCache{}}
	w.loaded.Store(true)
	return w, nil
}

// openDict reads the index and exception files with read and opens the
// data files with open.
func openDict(read func(name string) ([]byte, error), open func(name string) (io.ReaderAt, error)) (*dict, error) {
	d := &dict{}
	for p := range numPOS {
		name := posNames[p]
		raw, err := read("index." + name)
		if err != nil {
			return nil, err
		}
		var lemmas int
		if d.index[p], lemmas, err = checkIndex("index."+name, raw); err != nil {
			return nil, err
		}
		if p == noun && lemmas == 0 {
			return nil, errors.New("index.noun holds no lemma")
		}
		if d.data[p], err = open("data." + name); err != nil {
			return nil, err
		}
		if lemmas > 0 {
			if err := d.probe(p); err != nil {
				return nil, err
			}
		}
		raw, err = read(name + ".exc")
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		d.exc[p] = parseExceptions(raw)
	}
	return d, nil
}

// probe reads the first synset of the first lemma of p's index from its
// data file: a data file that is empty, cut short or of another version
// than the index would otherwise relate nothing, silently, question after
// question.
func (wn *dict) probe(p pos) error {
	name := posNames[p]
	line := wn.index[p]
	for len(line) > 0 && line[0] == ' ' { // licence lines
		_, line, _ = bytes.Cut(line, []byte{'\n'})
	}
	lemma, _, _ := bytes.Cut(line, []byte{' '})
	offs, ok := wn.senses(p, string(lemma))
	if !ok {
		return fmt.Errorf("index.%s: the line of %q names no synset it can be read by", name, lemma)
	}
	if _, err := wn.synset(p, offs[0]); err != nil {
		return fmt.Errorf("data.%s does not match index.%s (the synset of %q): %w; the directory needs WordNet's data and index files of one version",
			name, name, lemma, err)
	}
	return nil
}

// checkIndex checks each lemma's line of the index file name, "lemma pos
// synset_cnt p_cnt [ptr…] sense_cnt tagsense_cnt offset…", for its count
// of fields and its order (the lookup's binary search needs it sorted).
// Licence lines open with a space. It returns the file and its count of
// lemmas.
func checkIndex(name string, data []byte) (_ []byte, lemmas int, err error) {
	var prev []byte
	line := 0
	for rest := data; len(rest) > 0; {
		line++
		text := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			text, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if len(text) == 0 || text[0] == ' ' {
			continue
		}
		if bytes.Count(text, []byte{' '}) < 3 {
			return nil, 0, fmt.Errorf("%s:%d: too few fields", name, line)
		}
		key, _, _ := bytes.Cut(text, []byte{' '})
		if bytes.Compare(prev, key) >= 0 {
			return nil, 0, fmt.Errorf("%s:%d: %q is out of order", name, line, key)
		}
		prev = key
		lemmas++
	}
	return data, lemmas, nil
}

// senses returns the offsets of lemma's first synsets (at most
// maxRareSenses) of part of speech p, and whether p has the lemma.
func (wn *dict) senses(p pos, lemma string) ([]int64, bool) {
	line, ok := findLine(wn.index[p], lemma)
	if !ok {
		return nil, false
	}
	fs := strings.Fields(string(line))
	if len(fs) < 4 {
		return nil, false
	}
	synsets, err1 := strconv.Atoi(fs[2])
	pointers, err2 := strconv.Atoi(fs[3])
	first := 4 + pointers + 2
	if err1 != nil || err2 != nil || synsets < 1 || first+synsets > len(fs) {
		return nil, false
	}
	var offsets []int64
	for _, f := range fs[first : first+min(synsets, maxRareSenses)] {
		off, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, false
		}
		offsets = append(offsets, off)
	}
	return offsets, true
}

// findLine finds by binary search the line of a sorted index that opens
// with key and a space; licence lines (opening with a space) sort first.
func findLine(index []byte, key string) ([]byte, bool) {
	lo, hi := 0, len(index)
	for lo < hi {
		mid := lo + (hi-lo)/2
		start := bytes.LastIndexByte(index[:mid], '\n') + 1
		end := len(index)
		if i := bytes.IndexByte(index[start:], '\n'); i >= 0 {
			end = start + i
		}
		line := index[start:end]
		lemma, _, _ := bytes.Cut(line, []byte{' '})
		if len(line) > 0 && line[0] == ' ' {
			lemma = nil
		}
		switch c := bytes.Compare(lemma, []byte(key)); {
		case c == 0:
			return line, true
		case c < 0:
			lo = end + 1
		default:
			hi = start
		}
	}
	return nil, false
}

// parseExceptions parses an exception file: "inflected base [base…]".
func parseExceptions(data []byte) map[string][]string {
	out := map[string][]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if fs := strings.Fields(line); len(fs) >= 2 {
			out[fs[0]] = fs[1:]
		}
	}
	return out
}

// Related is a word WordNet relates to another, and how.
type Related struct {
	Word string
	// Via is "base form" (heaviest → heavy), "synonym" (clients →
	// customer, shop → store), "attribute" (heavy → weight), "derived"
	// (voter → vote), "broader" (a noun's hypernym: vendor → merchant)
	// or "rarer sense" (a synonym of a noun's less frequent sense: trade
	// → deal).
	Via string
}

// Related returns the single words WordNet relates to word (lower case):
// its base forms, the other words of its most frequent senses, the nouns
// its adjectives are attributes of, and the words derived from it; then,
// for a noun, the words of its senses' hypernyms and of its rarer senses.
// A collocation ("ice_cream", "e-mail") is neither looked up nor given:
// names are matched word by word. A database that cannot be read (the
// embedded copy, decompressed on first use) relates nothing.
func (w *WordNet) Related(word string) []Related {
	word = strings.ToLower(word)
	if w == nil || collocation(word) {
		return nil
	}
	if r, ok := w.related.get(word); ok {
		return slices.Clone(r) // the caller may change its copy
	}
	wn, err := w.open()
	if err != nil {
		return nil
	}
	out := wn.related(word)
	if bad := wn.unread.Load(); bad != nil && w.Logger != nil && w.warned.CompareAndSwap(false, true) {
		w.Logger.Warn("WordNet: a synset could not be read; related words are missing", "source", w.Source, "err", *bad)
	}
	w.related.put(word, out)
	return slices.Clone(out)
}

// Has reports whether word (lower case) is a word of WordNet, of any part
// of speech, as written or as an inflection of one ("weekends" of
// weekend); not a run of words written as one ("timezone", "username").
// A database that cannot be read has none.
func (w *WordNet) Has(word string) bool {
	if w == nil {
		return false
	}
	wn, err := w.open()
	if err != nil {
		return false
	}
	for p := range numPOS {
		if len(wn.baseForms(p, strings.ToLower(word))) > 0 {
			return true
		}
	}
	return false
}

// related is Related for a lower-case word that is not a collocation.
func (wn *dict) related(word string) []Related {
	var out []Related
	seen := map[string]bool{word: true}
	add := func(w, via string) {
		w = strings.ToLower(w)
		// Collocations ("nursing_staff") are left out: a name is matched
		// word by word.
		if seen[w] || collocation(w) || len(out) >= maxRelated {
			return
		}
		seen[w] = true
		out = append(out, Related{Word: w, Via: via})
	}
	for p := range numPOS {
		for _, base := range wn.baseForms(p, word) {
			if base != word {
				add(base, "base form")
			}
			offs, _ := wn.senses(p, base)
			for _, off := range offs[:min(len(offs), maxSenses)] {
				s, err := wn.synset(p, off)
				if err != nil {
					continue
				}
				for _, w := range s.words {
					add(w, "synonym")
				}
				for _, ptr := range s.pointers {
					switch {
					case ptr.symbol == "=" && p == adj:
						if t, err := wn.synset(ptr.pos, ptr.offset); err == nil {
							for _, w := range t.words {
								add(w, "attribute")
							}
						}
					case ptr.symbol == "+" && ptr.source > 0 && ptr.source <= len(s.words) && s.words[ptr.source-1] == base:
						if t, err := wn.synset(ptr.pos, ptr.offset); err == nil && ptr.target > 0 && ptr.target <= len(t.words) {
							add(t.words[ptr.target-1], "derived")
						}
					}
				}
			}
		}
	}
	// A noun's broader words and rarer senses, after all of the above.
	for _, base := range wn.baseForms(noun, word) {
		offs, _ := wn.senses(noun, base)
		for i, off := range offs {
			s, err := wn.synset(noun, off)
			if err != nil {
				continue
			}
			if i >= maxSenses {
				for _, w := range s.words {
					add(w, "rarer sense")
				}
			}
			for _, ptr := range s.pointers {
				if ptr.symbol != "@" && ptr.symbol != "@i" {
					continue
				}
				if t, err := wn.synset(ptr.pos, ptr.offset); err == nil {
					for _, w := range t.words {
						add(w, "broader")
					}
				}
			}
		}
	}
	return out
}

// baseForms are the lemmas of part of speech p that word may be a form
// of: itself, its exceptions, and WordNet's detachment rules ("morphy").
func (wn *dict) baseForms(p pos, word string) []string {
	var out []string
	add := func(w string) {
		if _, ok := wn.senses(p, w); ok && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	add(word)
	for _, b := range wn.exc[p][word] {
		add(b)
	}
	for _, r := range detach[p] {
		if stem, ok := strings.CutSuffix(word, r[0]); ok && stem != "" {
			add(stem + r[1])
		}
	}
	return out
}

// detach are WordNet's suffix rules per part of speech: ending → base ending.
var detach = [numPOS][][2]string{
	noun: {{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}},
	verb: {{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}},
	adj:  {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
}

type synset struct {
	words    []string
	pointers []pointer
}

type pointer struct {
	symbol string
	offset int64
	pos    pos
	// source and target number the words of a lexical pointer (from 1);
	// 0 for a pointer between whole synsets.
	source, target int
}

// synset reads the data line at off of part of speech p: "offset lex_filenum
// ss_type w_cnt word lex_id … p_cnt ptr… | gloss". It says why it could
// not, and the first such failure is kept (unread).
func (wn *dict) synset(p pos, off int64) (_ synset, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("data.%s at offset %d: %w", posNames[p], off, err)
			wn.unread.CompareAndSwap(nil, &err)
		}
	}()
	line, ok := readLine(wn.data[p], off)
	if !ok {
		return synset{}, errors.New("no line there (the file is shorter)")
	}
	if i := bytes.IndexByte(line, '|'); i >= 0 {
		line = line[:i]
	}
	fs := strings.Fields(string(line))
	if len(fs) < 4 || fs[0] != fmt.Sprintf("%08d", off) {
		return synset{}, errors.New("the line there is not the synset of that offset")
	}
	n, err := strconv.ParseInt(fs[3], 16, 32)
	at := 4 + 2*int(n)
	if err != nil || at >= len(fs) {
		return synset{}, errors.New("the synset's words cannot be read")
	}
	var s synset
	for i := range int(n) {
		w := fs[4+2*i]
		if j := strings.IndexByte(w, '('); j > 0 {
			w = w[:j] // an adjective's marker: "galore(ip)"
		}
		s.words = append(s.words, strings.ToLower(w))
	}
	np, err := strconv.Atoi(fs[at])
	if err != nil || at+1+4*np > len(fs) {
		return synset{}, errors.New("the synset's pointers cannot be read")
	}
	for i := range np {
		f := fs[at+1+4*i : at+5+4*i]
		o, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || len(f[3]) != 4 {
			continue
		}
		src, _ := strconv.ParseInt(f[3][:2], 16, 32)
		tgt, _ := strconv.ParseInt(f[3][2:], 16, 32)
		tp, ok := posOf(f[2])
		if !ok {
			continue
		}
		s.pointers = append(s.pointers, pointer{symbol: f[0], offset: o, pos: tp, source: int(src), target: int(tgt)})
	}
	return s, nil
}

// collocation says whether a lemma is a collocation ("nursing_staff",
// "e-mail", "a.d.").
func collocation(w string) bool { return strings.ContainsAny(w, "_-.'") }

// readLine reads the line of f that starts at off.
func readLine(f io.ReaderAt, off int64) ([]byte, bool) {
	if off < 0 {
		return nil, false
	}
	buf := make([]byte, 0, 1024)
	for {
		chunk := buf[len(buf):cap(buf)]
		n, err := f.ReadAt(chunk, off+int64(len(buf)))
		if i := bytes.IndexByte(chunk[:n], '\n'); i >= 0 {
			return buf[:len(buf)+i], true
		}
		buf = buf[:len(buf)+n]
		if err != nil {
			return buf, err == io.EOF && len(buf) > 0
		}
		buf = slices.Grow(buf, cap(buf))
	}
}

func posOf(s string) (pos, bool) {
	switch s {
	case "n":
		return noun, true
	case "v":
		return verb, true
	case "a", "s":
		return adj, true
	case "r":
		return adv, true
	}
	return 0, false
}
