package grounding

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/lexicon"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Column is a column kept in a table described in part, with why.
type Column struct {
	Name string
	// Why says why it was kept: "key", "question: release, year", "value
	// 'Ubisoft'", "used earlier in the thread", "used by an example", or
	// "room left" for a column that only filled the budget.
	Why string
}

// Why a column is kept, besides the question's words, values, the
// thread and the examples.
const (
	whyKey = "key"
	// whyRoom: a column kept only because room remained.
	whyRoom = "room left"
	// whyNamedBest: the best column besides the keys of a table the
	// question names, kept when lower tables give way (giveWay).
	whyNamedBest = "named table, its best column besides keys"
)

// Why a column is kept, best first: the more a column is worth, the
// sooner a table described in part keeps it.
const (
	columnEarlier  = 4.0 // named by the thread's earlier queries
	columnValue    = 3.0 // holds a value the question names
	columnName     = 2.0 // a word of its name is one of the question's
	columnCompound = 1.5 // a word of the question is inside its name
	columnExample  = 1.0 // named by an example's query
	columnComment  = 0.5 // a word of its comment is one of the question's
	// columnCore is the least a column is worth to be kept whatever the
	// budget, with the table's keys: what is worth less only fills room.
	columnCore = 1.0
)

// partial is a table described by some of its columns: its keys and the
// columns the question needs first, then others while the budget lasts.
type partial struct {
	table warehouse.Table
	// order lists column indexes best first, why says why each is kept;
	// kept is how many of order are described, core how many at least.
	order      []int
	why        []string
	kept, core int
	// base is the description's size in characters with no column and
	// leftOut the line that says how many are left out; cols the size of
	// each column's line.
	base, leftOut int
	cols          []int
}

