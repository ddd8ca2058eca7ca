package grounding

import (
	"slices"
	"strings"
	"sync"

	"github.com/analyticsbot/analyticsbot/lexicon"
	"github.com/analyticsbot/analyticsbot/llm"
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
	// joinsReason and refersReason are, for each table i and each of its
	// partners[i][k], the reasons rank gives: "joins i (via)" for the
	// partner, "refers to partner (via)" for i.
	joinsReason, refersReason [][]string
	// schemaWords are the words of the tables' and columns' names, and
	// schemaStems their stems (ValueIndex.Lookup).
	schemaWords, schemaStems map[string]bool
	// of is a copy of what the facts were made from: the catalog's
	// tables, their columns and keys.
	of []warehouse.Table
	// insideNames remembers inside's answers, by word.
	insideNames struct {
		sync.Mutex
		m map[string][]place
	}
	// described keeps the whole catalog's description by the name of
	// the describer that wrote it (description).
	described struct {
		sync.Mutex
		m map[string]wholeDescription
	}
}

// wholeDescription is a catalog described whole, and its size in prompt
// tokens.
type wholeDescription struct {
	text   string
	tokens int
}

// description is d's description of tables and its size in prompt tokens
// (llm.EstimateTokens), for tables the facts were made from: written once
// per describer, by its Name, as every question's Build measures the
// whole catalog, and on the demo shows it. A describer with no name is
// asked every time.
func (f *catalogFacts) description(tables []warehouse.Table, d Describer) (string, int) {
	if d.Name == "" {
		text := d.Describe(tables)
		return text, llm.EstimateTokens(text)
	}
	f.described.Lock()
	w, ok := f.described.m[d.Name]
	f.described.Unlock()
	if ok {
		return w.text, w.tokens
	}
	text := d.Describe(tables)
	w = wholeDescription{text: text, tokens: llm.EstimateTokens(text)}
	f.described.Lock()
	if f.described.m == nil {
		f.described.m = map[string]wholeDescription{}
	}
	f.described.m[d.Name] = w
	f.described.Unlock()
	return w.text, w.tokens
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
			// Of two words with one stem and weight ("voted", "voting"),
			// the first in alphabetical order: the bag's order is a
			// map's, and the word is shown in reasons.
			if h, ok := f.stemBags[i][s]; !ok || h.weight < weight || (h.weight == weight && w < h.word) {
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
	f.joinsReason, f.refersReason = make([][]string, n), make([][]string, n)
	for i, ps := range f.partners {
		for _, j := range ps {
			via := " (" + f.joins.via[[2]int{i, j}] + ")"
			f.joinsReason[i] = append(f.joinsReason[i], "joins "+cat.Tables[i].QualifiedName()+via)
			f.refersReason[i] = append(f.refersReason[i], "refers to "+cat.Tables[j].QualifiedName()+via)
		}
	}
	f.of = slices.Clone(cat.Tables)
	for i := range f.of {
		t := &f.of[i]
		t.Columns = slices.Clone(t.Columns)
		for j := range t.Columns {
			t.Columns[j].Values = slices.Clone(t.Columns[j].Values)
		}
		t.ForeignKeys = slices.Clone(t.ForeignKeys)
		for j := range t.ForeignKeys {
			fk := &t.ForeignKeys[j]
			fk.Columns, fk.RefColumns = slices.Clone(fk.Columns), slices.Clone(fk.RefColumns)
		}
		t.Reads, t.Parents = slices.Clone(t.Reads), slices.Clone(t.Parents)
	}
	return f
}

// madeFrom reports whether the facts were made from tables as they are
// now, every field a description shows included: a caller that changed
// its catalog after a question (a test adding a table) gets new facts,
// never stale ones. The strings are mostly the same ones, compared by
// their address first.
func (f *catalogFacts) madeFrom(tables []warehouse.Table) bool {
	return slices.EqualFunc(f.of, tables, func(a, b warehouse.Table) bool {
		return a.Schema == b.Schema && a.Name == b.Name && a.Title == b.Title && a.Comment == b.Comment &&
			a.LeftOut == b.LeftOut && slices.Equal(a.Reads, b.Reads) && slices.Equal(a.Parents, b.Parents) &&
			slices.EqualFunc(a.Columns, b.Columns, func(x, y warehouse.TableColumn) bool {
				return x.Name == y.Name && x.Comment == y.Comment && x.Type == y.Type && x.Kind == y.Kind && x.Role == y.Role &&
					x.Nullable == y.Nullable && slices.Equal(x.Values, y.Values)
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

// place is where a word is found inside a table's names (compounds).
type place uint8

const (
	nowhere      place = iota
	inTableName        // inside the table's name (lower case)
	inColumnName       // inside a column's name, not the table's
)

// maxInsideWords bounds the words a catalog's facts remember inside for;
// the memory starts over when full.
const maxInsideWords = 4096

// inside says, for each table, where word w is found inside its names
// (tableNames, then columnNames). The catalog's names are the same for
// every question and a question's words come back in question after
// question, so each word is looked for once; the answer is only read.
func (f *catalogFacts) inside(w string) []place {
	f.insideNames.Lock()
	at, ok := f.insideNames.m[w]
	f.insideNames.Unlock()
	if ok {
		return at
	}
	at = make([]place, len(f.tableNames))
	for i := range at {
		switch {
		case strings.Contains(f.tableNames[i], w):
			at[i] = inTableName
		case strings.Contains(f.columnNames[i], w):
			at[i] = inColumnName
		}
	}
	f.insideNames.Lock()
	if f.insideNames.m == nil || len(f.insideNames.m) >= maxInsideWords {
		f.insideNames.m = make(map[string][]place)
	}
	f.insideNames.m[w] = at
	f.insideNames.Unlock()
	return at
}
