package grounding

import (
	"slices"
	"strings"
	"sync"

	"github.com/analyticsbot/analyticsbot/lexicon"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// catalogFacts are what ranking derives from a catalog alone, the same
// for every question: each table's words (bag) and how many tables have
// each (df), the same by Snowball stem, the lowered names compounds are
// looked for in, and the join partners. They are only read once made.
type catalogFacts struct {
	bags     []map[string]float64
	df       map[string]int
	stemBags []map[string]stemHit
	stemDF   map[string]int
	// tableNames and columnNames are each table's name and its columns'
	// names, lower case, space separated (compounds).
	tableNames, columnNames []string
	partners                [][]int
	joins                   joins
	// schemaWords are the words of the tables' and columns' names, and
	// schemaStems their stems (ValueIndex.Lookup).
	schemaWords, schemaStems map[string]bool
	// of is a copy of what the facts were made from: the catalog's
	// tables, their columns and keys.
	of []warehouse.Table
}

func newCatalogFacts(cat *warehouse.Catalog) *catalogFacts {
	n := len(cat.Tables)
	f := &catalogFacts{bags: make([]map[string]float64, n), df: map[string]int{},
		stemBags: make([]map[string]stemHit, n), stemDF: map[string]int{},
		tableNames: make([]string, n), columnNames: make([]string, n),
		schemaWords: map[string]bool{}, schemaStems: map[string]bool{}}
	schemaWord := func(name string) {
		eachWord(name, func(w string) {
			f.schemaWords[w] = true
			f.schemaStems[lexicon.Stem(w)] = true
		})
	}
	for i, t := range cat.Tables {
		f.bags[i] = bag(t)
		f.stemBags[i] = make(map[string]stemHit, len(f.bags[i]))
		for w, weight := range f.bags[i] {
			f.df[w]++
			s := lexicon.Stem(w)
			if h, ok := f.stemBags[i][s]; !ok || h.weight < weight {
				f.stemBags[i][s] = stemHit{weight, w}
			}
		}
		for s := range f.stemBags[i] {
			f.stemDF[s]++
		}
		f.tableNames[i] = strings.ToLower(t.Name)
		schemaWord(t.Name)
		var b strings.Builder
		for _, col := range t.Columns {
			schemaWord(col.Name)
			name := col.Name
			if _, member, ok := strings.Cut(name, "."); ok {
				name = member
			}
			b.WriteString(strings.ToLower(name))
			b.WriteByte(' ')
		}
		f.columnNames[i] = b.String()
	}
	f.partners, f.joins = joinPartners(cat)
	f.of = slices.Clone(cat.Tables)
	for i := range f.of {
		f.of[i].Columns = slices.Clone(f.of[i].Columns)
		f.of[i].ForeignKeys = slices.Clone(f.of[i].ForeignKeys)
	}
	return f
}

// madeFrom reports whether the facts were made from tables as they are
// now: a caller that changed its catalog after a question (a test adding a
// table) gets new facts, never stale ones. The strings are mostly the
// same ones, compared by their address first.
func (f *catalogFacts) madeFrom(tables []warehouse.Table) bool {
	return slices.EqualFunc(f.of, tables, func(a, b warehouse.Table) bool {
		return a.Schema == b.Schema && a.Name == b.Name && a.Title == b.Title && a.Comment == b.Comment &&
			slices.EqualFunc(a.Columns, b.Columns, func(x, y warehouse.TableColumn) bool {
				return x.Name == y.Name && x.Comment == y.Comment && x.Type == y.Type && x.Kind == y.Kind && x.Role == y.Role
			}) &&
			slices.EqualFunc(a.ForeignKeys, b.ForeignKeys, func(x, y warehouse.ForeignKey) bool {
				return x.RefSchema == y.RefSchema && x.RefTable == y.RefTable &&
					slices.Equal(x.Columns, y.Columns) && slices.Equal(x.RefColumns, y.RefColumns)
			})
	})
}

// factsMemo keeps the facts of the catalogs ranked lately, by catalog: a
// backend's catalog, and its view for each access policy, is one value
// until the backend reads its catalog again (a new value), and no one
// changes a catalog once it is handed out (factsOf checks all the same).
// So every question pays only for its own words, and the facts of one
// policy's view are never another's. When full, it starts again empty.
var factsMemo struct {
	sync.Mutex
	m map[*warehouse.Catalog]*catalogFacts
}

const factsMemoSize = 16

// factsOf returns cat's facts, made on first use.
func factsOf(cat *warehouse.Catalog) *catalogFacts {
	factsMemo.Lock()
	f, ok := factsMemo.m[cat]
	factsMemo.Unlock()
	if ok && f.madeFrom(cat.Tables) {
		return f
	}
	f = newCatalogFacts(cat)
	factsMemo.Lock()
	defer factsMemo.Unlock()
	if factsMemo.m == nil || len(factsMemo.m) >= factsMemoSize {
		factsMemo.m = make(map[*warehouse.Catalog]*catalogFacts)
	}
	factsMemo.m[cat] = f
	return f
}
