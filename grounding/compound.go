package grounding

import (
	"math"
	"strings"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// minCompoundWord is the shortest question word looked for inside names:
// shorter ones ("id", "no") are inside too many.
const minCompoundWord = 4

// compounds finds the question's words inside table and column names
// that do not split into words: sbCustomer created without quotes is
// stored as sbcustomer, and "customer" is no word of it.
type compounds struct {
	terms []string
	// tables and columns are each table's name and its columns' names,
	// lower case, space separated.
	tables, columns []string
	// idf weighs a word by how few tables have it inside a name.
	idf map[string]float64
}

func newCompounds(cat *warehouse.Catalog, qterms []string, bags []map[string]float64) *compounds {
	c := &compounds{idf: map[string]float64{}}
	for _, w := range qterms {
		if len(w) >= minCompoundWord {
			c.terms = append(c.terms, w)
		}
	}
	if len(c.terms) == 0 {
		return c
	}
	facts := factsOf(cat)
	c.tables, c.columns = facts.tableNames, facts.columnNames
	df := map[string]int{}
	for i := range cat.Tables {
		for _, w := range c.terms {
			if strings.Contains(c.tables[i], w) || strings.Contains(c.columns[i], w) {
				df[w]++
			}
		}
	}
	for w, d := range df {
		c.idf[w] = math.Log(1 + float64(len(cat.Tables))/float64(d))
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
	if len(w) < minCompoundWord || c.tables == nil {
		return 0, false
	}
	var weight float64
	switch {
	case strings.Contains(c.tables[i], w):
		weight = weightTable * compoundShare
	case strings.Contains(c.columns[i], w):
		weight = weightColumn * compoundShare
	default:
		return 0, false
	}
	if bag[w] >= weight {
		return 0, false
	}
	return weight * c.idf[w], true
}
