package lexicon

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Glossary is the team's own words for its data (GLOSSARY_FILE): each term
// with the synonyms people use for it and, optionally, what it means in
// the data ("active user": last_seen within the last 30 days). A question
// that says a synonym is grounded as if it said the term; a question that
// says either shows the generator what the term means.
type Glossary struct {
	Entries []GlossaryEntry
	// index holds the words of every term and synonym, worked out once
	// by ParseGlossary: Match runs at least twice per question.
	index *phraseIndex
}

// GlossaryEntry is one term of a glossary.
type GlossaryEntry struct {
	// Term is the word or phrase of the data ("customer", "active user").
	Term string `yaml:"term"`
	// Synonyms are other words people use for it ("client", "buyer").
	Synonyms []string `yaml:"synonyms"`
	// Means says what the term is in the data, for the query generator:
	// "a user whose last_seen is within the last 30 days".
	Means string `yaml:"means"`
}

// Glossary limits: a file a team writes, not a dictionary. Lengths are
// in characters (runes), not bytes.
const (
	// MaxGlossaryBytes bounds the file's size.
	MaxGlossaryBytes   = 1 << 20
	maxGlossaryEntries = 2000
	// maxSynonyms bounds one term's synonyms.
	maxSynonyms = 50
	maxTermLen  = 80
	maxMeansLen = 500
)

// LoadGlossary reads and checks a glossary file.
func LoadGlossary(path string) (*Glossary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("glossary: %w", err)
	}
	defer f.Close()
	// One byte more than the limit is enough to tell the file is too big.
	data, err := io.ReadAll(io.LimitReader(f, MaxGlossaryBytes+1))
	if err != nil {
		return nil, fmt.Errorf("glossary: %w", err)
	}
	g, err := ParseGlossary(data)
	if err != nil {
		return nil, fmt.Errorf("glossary %s: %w", path, err)
	}
	return g, nil
}

