// Package lexicon holds what grounding knows of English words beyond the
// catalog's own spelling: word forms (the Snowball stemmer), an English
// lexical database (WordNet: a compact copy embedded in the binary, or its
// files read from disk) and the team's glossary (GLOSSARY_FILE). It turns a question's words into related words
// grounding may score with, each saying where it came from, and calls no
// model and no database.
package lexicon

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/kljensen/snowball/english"
)

// Source says where a related word came from.
type Source string

// The sources of related words, as `analyticsbot context` names them.
const (
	SourceWordNet  Source = "wordnet"
	SourceGlossary Source = "glossary"
	SourceModel    Source = "model term"
)

// Expansion is a word related to a word of the question.
type Expansion struct {
	// Word is the related word, lower case ("customer").
	Word string
	// From is the question's word or phrase it came from ("clients").
	From   string
	Source Source
	// Via says how WordNet relates them: "synonym", "attribute" (heavy →
	// weight), "derived" (voter → vote); empty for other sources.
	Via string
}

// Lexicon is the optional sources of related words; a nil *Lexicon, or
// one with neither, expands nothing.
type Lexicon struct {
	WordNet  *WordNet
	Glossary *Glossary
}

// Expand returns the words WordNet and the glossary relate to the
// question: the glossary's by its terms and synonyms found in question,
// WordNet's for each of words (the question's words that may name data)
// but the words of a quoted name (the business "Mark's Bistro": a name's
// words are not to be read for their senses, mark → grade).
func (l *Lexicon) Expand(question string, words []string) []Expansion {
	if l == nil {
		return nil
	}
	var out []Expansion
	if l.Glossary != nil {
		for _, m := range l.Glossary.Match(question) {
			if !m.BySynonym {
				continue // the question already says the term
			}
			for _, w := range strings.Fields(strings.ToLower(m.Entry.Term)) {
				out = append(out, Expansion{Word: w, From: m.Phrase, Source: SourceGlossary})
			}
		}
	}
	if l.WordNet != nil {
		quoted := quotedWords(question)
		for _, w := range words {
			if quoted[Stem(w)] {
				continue
			}
			for _, r := range l.WordNet.Related(w) {
				out = append(out, Expansion{Word: r.Word, From: w, Source: SourceWordNet, Via: r.Via})
			}
		}
	}
	return out
}

// quotedRe finds what a question quotes: between double quotes (straight
// or curly), or between single quotes that open after a space or the
// start and close before one, a punctuation mark or the end ('Mark’s
// Bistro', an apostrophe inside; not the apostrophes of "Mark's and
// Joe's").
var quotedRe = regexp.MustCompile(`"([^"]+)"|“([^”]+)”|(?:^|\s)['‘]((?:[^'‘’]|['’]\pL)+)['’](?:$|[\s[:punct:]])`)

// quotedWords are the stems (Stem) of the words of what question quotes.
func quotedWords(question string) map[string]bool {
	if !strings.ContainsAny(question, `"“'‘`) {
		return nil // every quote quotedRe finds opens with one of these
	}
	var out map[string]bool
	for _, m := range quotedRe.FindAllStringSubmatch(question, -1) {
		for _, part := range m[1:] {
			for _, w := range strings.FieldsFunc(strings.ToLower(part), notWordRune) {
				if out == nil {
					out = map[string]bool{}
				}
				out[Stem(w)] = true
			}
		}
	}
	return out
}

// notWordRune splits words as grounding does: on anything but letters
// and digits.
func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// stems caches Stem: a catalog's words are stemmed for every question.
var stems struct {
	sync.Mutex
	m map[string]string
}

// maxCachedStems bounds the cache; past it words are stemmed each time.
const maxCachedStems = 200_000

// Stem is the Snowball (Porter2) English stem of a lower-case word:
// "voted", "votes" and "voting" give "vote", "categories" and "category"
// give "categori". Stop words are stemmed too.
func Stem(word string) string {
	stems.Lock()
	s, ok := stems.m[word]
	stems.Unlock()
	if ok {
		return s
	}
	s = english.Stem(word, false)
	stems.Lock()
	if stems.m == nil {
		stems.m = map[string]string{}
	}
	if len(stems.m) < maxCachedStems {
		stems.m[word] = s
	}
	stems.Unlock()
	return s
}

// Forms are the stems a question's word may share with a name: its own
// stem, and for an agent noun ("voter", "buyer", "editor") that of the
// word it is made from ("vote", "buy", "edit"), which the stemmer leaves
// apart.
func Forms(word string) []string {
	out := []string{Stem(word)}
	if len(word) < 5 {
		return out
	}
	var base string
	switch {
	case strings.HasSuffix(word, "eer"), strings.HasSuffix(word, "ier"):
		return out // engineer, cashier
	case strings.HasSuffix(word, "er") && strings.HasSuffix(word[:len(word)-1], "e") && word[len(word)-3] != 'e':
		base = word[:len(word)-1] // voter → vote
	case strings.HasSuffix(word, "er"), strings.HasSuffix(word, "or"):
		base = word[:len(word)-2] // buyer → buy, editor → edit
	default:
		return out
	}
	if s := Stem(base); len(base) >= 3 && !slices.Contains(out, s) {
		out = append(out, s)
	}
	return out
}

// SameRoot reports whether related, a word a lexicon relates to word, is
// of the same root as word rather than a word of another root: the
// shorter of their Snowball stems, but for its last letter and at least
// three letters, opens the other ("cited" and "citation": cite and
// citat; "stopover" and "stop"; "time" and "timing"; not "trade" and
// "transaction", nor "clients" and "customer", nor "company" and
// "accompany"). Such a word is another form of the word, as a stem is.
func SameRoot(word, related string) bool {
	a, b := Stem(word), Stem(related)
	if len(a) > len(b) {
		a, b = b, a
	}
	n := len(a) - 1
	return n >= 3 && strings.HasPrefix(b, a[:n])
}