// newPartial plans the description of t in part for r: its core (the
// keys and the columns worth columnCore or more) is kept. It returns nil
// when the core takes more than room tokens and !force: most tables of a
// big warehouse are never described, and are not measured column by
// column either.
func newPartial(t warehouse.Table, describe func([]warehouse.Table) string, r columnRequest, room int, force bool) *partial {
	p := &partial{table: t}
	size := func(cols []warehouse.TableColumn, leftOut int) int {
		u := t
		u.Columns, u.LeftOut = cols, leftOut
		return utf8.RuneCountInString(describe([]warehouse.Table{u}))
	}
	p.base = size(nil, 0)
	p.leftOut = size(nil, len(t.Columns)) - p.base
	if !force && (p.base+p.leftOut+3)/4 > room {
		return nil
	}
	scores := make([]float64, len(t.Columns))
	p.why = make([]string, len(t.Columns))
	var core []warehouse.TableColumn
	for i, c := range t.Columns {
		scores[i], p.why[i] = r.score(t, i, c)
		if scores[i] >= columnCore {
			core = append(core, c)
		}
	}
	if !force && (size(core, len(t.Columns)-len(core))+3)/4 > room {
		return nil
	}
	p.cols = make([]int, len(t.Columns))
	for i, c := range t.Columns {
		p.cols[i] = size([]warehouse.TableColumn{c}, 0) - p.base
	}
	p.order = make([]int, len(t.Columns))
	for i := range p.order {
		p.order[i] = i
	}
	slices.SortStableFunc(p.order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	for _, i := range p.order[len(core):] {
		if p.why[i] == "" {
			p.why[i] = whyRoom
		}
	}
	p.kept, p.core = len(core), len(core)
	return p
}

// fitCore trims the core to its best columns while its description takes
// more than most tokens, keeping its keys and its best other column: a
// table the question names is described so even past the budget, but a
// word inside every column's name (sensor of sensor_001 … sensor_600)
// must not make all of them its core.
func (p *partial) fitCore(most int) {
	floor := 1
	for _, i := range p.order[:p.core] {
		if p.why[i] == whyKey {
			floor++
		}
	}
	for p.kept > min(floor, p.core) && p.cost() > most {
		p.kept--
	}
	p.core = min(p.core, p.kept)
}

// cost is the description's size in prompt tokens.
func (p *partial) cost() int {
	n := p.base
	for _, i := range p.order[:p.kept] {
		n += p.cols[i]
	}
	if p.kept < len(p.order) {
		n += p.leftOut
	}
	return (n + 3) / 4
}

// grow keeps more columns, best first, while the description's cost
// keeps used within budget; it returns the new used.
func (p *partial) grow(budget, used int) int {
	used -= p.cost()
	for p.kept < len(p.order) {
		p.kept++
		if used+p.cost() > budget {
			p.kept--
			break
		}
	}
	return used + p.cost()
}

// keysOnly reports whether the core is the table's keys alone.
func (p *partial) keysOnly() bool {
	for _, i := range p.order[:p.core] {
		if p.why[i] != whyKey {
			return false
		}
	}
	return true
}

// described is the table with only the kept columns, in catalog order,
// and why each was kept.
func (p *partial) described() (warehouse.Table, []Column) {
	keep := slices.Clone(p.order[:p.kept])
	slices.Sort(keep)
	t := p.table
	t.Columns = make([]warehouse.TableColumn, 0, len(keep))
	var why []Column
	for _, i := range keep {
		t.Columns = append(t.Columns, p.table.Columns[i])
		why = append(why, Column{Name: p.table.Columns[i].Name, Why: p.why[i]})
	}
	t.LeftOut = len(p.table.Columns) - len(keep)
	return t, why
}

// columnRequest is what a column's worth depends on.
type columnRequest struct {
	terms []string
	// roots are the related words of the same root as a word of the
	// question ("stopover" → stop): a column named by one is needed as
	// one named by another form of the word.
	roots             []related
	matches           []store.ValueMatch
	earlier, examples map[string]bool
	// links are the columns, per table, that join it to another
	// (joinPartners): keys, whatever their names.
	links map[string]bool
	// date is the calendar date the question names ("December 2017",
	// calendarDate), and dated the top tables (topTables, "schema.table"
	// in lower case): their date and time columns are needed to filter on
	// it, whatever their names ("came out in December 2017" and
	// apps.release_date).
	date  string
	dated map[string]bool
}

// score is what column i (c) of t is worth to the question, and why.
func (r columnRequest) score(t warehouse.Table, i int, c warehouse.TableColumn) (float64, string) {
	// Its words are read before it is lowered, so a camelCase name keeps
	// them apart (ageRating: age, rating).
	raw, layer := ownName(t, c)
	name := strings.ToLower(raw)
	if isKey(t, i, raw, layer) || r.links[strings.ToLower(t.QualifiedName())+"."+name] {
		return columnEarlier + 1, whyKey
	}
	if r.earlier[name] {
		return columnEarlier, "used earlier in the thread"
	}
	for _, m := range r.matches {
		if m.Column == c.Name && m.Table == t.Name && m.Schema == t.Schema {
			return columnValue, fmt.Sprintf("value %q", m.Value)
		}
	}
	if c.Kind == warehouse.KindTime && r.dated[strings.ToLower(t.QualifiedName())] {
		return columnName, "question: " + r.date + " → a date"
	}
	var score float64
	var hits []string
	nameWords, commentWords := words(raw), words(c.Comment)
	for _, w := range r.terms {
		switch {
		case slices.Contains(nameWords, w):
			score += columnName
		case len(w) >= minCompoundWord && strings.Contains(name, w):
			score += columnCompound
		case slices.Contains(commentWords, w):
			score += columnComment
		default:
			// Another form of the word ("aged" and required_age), by
			// their Snowball stems, as tables are matched (forms).
			stem := lexicon.Stem(w)
			i := slices.IndexFunc(nameWords, func(n string) bool { return lexicon.Stem(n) == stem })
			if i >= 0 {
				if slices.Contains(r.terms, nameWords[i]) {
					continue // the question has the word itself too
				}
				score += columnName * shareForm
				w = w + " → " + nameWords[i]
				break
			}
			// Or inside a name that does not split, as a table is
			// reached by it: "joining" and sbcustjoindate (the column
			// that ranked the table, kept with it).
			inside := formInside(w, name)
			if inside == "" {
				continue
			}
			score += columnCompound * shareForm
			w = w + " → " + inside + "…"
		}
		hits = append(hits, w)
	}
	var why []string
	if len(hits) > 0 {
		why = append(why, "question: "+strings.Join(hits, ", "))
	}
	for _, x := range r.roots {
		stem := lexicon.Stem(x.word)
		if slices.Contains(hits, x.from) || !slices.ContainsFunc(nameWords, func(n string) bool { return lexicon.Stem(n) == stem }) {
			continue // the question's own word already counted, or not a word of the name
		}
		score += columnName * shareForm
		why = append(why, x.label+": "+arrow(x.from, x.word))
		hits = append(hits, x.from)
	}
	if r.examples[name] {
		score += columnExample
		why = append(why, "used by an example")
	}
	return score, strings.Join(why, "; ")
}

// formInside is another form of w (its stem, or the word an agent noun
// is made from) of at least minCompoundWord letters found inside name,
// or "".
func formInside(w, name string) string {
	for _, f := range lexicon.Forms(w) {
		if f != w && len(f) >= minCompoundWord && strings.Contains(name, f) {
			return f
		}
	}
	return ""
}

// ownName is c's own name: a semantic layer's member (layer) is named
// with its cube, "Apps.ageRating", and its own part is the rest.
func ownName(t warehouse.Table, c warehouse.TableColumn) (name string, layer bool) {
	if _, member, ok := strings.Cut(c.Name, "."); ok && t.Schema == "" {
		return member, true
	}
	return c.Name, false
}

// isKey reports whether column i of t, whose own name is name (ownName),
// is one of its keys: a column named id or for a table (customer_id,
// customerId), a table's first column (not a cube's, whose members come
// in no such order), or one a foreign key of t holds.
func isKey(t warehouse.Table, i int, name string, layer bool) bool {
	if _, ok := keyStem(name); ok || strings.EqualFold(name, "id") {
		return true
	}
	// A table's first column is its key by custom; a cube's members come
	// in no such order (its first is a measure, as often as not).
	if i == 0 && !layer {
		return true
	}
	for _, fk := range t.ForeignKeys {
		if slices.ContainsFunc(fk.Columns, func(c string) bool { return strings.EqualFold(c, name) }) {
			return true
		}
	}
	return false
}

// namedPerWord is the most tables a word of the question forces (named).
const namedPerWord = 3

// named picks, for each word of the question that names tables (is a
// word of a table's name or title, or is inside its name), the best of
// them in order: a table the question names is described at least in
// part whatever the budget. At most namedPerWord a word: "refund" in a
// warehouse of a hundred refund_* tables forces three, not a hundred.
func named(cat *warehouse.Catalog, order []int, terms []string) map[int]bool {
	out := map[int]bool{}
	for _, w := range terms {
		n := 0
		for _, i := range order {
			t := cat.Tables[i]
			name := strings.ToLower(t.Name)
			if slices.Contains(words(t.Name), w) || slices.Contains(words(t.Title), w) ||
				(len(w) >= minCompoundWord && strings.Contains(name, w)) {
				out[i] = true
				if n++; n == namedPerWord {
					break
				}
			}
		}
	}
	return out
}

// months are the names of the months, which with a year make a calendar
// date.
var months = set("january", "february", "march", "april", "may", "june", "july", "august", "september",
	"october", "november", "december")

// calendarDate is the calendar date a question names, as it says it: a
// month with the year after it ("December 2017"), a month alone, or a
// year (1900 to 2099); "" when it names none. "May" counts only before a
// number ("May 2019", "May 3"): alone it is more often the verb.
func calendarDate(question string) string {
	fields := strings.FieldsFunc(question, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	year := func(w string) bool {
		return len(w) == 4 && (strings.HasPrefix(w, "19") || strings.HasPrefix(w, "20")) && isNumber(w)
	}
	for i, w := range fields {
		next := ""
		if i+1 < len(fields) {
			next = fields[i+1]
		}
		lower := strings.ToLower(w)
		switch {
		case months[lower] && year(next):
			return w + " " + next
		case months[lower] && (lower != "may" || isNumber(next) && next != ""):
			return w
		case year(w):
			return w
		}
	}
	return ""
}
