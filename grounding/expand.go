package grounding

import (
	"math"
	"slices"
	"strings"

	"github.com/analyticsbot/analyticsbot/lexicon"
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
	// root says the word is of the same root as the question's word it
	// came from (lexicon.SameRoot: "cited" → citation, "stopover" →
	// stop): another form of it, which also keeps a column (columns).
	root bool
}

// relatedWords are the lexicon's expansions of the question and the
// model's search terms, as words of their own, each once with its best
// share. WordNet's are only of words that reach no table themselves
// (known): a word the catalog has needs no synonym, and its synonyms
// would only bring noise; but its related words of the same root
// (lexicon.SameRoot) are kept: "cited" reaches the table cite and, by
// its derived word, a column citation_num; "stopover", a column
// stopovers and, by its synonym stop, a table flight_stop.
func relatedWords(r Request, qterms []string, known, catalogWord func(string) bool) []related {
	var out []related
	own := map[string]bool{}
	for _, w := range qterms {
		own[w] = true
	}
	seen := map[string]int{}
	add := func(text, from, label string, share float64) {
		eachWord(text, func(w string) {
			if len(w) < 2 || stopWords[w] || own[w] {
				return
			}
			root := label == "compound" || label != "glossary" && label != "model term" && lexicon.SameRoot(from, w)
			x := related{w, from, label, share, root}
			if i, ok := seen[w]; ok {
				if out[i].share < share {
					out[i] = x
				}
				return
			}
			seen[w] = len(out)
			out = append(out, x)
		})
	}
	// The words WordNet expands are the question's: whether each reaches
	// a table is asked once, not for each of its related words.
	isKnown := map[string]bool{}
	knownOnce := func(w string) bool {
		k, ok := isKnown[w]
		if !ok {
			k = known(w)
			isKnown[w] = k
		}
		return k
	}
	expansions := r.Lexicon.Expand(r.Question, qterms)
	// The stems of each word's base forms ("highest" → high).
	var bases map[string][]string
	for _, e := range expansions {
		if e.Via == "base form" {
			if bases == nil {
				bases = map[string][]string{}
			}
			bases[e.From] = append(bases[e.From], lexicon.Stem(e.Word))
		}
	}
	for _, e := range expansions {
		switch {
		case e.Source == lexicon.SourceGlossary:
			add(e.Word, e.From, "glossary", shareGlossary)
		case knownOnce(e.From) && !ofRoot(e, bases[e.From]):
		case e.Via == "base form":
			add(e.Word, e.From, "word form", shareForm)
		case e.Via == "broader" || e.Via == "rarer sense":
			add(e.Word, e.From, "wordnet "+e.Via, shareWordNetFar)
		default:
			add(e.Word, e.From, "wordnet "+e.Via, shareWordNet)
		}
	}
	// A word no table has that joins two of the catalog's words
	// ("timezone") counts as them, as a word of the question (forms);
	// not an English word of its own, which WordNet tells ("weekends" is
	// no week and end): without WordNet, none.
	for _, w := range qterms {
		if r.Lexicon == nil || r.Lexicon.WordNet == nil || knownOnce(w) {
			continue
		}
		parts := splitCompound(w, catalogWord)
		if parts == nil || r.Lexicon.WordNet.Has(w) {
			continue
		}
		for _, part := range parts {
			add(part, w, "compound", shareForm)
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

// ofRoot says whether e, a WordNet expansion of a word the catalog has,
// is still looked for: a word of its root (lexicon.SameRoot) the catalog
// may spell otherwise ("cited" → citation, "stopover" → stop). Not its
// base form, nor a word whose stem is a base form's (baseStems): a word
// the catalog spells as the question does is meant as spelled, and
// "highest" → high, or highness, would reach high_schools; nor an agent
// noun ("used" → user), which names another thing.
func ofRoot(e lexicon.Expansion, baseStems []string) bool {
	return e.Via != "base form" && lexicon.SameRoot(e.From, e.Word) && !agentOf(e.Word, e.From) &&
		!slices.Contains(baseStems, lexicon.Stem(e.Word))
}

// agentOf reports whether word is an agent noun of from ("user" of
// "used", "timer" of "time"): it names who or what does what from names,
// another thing.
func agentOf(word, from string) bool {
	for _, suffix := range []string{"r", "er", "or"} {
		if base, ok := strings.CutSuffix(word, suffix); ok && len(base) >= 3 && lexicon.Stem(base) == lexicon.Stem(from) {
			return true
		}
	}
	return false
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
	// the related words; qstems the qterms' own (lexicon.Stem).
	qforms, rforms [][]string
	qstems         []string
	bags           []map[string]stemHit
	df             map[string]int
	// wbags and wdf are the tables' words as written and how many tables
	// have each (catalogFacts.bags, df).
	wbags []map[string]float64
	wdf   map[string]int
	n     float64
	// compounds finds the related words inside names (sbcustomer), and
	// stemmed the question's words' stems there (join of "joined" in
	// sbcustjoindate).
	compounds, stemmed *compounds
}

func newForms(facts *catalogFacts, r Request, qterms []string) *forms {
	f := &forms{qterms: qterms, bags: facts.stemBags, df: facts.stemDF, wbags: facts.bags, wdf: facts.df, n: float64(len(facts.bags))}
	f.related = relatedWords(r, qterms, func(w string) bool {
		for _, s := range lexicon.Forms(w) {
			if f.df[s] > 0 {
				return true
			}
		}
		return false
	}, func(w string) bool { return facts.df[w] > 0 })
	var rel []string
	for _, x := range f.related {
		rel = append(rel, x.word)
		f.rforms = append(f.rforms, lexicon.Forms(x.word))
	}
	var stems []string
	for _, w := range qterms {
		forms := lexicon.Forms(w)
		f.qforms = append(f.qforms, forms)
		f.qstems = append(f.qstems, forms[0]) // Forms opens with the word's stem
		stems = append(stems, w)
		for _, s := range forms {
			if s != w {
				stems = append(stems, s)
			}
		}
	}
	f.compounds = newCompounds(facts, rel)
	f.stemmed = newCompounds(facts, stems)
	return f
}

// hits adds to *score what table i gets from word forms and related
// words, beyond the stems of exact (the question's words already counted
// for it), and returns the reasons.
func (f *forms) hits(i int, bag map[string]float64, exact []string, score *float64) []string {
	// The stems taken, and the reasons by label in the order first noted:
	// a few a table, so slices rather than maps.
	taken := make([]string, 0, len(exact)+4)
	var formGain []wordGain
	for _, w := range exact {
		taken = append(taken, f.stem(w))
	}
	isTaken := func(s string) bool { return slices.Contains(taken, s) }
	reach := func(stems []string) (stemHit, string, bool) {
		for _, s := range stems {
			if h, ok := f.bags[i][s]; ok && !isTaken(s) {
				taken = append(taken, s)
				return h, s, true
			}
		}
		return stemHit{}, "", false
	}
	type noted struct {
		label string
		texts []string
	}
	var notes []noted
	note := func(label, text string) {
		for k := range notes {
			if notes[k].label == label {
				notes[k].texts = append(notes[k].texts, text)
				return
			}
		}
		notes = append(notes, noted{label, []string{text}})
	}
	for k, w := range f.qterms {
		if _, ok := bag[w]; ok {
			continue
		}
		if h, s, ok := reach(f.qforms[k]); ok {
			gain := h.weight * shareForm * math.Log(1+f.n/float64(f.df[s]))
			*score += gain
			note("word form", w+" → "+h.word)
			formGain = append(formGain, wordGain{w, gain})
			continue
		}
		// Another form inside a name: "joined" in sbcustjoindate. Not
		// when the word itself is inside it (compounds counted it).
		if _, inside := f.stemmed.weight(i, w, bag); inside {
			continue
		}
		for _, s := range f.qforms[k] {
			if weight, ok := f.stemmed.weight(i, s, bag); ok && s != w && !isTaken(s) {
				taken = append(taken, s)
				*score += weight * shareForm
				note("word form", w+" → "+s+"… in a name")
				formGain = append(formGain, wordGain{w, weight * shareForm})
				break
			}
		}
	}
	for k, x := range f.related {
		// A word of the same root as a question's word that counted for
		// the table itself counts only for what it adds: "highest" and
		// high in geography.highlow are one word, "cited" in a comment
		// and citation_num a column's word.
		var own float64
		if x.root {
			own = f.own(i, x.from, bag, exact, formGain)
		}
		// A word found both among the table's words (in a comment) and
		// inside its name (sbtransaction) counts as the better of the two.
		compound, inName := f.compounds.weight(i, x.word, bag)
		if inName && x.share < shareWordNet && len(x.word) < minLooseCompoundWord {
			compound, inName = 0, false
		}
		if h, s, ok := reach(f.rforms[k]); ok {
			if gain := max(h.weight*math.Log(1+f.n/float64(f.df[s])), compound)*x.share - own; gain > 0 {
				*score += gain
				note(x.label, arrow(x.from, x.word))
			}
			continue
		}
		if gain := compound*x.share - own; inName && gain > 0 && !isTaken(f.rforms[k][0]) {
			taken = append(taken, f.rforms[k][0])
			*score += gain
			note(x.label, arrow(x.from, x.word))
		}
	}
	var out []string
	for _, n := range notes {
		out = append(out, n.label+": "+strings.Join(n.texts, ", "))
	}
	return out
}

// wordGain is what a word of the question added to a table's score.
type wordGain struct {
	word string
	gain float64
}

// own is what question word w added to table i's score as itself (exact:
// among the table's words or inside its names, as rank counts them) or by
// another form (formGain).
func (f *forms) own(i int, w string, bag map[string]float64, exact []string, formGain []wordGain) float64 {
	for _, g := range formGain {
		if g.word == w {
			return g.gain
		}
	}
	if !slices.Contains(exact, w) {
		return 0
	}
	var own float64
	if weight, ok := f.wbags[i][w]; ok {
		own += weight * math.Log(1+f.n/float64(f.wdf[w]))
	}
	if weight, ok := f.stemmed.weight(i, w, bag); ok {
		own += weight
	}
	return own
}

// stem is lexicon.Stem(w), for a word of the question without asking.
func (f *forms) stem(w string) string {
	for k, q := range f.qterms {
		if q == w {
			return f.qstems[k]
		}
	}
	return lexicon.Stem(w)
}

// arrow shows where a related word came from: "clients → customer", or
// the source alone when it is the word (a model's term "stores").
func arrow(from, word string) string {
	if ws := words(from); len(ws) == 1 && ws[0] == word {
		return from
	}
	return from + " → " + word
}
