package grounding

import (
	"fmt"
	"math"
	"strings"

	"github.com/analyticsbot/analyticsbot/lexicon"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Shares of a name's weight that a word reaching it other than as the
// question spells it gets: a direct match always counts most.
const (
	// shareForm: another form of the word ("voted" for votes).
	shareForm = 0.9
	// shareGlossary: the term the team's glossary gives for a synonym.
	shareGlossary = 0.9
	// shareModel: a search term the classifier named.
	shareModel = 0.8
	// shareWordNet: a word WordNet relates (a synonym, an attribute, a
	// derived word); its base forms count as forms.
	shareWordNet = 0.6
	// shareWordNetFar: a word WordNet relates more loosely (a noun's
	// broader word, a synonym of a rarer sense).
	shareWordNetFar = 0.4
	// minLooseCompoundWord is the shortest loosely related word looked
	// for inside names: a short one is inside names by chance (match →
	// light, in flight).
	minLooseCompoundWord = 7
	// maxModelTerms bounds the classifier's terms that are used.
	maxModelTerms = 8
)

// related is a word grounding scores with besides the question's own.
type related struct {
	word string // as words gives it ("customer")
	from string // the question's word or phrase, or the model's term
	// label names the source in reasons: "glossary", "wordnet synonym",
	// "model term".
	label string
	share float64
}

// relatedWords are the lexicon's expansions of the question and the
// model's search terms, as words of their own, each once with its best
// share. WordNet's are only of words that reach no table themselves
// (known): a word the catalog has needs no synonym, and its synonyms
// would only bring noise.
func relatedWords(r Request, qterms []string, known func(string) bool) []related {
	var out []related
	own := map[string]bool{}
	for _, w := range qterms {
		own[w] = true
	}
	seen := map[string]int{}
	add := func(text, from, label string, share float64) {
		for _, w := range words(text) {
			if len(w) < 2 || stopWords[w] || own[w] {
				continue
			}
			if i, ok := seen[w]; ok {
				if out[i].share < share {
					out[i] = related{w, from, label, share}
				}
				continue
			}
			seen[w] = len(out)
			out = append(out, related{w, from, label, share})
		}
	}
	for _, e := range r.Lexicon.Expand(r.Question, qterms) {
		switch {
		case e.Source == lexicon.SourceGlossary:
			add(e.Word, e.From, "glossary", shareGlossary)
		case known(e.From):
		case e.Via == "base form":
			add(e.Word, e.From, "word form", shareForm)
		case e.Via == "broader" || e.Via == "rarer sense":
			add(e.Word, e.From, "wordnet "+e.Via, shareWordNetFar)
		default:
			add(e.Word, e.From, "wordnet "+e.Via, shareWordNet)
		}
	}
	for i, t := range r.Terms {
		if i == maxModelTerms {
			break
		}
		add(t, t, "model term", shareModel)
	}
	return out
}

// stemHit is where a stem is found in a table: the best weight and the
// name's word that has it.
type stemHit struct {
	weight float64
	word   string
}

// forms scores the words that reach a table other than as the question
// spells them: other forms of the question's words (Snowball stems) and
// related words (relatedWords), each inside names too (compounds).
type forms struct {
	qterms  []string
	related []related
	// qforms and rforms are the stems (lexicon.Forms) of qterms and of
	// the related words.
	qforms, rforms [][]string
	bags           []map[string]stemHit
	df             map[string]int
	n              float64
	// compounds finds the related words inside names (sbcustomer), and
	// stemmed the question's words' stems there (join of "joined" in
	// sbcustjoindate).
	compounds, stemmed *compounds
}

func newForms(cat *warehouse.Catalog, r Request, qterms []string, bags []map[string]float64) *forms {
	f := &forms{qterms: qterms, df: map[string]int{}, n: float64(len(cat.Tables))}
	f.bags = make([]map[string]stemHit, len(bags))
	for i, b := range bags {
		f.bags[i] = make(map[string]stemHit, len(b))
		for w, weight := range b {
			s := lexicon.Stem(w)
			if h, ok := f.bags[i][s]; !ok || h.weight < weight {
				f.bags[i][s] = stemHit{weight, w}
			}
		}
		for s := range f.bags[i] {
			f.df[s]++
		}
	}
	f.related = relatedWords(r, qterms, func(w string) bool {
		for _, s := range lexicon.Forms(w) {
			if f.df[s] > 0 {
				return true
			}
		}
		return false
	})
	var rel []string
	for _, x := range f.related {
		rel = append(rel, x.word)
		f.rforms = append(f.rforms, lexicon.Forms(x.word))
	}
	var stems []string
	for _, w := range qterms {
		forms := lexicon.Forms(w)
		f.qforms = append(f.qforms, forms)
		stems = append(stems, w)
		for _, s := range forms {
			if s != w {
				stems = append(stems, s)
			}
		}
	}
	f.compounds = newCompounds(cat, rel, bags)
	f.stemmed = newCompounds(cat, stems, bags)
	return f
}

// hits adds to *score what table i gets from word forms and related
// words, beyond the stems of exact (the question's words already counted
// for it), and returns the reasons.
func (f *forms) hits(i int, bag map[string]float64, exact []string, score *float64) []string {
	taken := map[string]bool{}
	for _, w := range exact {
		taken[lexicon.Stem(w)] = true
	}
	reach := func(stems []string) (stemHit, string, bool) {
		for _, s := range stems {
			if h, ok := f.bags[i][s]; ok && !taken[s] {
				taken[s] = true
				return h, s, true
			}
		}
		return stemHit{}, "", false
	}
	byLabel := map[string][]string{}
	var labels []string
	note := func(label, text string) {
		if byLabel[label] == nil {
			labels = append(labels, label)
		}
		byLabel[label] = append(byLabel[label], text)
	}
	for k, w := range f.qterms {
		if _, ok := bag[w]; ok {
			continue
		}
		if h, s, ok := reach(f.qforms[k]); ok {
			*score += h.weight * shareForm * math.Log(1+f.n/float64(f.df[s]))
			note("word form", w+" → "+h.word)
			continue
		}
		// Another form inside a name: "joined" in sbcustjoindate. Not
		// when the word itself is inside it (compounds counted it).
		if _, inside := f.stemmed.weight(i, w, bag); inside {
			continue
		}
		for _, s := range f.qforms[k] {
			if weight, ok := f.stemmed.weight(i, s, bag); ok && s != w && !taken[s] {
				taken[s] = true
				*score += weight * shareForm
				note("word form", w+" → "+s+"… in a name")
				break
			}
		}
	}
	for k, x := range f.related {
		// A word found both among the table's words (in a comment) and
		// inside its name (sbtransaction) counts as the better of the two.
		compound, inName := f.compounds.weight(i, x.word, bag)
		if inName && x.share < shareWordNet && len(x.word) < minLooseCompoundWord {
			compound, inName = 0, false
		}
		if h, s, ok := reach(f.rforms[k]); ok {
			*score += max(h.weight*math.Log(1+f.n/float64(f.df[s])), compound) * x.share
			note(x.label, arrow(x.from, x.word))
			continue
		}
		if inName && !taken[f.rforms[k][0]] {
			taken[f.rforms[k][0]] = true
			*score += compound * x.share
			note(x.label, arrow(x.from, x.word))
		}
	}
	var out []string
	for _, l := range labels {
		out = append(out, fmt.Sprintf("%s: %s", l, strings.Join(byLabel[l], ", ")))
	}
	return out
}

// arrow shows where a related word came from: "clients → customer", or
// the source alone when it is the word (a model's term "stores").
func arrow(from, word string) string {
	if ws := words(from); len(ws) == 1 && ws[0] == word {
		return from
	}
	return from + " → " + word
}