// ParseGlossary reads a glossary:
//
//	terms:
//	  - term: customer
//	    synonyms: [client, buyer]
//	  - term: active user
//	    means: a user whose last_seen is within the last 30 days
//
// Every problem is reported, each with its line.
func ParseGlossary(data []byte) (*Glossary, error) {
	if len(data) > MaxGlossaryBytes {
		return nil, fmt.Errorf("the file is larger than %d bytes (1 MiB): a glossary holds a team's own words, not a dictionary", MaxGlossaryBytes)
	}
	var typed struct {
		Terms []GlossaryEntry `yaml:"terms"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&typed); err != nil {
		var typeErr *yaml.TypeError
		switch {
		case errors.Is(err, io.EOF):
			return nil, errors.New("the file is empty: it needs a list of terms")
		case errors.As(err, &typeErr) && !strings.Contains(err.Error(), "field "):
			// Not a mapping with terms: a list, plain text, a flat map.
			return nil, errors.New(`expected a mapping with a list under "terms:" (each entry a "term:" with "synonyms:" or "means:"), got something else`)
		}
		return nil, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	// One document: a second, after "---", would be read by no one.
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New(`the file holds more than one YAML document ("---"): put every term under the one "terms:"`)
	}
	var nodes struct {
		Terms []yaml.Node `yaml:"terms"`
	}
	if err := yaml.Unmarshal(data, &nodes); err != nil {
		return nil, err
	}
	if len(typed.Terms) == 0 {
		return nil, errors.New("no terms: the file needs a list under \"terms:\"")
	}
	if len(typed.Terms) > maxGlossaryEntries {
		return nil, fmt.Errorf("%d terms, more than %d", len(typed.Terms), maxGlossaryEntries)
	}
	lines := make([]int, len(typed.Terms))
	for i := range typed.Terms {
		lines[i] = nodes.Terms[i].Line
	}
	ix := &phraseIndex{byFirst: map[string][]indexedPhrase{}}
	if problems := checkEntries(typed.Terms, lines, ix); len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "; "))
	}
	return &Glossary{Entries: typed.Terms, index: ix}, nil
}

// checkEntries trims the entries' text in place, adds their phrases to ix
// and returns every problem of them, each with its entry's line.
func checkEntries(entries []GlossaryEntry, lines []int, ix *phraseIndex) []string {
	var problems []string
	// owner maps a phrase's words to the entry (its index) that holds it.
	owner := map[string]int{}
	for i := range entries {
		e := &entries[i]
		bad := func(format string, args ...any) {
			problems = append(problems, fmt.Sprintf("line %d: ", lines[i])+fmt.Sprintf(format, args...))
		}
		e.Term = strings.TrimSpace(e.Term)
		e.Means = strings.TrimSpace(e.Means)
		if e.Term == "" {
			bad("a term is missing (each entry needs \"term:\")")
			continue
		}
		if n := utf8.RuneCountInString(e.Means); n > maxMeansLen {
			bad("what %.20q means is %d characters, longer than %d", e.Term, n, maxMeansLen)
		}
		if len(e.Synonyms) == 0 && e.Means == "" {
			bad("term %q has neither synonyms nor means: it would change nothing", e.Term)
		}
		if len(e.Synonyms) > maxSynonyms {
			bad("term %q has %d synonyms, more than %d", e.Term, len(e.Synonyms), maxSynonyms)
		}
		for j := range len(e.Synonyms) + 1 {
			phrase, what := e.Term, fmt.Sprintf("term %.20q", e.Term)
			if j > 0 {
				e.Synonyms[j-1] = strings.TrimSpace(e.Synonyms[j-1])
				phrase, what = e.Synonyms[j-1], fmt.Sprintf("synonym %.20q of %q", e.Synonyms[j-1], e.Term)
			}
			if n := utf8.RuneCountInString(phrase); n > maxTermLen {
				bad("%s is %d characters, longer than %d", what, n, maxTermLen)
			}
			words := phraseWords(phrase)
			ix.add(i, j, words)
			key := strings.Join(words, " ")
			o, taken := owner[key]
			switch {
			case key == "" && j == 0:
				bad("term %q has no word in it (a letter or a digit)", e.Term)
			case key == "":
				bad("term %q has a synonym with no word in it (a letter or a digit): %q", e.Term, phrase)
			case taken && o == i:
				bad("%q is listed twice for %q", phrase, e.Term)
			case taken && j == 0 && strings.EqualFold(entries[o].Term, e.Term):
				bad("term %q is already an entry, at line %d: merge the two", e.Term, lines[o])
			case taken:
				bad("%q is already a term or synonym of %q", phrase, entries[o].Term)
			default:
				owner[key] = i
			}
		}
	}
	return problems
}

// GlossaryMatch is an entry a question names.
type GlossaryMatch struct {
	Entry GlossaryEntry
	// Phrase is what the question says: the term or one of its synonyms.
	Phrase string
	// BySynonym reports that the question says a synonym, not the term.
	BySynonym bool
}

// Match returns the entries whose term or a synonym the question says,
// word for word up to word forms ("clients" says "client"), in the
// glossary's order. A word shaped like a symbol term ("C++", "C#",
// "AT&T", "Q & A"; symbolTerm) is matched as written, up to case; any
// other word joined to a symbol ("sales&marketing", "#signups") is split
// from it.
func (g *Glossary) Match(question string) []GlossaryMatch {
	if g == nil {
		return nil
	}
	ix := g.index
	if ix == nil { // a Glossary not made by ParseGlossary
		ix = indexPhrases(g.Entries)
	}
	q := phraseWords(question)
	// best is, for each entry the question names, the first of its
	// phrases it says: the term (0) before its synonyms (1…).
	best := map[int]int{}
	for i, w := range q {
		for _, p := range ix.byFirst[w] {
			if b, ok := best[p.entry]; ok && b <= p.phrase {
				continue
			}
			if i+len(p.words) <= len(q) && slices.Equal(q[i:i+len(p.words)], p.words) {
				best[p.entry] = p.phrase
			}
		}
	}
	entries := slices.Sorted(maps.Keys(best))
	out := make([]GlossaryMatch, 0, len(entries))
	for _, i := range entries {
		e := g.Entries[i]
		if j := best[i]; j > 0 {
			out = append(out, GlossaryMatch{Entry: e, Phrase: e.Synonyms[j-1], BySynonym: true})
		} else {
			out = append(out, GlossaryMatch{Entry: e, Phrase: e.Term})
		}
	}
	return out
}

// phraseIndex holds a glossary's phrases by the first of their words.
type phraseIndex struct {
	byFirst map[string][]indexedPhrase
}

// indexedPhrase is a term (phrase 0) or a synonym (phrase i, the i-th)
// of an entry, as its words.
type indexedPhrase struct {
	entry, phrase int
	words         []string
}

func indexPhrases(entries []GlossaryEntry) *phraseIndex {
	ix := &phraseIndex{byFirst: map[string][]indexedPhrase{}}
	for i, e := range entries {
		for j, phrase := range append([]string{e.Term}, e.Synonyms...) {
			ix.add(i, j, phraseWords(phrase))
		}
	}
	return ix
}

// add indexes the words of phrase j of entry i.
func (ix *phraseIndex) add(i, j int, words []string) {
	if len(words) > 0 {
		ix.byFirst[words[0]] = append(ix.byFirst[words[0]], indexedPhrase{entry: i, phrase: j, words: words})
	}
}

// keptRunes are kept within a run of letters and digits, so that a run
// shaped like a symbol term (symbolTerm) can be matched as written.
const keptRunes = "+#&"

// spacedAmpRe finds an & with spaces around it between one- or two-letter
// words ("Q & A", "at & t"), which phraseWords reads as one ("q&a").
var spacedAmpRe = regexp.MustCompile(`(?:^|[^\pL\pN+#&])\pL{1,2}\s*&\s*\pL{1,2}(?:[^\pL\pN+#&]|$)`)

// phraseWords are the words of text, lower case, split as grounding
// splits them (on anything but letters and digits) and stemmed, but for a
// run of letters, digits and keptRunes shaped like a symbol term ("C++",
// "C#", "AT&T"; symbolTerm), which is one word as written. Any other run
// is split on its symbols: "sales&marketing" is "sales" and "marketing",
// "#signups" is "signups".
func phraseWords(text string) []string {
	text = strings.ToLower(text)
	if strings.Contains(text, "&") {
		text = spacedAmpRe.ReplaceAllStringFunc(text, func(m string) string {
			i := strings.IndexByte(m, '&') // the only one: the match's edges are no &
			return strings.TrimRightFunc(m[:i], unicode.IsSpace) + "&" + strings.TrimLeftFunc(m[i+1:], unicode.IsSpace)
		})
	}
	var out []string
	for _, run := range strings.FieldsFunc(text, func(r rune) bool {
		return notWordRune(r) && !strings.ContainsRune(keptRunes, r)
	}) {
		if symbolTerm(run) {
			out = append(out, run)
			continue
		}
		for _, w := range strings.FieldsFunc(run, notWordRune) {
			out = append(out, Stem(w))
		}
	}
	return out
}

// symbolTerm reports whether run, letters, digits and keptRunes, is
// shaped like a term whose symbols are part of its name: a word that
// starts with a letter and ends in + or # ("c++", "c#", "disney+"), or
// words of one or two letters joined by & ("at&t", "q&a", "r&d"). Only
// such a run is matched as written: "C++" is not "C", but
// "sales&marketing" still says "sales".
func symbolTerm(run string) bool {
	if base := strings.TrimRight(run, "+#"); base != run && base != "" {
		first, _ := utf8.DecodeRuneInString(base)
		return unicode.IsLetter(first) && strings.IndexFunc(base, notWordRune) < 0
	}
	parts := strings.Split(run, "&")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		n := utf8.RuneCountInString(p)
		if n == 0 || n > 2 || strings.IndexFunc(p, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
			return false
		}
	}
	return true
}
