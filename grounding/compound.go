package grounding

import "math"

// minCompoundWord is the shortest question word looked for inside names:
// shorter ones ("id", "no") are inside too many.
const minCompoundWord = 4

// compounds finds the question's words inside table and column names
// that do not split into words: sbCustomer created without quotes is
// stored as sbcustomer, and "customer" is no word of it.
type compounds struct {
	terms []string
	facts *catalogFacts
	// at says, per term, where it is inside each table's names
	// (catalogFacts.inside).
	at map[string][]place
	// idf weighs a word by how few tables have it inside a name.
	idf map[string]float64
}

func newCompounds(facts *catalogFacts, qterms []string) *compounds {
	c := &compounds{facts: facts, idf: map[string]float64{}}
	for _, w := range qterms {
		if len(w) >= minCompoundWord {
			c.terms = append(c.terms, w)
		}
	}
	if len(c.terms) == 0 {
		return c
	}
	c.at = make(map[string][]place, len(c.terms))
	for _, w := range c.terms {
		at := facts.inside(w)
		c.at[w] = at
		df := 0
		for _, p := range at {
			if p != nowhere {
				df++
			}
		}
		if df > 0 {
			c.idf[w] = math.Log(1 + float64(len(at))/float64(df))
		}
	}
	return c
}

// hits adds to *score the weight of each question word found inside a
// name of table i where it is not a word of the name: unless the table's
// words (bag) already have it at that weight or more (a comment's word
// weighs less than the table's own name, sbtransaction); it returns them.
func (c *compounds) hits(i int, bag map[string]float64, score *float64) []string {
	var out []string
	for _, w := range c.terms {
		if weight, ok := c.weight(i, w, bag); ok {
			*score += weight
			out = append(out, w)
		}
	}
	return out
}

// weight is what word w, one of the terms, adds to table i's score found
// inside one of its names, if it is and bag does not have it as much.
func (c *compounds) weight(i int, w string, bag map[string]float64) (float64, bool) {
	if len(w) < minCompoundWord || len(c.terms) == 0 {
		return 0, false
	}
	at, ok := c.at[w]
	if !ok {
		at = c.facts.inside(w)
	}
	var weight float64
	switch at[i] {
	case inTableName:
		weight = weightTable * compoundShare
	case inColumnName:
		weight = weightColumn * compoundShare
	default:
		return 0, false
	}
	if bag[w] >= weight {
		return 0, false
	}
	return weight * c.idf[w], true
}

// minCompoundPart is the shortest part a closed compound of the question
// is split into (splitCompound): "time" and "zone" of "timezone".
const minCompoundPart = 3

// splitCompound splits w, a question's word the catalog does not have,
// written as one word of two ("timezone", "datetime", "username"), into
// its parts, when it is a first part and a rest of at least three letters
// each that are both words of the catalog's names (catalogWord), or one
// such word and a stop word ("stopover": stop and over); the longest
// first part wins. It returns the parts the catalog has, none when w does
// not split so.
func splitCompound(w string, catalogWord func(string) bool) []string {
	for i := len(w) - minCompoundPart; i >= minCompoundPart; i-- {
		a, b := w[:i], w[i:]
		ca, cb := !stopWords[a] && catalogWord(a), !stopWords[b] && catalogWord(b)
		switch {
		case ca && cb:
			return []string{a, b}
		case ca && stopWords[b]:
			return []string{a}
		case cb && stopWords[a]:
			return []string{b}
		}
	}
	return nil
}
