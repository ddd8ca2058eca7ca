// Package grounding decides what the query generator is shown of the
// catalog for one question, within a budget of prompt tokens: the whole
// catalog when it fits with the codes of the tables the question is most
// about (nothing is lost on a small schema), otherwise the
// tables the question needs, ranked by the words it shares with their
// names, columns and comments and by the thread's earlier queries, with
// the tables they join to, while they fit the budget; the names of the
// other tables follow while room remains. It works on any backend's catalog (SQL
// tables, Cube cubes) and calls no model and no database.
package grounding

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/lexicon"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// DefaultBudget is the prompt tokens the catalog may take when no budget
// is set: the demo's 13 tables (about 2,600) fit whole.
const DefaultBudget = 3000

// Request is what the choice depends on.
type Request struct {
	// Question is the (resolved) question.
	Question string
	// Earlier are the texts of the thread's earlier queries: their tables
	// are likely needed again by a follow-up.
	Earlier []string
	// Examples are the queries of the examples the prompt shows: the
	// tables they use are worth describing next to them.
	Examples []string
	// Matches are the stored values that resemble words of the question
	// (ValueIndex.Lookup): their tables are likely needed to filter on them.
	Matches []store.ValueMatch
	// Budget is the most prompt tokens the catalog may take; 0 means
	// DefaultBudget.
	Budget int
	// Listed are every value of the columns that have few
	// (ValueIndex.Listed): the description lists them, best table first,
	// while the budget allows, once the tables are chosen.
	Listed map[warehouse.ColumnRef][]string
	// Lexicon relates the question's words to others (WordNet, the
	// glossary); nil relates none. Word forms are matched without it.
	Lexicon *lexicon.Lexicon
	// Terms are the search terms the classifier named for the question
	// (likely table and column words, names of things).
	Terms []string
}

// Table is a table chosen for the prompt, with why.
type Table struct {
	warehouse.Table
	// Score ranks the table against the question; 0 for a table that only
	// filled room left in the budget.
	Score float64
	// Reasons say why it was chosen, for people ("question: release, year",
	// "used earlier in the thread", "joins apps").
	Reasons []string
	// Kept are the columns of a table described in part (its LeftOut
	// counts the others), with why each was kept; nil when it is
	// described whole.
	Kept []Column
}

// Context is what the generator is shown of the catalog.
type Context struct {
	// Tables are described in full, in the order the prompt lists them.
	Tables []Table
	// Others are the names of tables listed without their columns.
	Others []string
	// Omitted counts the tables neither described nor named.
	Omitted int
	// Catalog is the text the prompt shows.
	Catalog string
	// Tokens estimates Catalog's size in prompt tokens; WholeTokens that
	// of the whole catalog described in full (with the values it lists,
	// when it is shown whole).
	Tokens, WholeTokens int
	// Whole reports that the whole catalog fit the budget and is shown.
	Whole bool
	// Values are the matched values the prompt shows: exact, stemmed
	// and place matches first, then those of the described tables, then
	// others, at most ValueColumns columns.
	Values []store.ValueMatch
	// Listed are the columns whose every value the description lists.
	Listed []ListedColumn
}

// ValueColumns is the most columns whose matched values the prompt shows.
const ValueColumns = 6

// maxShownChars bounds the characters of the matched values the prompt
// shows, all columns together, beside the budget the tables take: their
// 6 columns of 5 values of up to MaxValueLength characters each would add
// 6,000 (1,500 tokens); the names and codes a question names take a
// fifth of this bound at most, as a rule.
const maxShownChars = 1200

// Describer describes tables for the prompt: a backend dialect's
// Describe, and a name for it. Describe must be a function of the tables
// it is given alone: the whole catalog's description is kept, per catalog
// and Name, from one question to the next, so two describers that write
// differently need different names (nodes names a dialect's by its
// backend); one with no name is never kept.
type Describer struct {
	Name     string
	Describe func([]warehouse.Table) string
	// TableName writes a table's name in the list of the tables not
	// described (the dialect's TableName); nil: its QualifiedName.
	TableName func(warehouse.Table) string
}

// tableName writes t's name as d's dialect does.
func (d Describer) tableName(t warehouse.Table) string {
	if d.TableName != nil {
		return d.TableName(t)
	}
	return t.QualifiedName()
}

// Build chooses the tables of cat to show for r, described by d.
func Build(cat *warehouse.Catalog, d Describer, r Request) Context {
	budget := r.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	describe := d.Describe
	facts := factsOf(cat)
	all, whole := facts.description(cat.Tables, d)
	order, relevant, scored, links, roots := rank(cat, facts, r)
	// The question's top tables: the codes of theirs have a claim on the
	// budget (the lower tables' columns of least worth give way to them),
	// and a calendar date in the question dates their date columns.
	top := order[:topTables(order[:relevant], scored)]
	codes, reserve := topCodes(cat, describe, top, r.Listed, budget)
	if whole+reserve <= budget {
		return wholeCatalog(cat, describe, r, all, whole, budget, order, scored, top, codes)
	}
	c := Context{WholeTokens: whole}
	// The relevant tables (the question's, the thread's and their join
	// partners); with none, the catalog's first. A catalog that fits
	// whole but not with its top tables' codes keeps every table, and
	// the lowest give way to the codes.
	fill := order[:relevant]
	if relevant == 0 || whole <= budget {
		fill = order
	}
	cr := columnRequest{terms: terms(r.Question), roots: roots, matches: r.Matches, earlier: identifiers(r.Earlier),
		examples: identifiers(r.Examples), links: links}
	if date := calendarDate(r.Question); date != "" && relevant > 0 {
		cr.date, cr.dated = date, map[string]bool{}
		for _, i := range top {
			cr.dated[strings.ToLower(cat.Tables[i].QualifiedName())] = true
		}
	}
	forced := named(cat, fill, cr.terms)
	var chosen []bool
	var parts []*partial
	var used int
	if whole <= budget {
		chosen, parts, used = everyTable(cat, describe)
	} else {
		chosen, parts, used = fillBudget(cat, describe, fill, relevant > 0, cr, forced, budget)
	}
	if reserve > budget-used {
		// The lower tables give way: for the top tables' codes, which
		// keep the top tables whole; for an overflow alone, every table.
		lower := fill
		if reserve > 0 {
			lower = fill[len(top):]
		}
		giveWay(cat, describe, lower, chosen, parts, cr, forced, reserve-(budget-used))
	}
	var described []warehouse.Table
	topDescribed := 0 // the top tables lead described
	for k, i := range fill {
		if !chosen[i] {
			continue
		}
		if k < len(top) {
			topDescribed++
		}
		t := scored[i]
		if parts[i] != nil {
			t.Table, t.Kept = parts[i].described()
		}
		c.Tables = append(c.Tables, t)
		described = append(described, t.Table)
	}
	// The top tables' codes, in the room given way for them; then the
	// values of columns with few, best table first, while room remains.
	priority := make([]int, len(described))
	for k := range priority {
		priority[k] = k
	}
	c.Listed = because(ListedTop, listValues(described[:topDescribed], priority[:topDescribed], codes, describe,
		budget*4-3-utf8.RuneCountInString(describe(described))))
	c.Listed = append(c.Listed, because(ListedRoom, listValues(described, priority, r.Listed, describe,
		budget*4-3-utf8.RuneCountInString(describe(described))))...)
	for k := range described {
		c.Tables[k].Table = described[k]
	}
	c.Catalog = describe(described)
	// The other tables by name, best first, while the budget lasts.
	room := budget*4 - utf8.RuneCountInString(c.Catalog) - utf8.RuneCountInString(othersPrefix) - 1
	for _, i := range order {
		name := d.tableName(cat.Tables[i])
		if chosen[i] {
			continue
		}
		cost := utf8.RuneCountInString(name) + 2
		if room < cost {
			break
		}
		room -= cost
		c.Others = append(c.Others, name)
	}
	c.Omitted = len(cat.Tables) - len(c.Tables) - len(c.Others)
	if len(c.Others) > 0 {
		c.Catalog += othersPrefix + strings.Join(c.Others, ", ") + "\n"
	}
	c.Tokens = llm.EstimateTokens(c.Catalog)
	c.Values = shownValues(r.Matches, described)
	return c
}

// wholeCatalog is the context of a catalog that fits the budget whole
// with its top tables' codes (top, codes): shown whole, in catalog order;
// the scores still tell people which tables the question touches. The
// codes are listed first, then the values of the other columns with few,
// best table first, while the budget allows.
func wholeCatalog(cat *warehouse.Catalog, describe func([]warehouse.Table) string, r Request, all string, whole, budget int,
	order []int, scored []Table, top []int, codes map[warehouse.ColumnRef][]string) Context {
	c := Context{Whole: true, WholeTokens: whole, Catalog: all, Tokens: whole, Tables: scored,
		Values: shownValues(r.Matches, cat.Tables)}
	if len(r.Listed) == 0 {
		return c
	}
	tables := slices.Clone(cat.Tables)
	c.Listed = because(ListedTop, listValues(tables, top, codes, describe, budget*4-3-utf8.RuneCountInString(all)))
	c.Listed = append(c.Listed, because(ListedRoom, listValues(tables, order, r.Listed, describe,
		budget*4-3-utf8.RuneCountInString(describe(tables))))...)
	c.Catalog = describe(tables)
	c.Tokens = llm.EstimateTokens(c.Catalog)
	c.WholeTokens = c.Tokens
	return c
}

// everyTable chooses every table of cat, described whole, and returns
// the tokens they take, as fillBudget does: for a catalog that fits whole.
func everyTable(cat *warehouse.Catalog, describe func([]warehouse.Table) string) (chosen []bool, parts []*partial, used int) {
	chosen = make([]bool, len(cat.Tables))
	for i, t := range cat.Tables {
		chosen[i] = true
		used += llm.EstimateTokens(describe([]warehouse.Table{t}))
	}
	return chosen, make([]*partial, len(cat.Tables)), used
}

// fillBudget chooses the tables of fill (best first) to describe within
// budget: whole while they fit. When they are relevant (partly is true), a
// table that does not fit whole is described in part: its keys and the
// columns the question needs, if they fit, and always when the question
// names the table (forced, of named); those then take the room left, best
// table first. It returns which tables are chosen and, of those, the ones
// described in part, and the tokens they take.
func fillBudget(cat *warehouse.Catalog, describe func([]warehouse.Table) string, fill []int, partly bool,
	cr columnRequest, forced map[int]bool, budget int) (chosen []bool, parts []*partial, used int) {
	chosen = make([]bool, len(cat.Tables))
	parts = make([]*partial, len(cat.Tables))
	for _, i := range fill {
		if size := llm.EstimateTokens(describe([]warehouse.Table{cat.Tables[i]})); used+size <= budget {
			used += size
			chosen[i] = true
			continue
		}
		if !partly {
			continue
		}
		p := newPartial(cat.Tables[i], describe, cr, budget-used, forced[i])
		if p != nil && forced[i] {
			// Within the room left: two named wide tables share it.
			p.fitCore(budget - used)
		}
		if p != nil && (used+p.cost() <= budget || forced[i]) {
			used += p.cost()
			chosen[i], parts[i] = true, p
		}
	}
	for _, i := range fill {
		if parts[i] != nil {
			used = parts[i].grow(budget, used)
		}
	}
	return chosen, parts, used
}

// shownValues keeps the matches of at most ValueColumns columns, spent by
// match quality: first the columns with an exact, stemmed or place match
// (whatever their table: 'English' in a language column the question
// names is worth more than a fuzzy match in a described table), then the
// other columns of the described tables, best table first, which the
// query can filter on; then the others, in the lookup's order (best
// first). A value longer than MaxValueLength (in an index written before
// the index left them out) is not shown, and the values shown take at
// most maxShownChars characters: the first that fit, in that order.
func shownValues(matches []store.ValueMatch, described []warehouse.Table) []store.ValueMatch {
	matches = slices.DeleteFunc(slices.Clone(matches), func(m store.ValueMatch) bool {
		return utf8.RuneCountInString(m.Value) > MaxValueLength
	})
	var columns []store.ValueColumn
	add := func(m store.ValueMatch) {
		if !slices.Contains(columns, m.ValueColumn) && len(columns) < ValueColumns {
			columns = append(columns, m.ValueColumn)
		}
	}
	strong := func(m store.ValueMatch) bool {
		return m.Exact || m.Why == store.MatchStem || m.Why == store.MatchPlace
	}
	for _, t := range described {
		for _, m := range matches {
			if strong(m) && t.Name == m.Table && t.Schema == m.Schema {
				add(m)
			}
		}
	}
	for _, m := range matches {
		if strong(m) {
			add(m)
		}
	}
	for _, t := range described {
		for _, m := range matches {
			if t.Name == m.Table && t.Schema == m.Schema {
				add(m)
			}
		}
	}
	for _, m := range matches {
		add(m)
	}
	var out []store.ValueMatch
	room := maxShownChars
	for _, col := range columns {
		for _, m := range matches {
			if n := utf8.RuneCountInString(m.Value); m.ValueColumn == col && n <= room {
				room -= n
				out = append(out, m)
			}
		}
	}
	return out
}

// othersPrefix introduces the tables named without their columns.
const othersPrefix = "\nOther tables, not described here: "

// Weights of where a question's word is found in a table.
const (
	weightTable   = 3.0
	weightColumn  = 1.5
	weightComment = 0.5
	// compoundShare is the part of a name's weight a word gets when it is
	// found inside a name it is not a word of ("customer" in sbcustomer,
	// a camelCase name folded to lower case).
	compoundShare = 0.8
	// bonusEarlier ranks a table the thread's earlier queries used above
	// any the question merely mentions.
	bonusEarlier = 10.0
	// bonusExample lifts a table an example of the prompt uses.
	bonusExample = 1.0
	// partnerShare is the part of a table's score the tables it refers
	// to get.
	partnerShare = 0.5
	// referrerShare is the part of a table's score a table referring to
	// it gets.
	referrerShare = 0.3
	// bridgeShare is the part of the lesser score of two relevant tables
	// a table linking them gets.
	bridgeShare = 0.9
	// schemaTop is how many of a schema's best scores make its strength,
	// and schemaFloor the least share of its score a table keeps when its
	// schema is weak (see schemaCoherence).
	schemaTop   = 3
	schemaFloor = 0.5
	// bonusValue, times the match's similarity, lifts a table holding a
	// value the question names; fuzzyShare of it for a fuzzy match, which
	// tells less than an exact, stemmed or place match ("Strategy games"
	// and the publisher 'Pro Strategy Games').
	bonusValue = 6.0
	fuzzyShare = 0.75
)

// rank orders the catalog's tables for r: the relevant ones (scored, or
// referred to by a scored one) best first, then the rest in catalog order;
// relevant counts the first. It also returns every table with its score
// and reasons, the columns that join tables ("schema.table.column") and
// the related words of the same root as the question's (columns).
func rank(cat *warehouse.Catalog, facts *catalogFacts, r Request) (order []int, relevant int, scored []Table, links map[string]bool, roots []related) {
	scored = make([]Table, len(cat.Tables))
	bags, df := facts.bags, facts.df
	for i, t := range cat.Tables {
		scored[i] = Table{Table: t}
	}
	n := float64(len(cat.Tables))
	qterms := terms(r.Question)
	compounds := newCompounds(facts, qterms)
	forms := newForms(facts, r, qterms)
	spread := phraseSpread(r.Matches)
	earlier, examples := identifiers(r.Earlier), identifiers(r.Examples)
	for i := range scored {
		var hits []string
		for _, w := range qterms {
			if weight, ok := bags[i][w]; ok {
				scored[i].Score += weight * math.Log(1+n/float64(df[w]))
				hits = append(hits, w)
			}
		}
		for _, w := range compounds.hits(i, bags[i], &scored[i].Score) {
			if !slices.Contains(hits, w) {
				hits = append(hits, w)
			}
		}
		if len(hits) > 0 {
			scored[i].Reasons = append(scored[i].Reasons, "question: "+strings.Join(hits, ", "))
		}
		scored[i].Reasons = append(scored[i].Reasons, forms.hits(i, bags[i], hits, &scored[i].Score)...)
		name := strings.ToLower(cat.Tables[i].Name)
		if earlier[name] {
			scored[i].Score += bonusEarlier
			scored[i].Reasons = append(scored[i].Reasons, "used earlier in the thread")
		}
		if m, weight, ok := bestMatch(cat.Tables[i], r.Matches, spread); ok {
			scored[i].Score += bonusValue * weight
			scored[i].Reasons = append(scored[i].Reasons, fmt.Sprintf("value %q in %s", m.Value, m.Column))
		}
		if examples[name] && scored[i].Score > 0 {
			// Only for tables the question needs: the examples are the
			// same for every question.
			scored[i].Score += bonusExample
			scored[i].Reasons = append(scored[i].Reasons, "used by an example")
		}
	}
	schemaCoherence(cat, scored)
	// A table that a relevant table refers to is needed to join it: it
	// ranks at least half as high.
	partners, js := facts.partners, facts.joins
	own := make([]float64, len(scored))
	for i := range scored {
		own[i] = scored[i].Score
	}
	for i, ps := range partners {
		if own[i] == 0 {
			continue
		}
		for k, j := range ps {
			scored[j].Reasons = append(scored[j].Reasons, facts.joinsReason[i][k])
			scored[j].Score = max(scored[j].Score, own[i]*partnerShare)
		}
	}
	// And the tables a partner refers to, at half its score again: the
	// salespersons of the sales that payments_received refers to.
	hop := make([]float64, len(scored))
	for i := range scored {
		hop[i] = scored[i].Score
	}
	for i, ps := range partners {
		if hop[i] <= own[i] {
			continue
		}
		for k, j := range ps {
			if hop[i]*partnerShare > scored[j].Score {
				scored[j].Reasons = append(scored[j].Reasons, facts.joinsReason[i][k])
				scored[j].Score = hop[i] * partnerShare
			}
		}
	}
	// A table that refers to a relevant table holds facts about it (the
	// sales of a car, the locations of a restaurant, who teaches an
	// offering): it ranks well below it, after the tables it refers to,
	// so it takes only room they leave. A question that says none of its
	// words ("deals" for sales) still finds it beside the table it does
	// name.
	// One that refers to two is a bridge (below), which says so.
	for i, ps := range partners {
		if own[i] > 0 {
			continue
		}
		bridge := bridges(ps, own)
		for k, j := range ps {
			if own[j] == 0 || own[j]*referrerShare <= scored[i].Score {
				continue
			}
			scored[i].Score = own[j] * referrerShare
			if !bridge {
				scored[i].Reasons = append(scored[i].Reasons, facts.refersReason[i][k])
			}
		}
	}
	// A table that refers to two relevant tables links them (a bridge such
	// as app_publishers between apps and publishers): it ranks just below
	// the second of them.
	for i, ps := range partners {
		var ends []int
		for _, j := range ps {
			if own[j] > 0 {
				ends = append(ends, j)
			}
		}
		if len(ends) < 2 {
			continue
		}
		slices.SortStableFunc(ends, func(a, b int) int { return cmp.Compare(own[b], own[a]) })
		scored[i].Reasons = append(scored[i].Reasons, "links "+cat.Tables[ends[0]].QualifiedName()+" and "+cat.Tables[ends[1]].QualifiedName()+
			" ("+js.via[[2]int{i, ends[0]}]+", "+js.via[[2]int{i, ends[1]}]+")")
		scored[i].Score = max(scored[i].Score, own[ends[1]]*bridgeShare)
	}
	for i := range scored {
		if scored[i].Score > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scored[b].Score, scored[a].Score) })
	relevant = len(order)
	for i := range scored {
		if scored[i].Score == 0 {
			order = append(order, i)
		}
	}
	for _, x := range forms.related {
		if x.root {
			roots = append(roots, x)
		}
	}
	return order, relevant, scored, js.columns, roots
}

// bridges reports whether a table referring to partners links two
// relevant ones (own score above 0).
func bridges(partners []int, own []float64) bool {
	n := 0
	for _, j := range partners {
		if own[j] > 0 {
			n++
		}
	}
	return n >= 2
}

// schemaCoherence scales each score by the strength of its table's
// schema for the question (the sum of its schemaTop best scores) against
// the strongest schema's: from 1 in the strongest down to schemaFloor in
// one with nothing. The tables a question needs tend to share a schema,
// so a word the question happens to share with a table of an unrelated
// schema ("offer" in advising.offering_instructor, for airlines with a
// stopover in Dallas) counts for less. One schema: no change.
func schemaCoherence(cat *warehouse.Catalog, scored []Table) {
	tops := map[string][]float64{}
	for i, t := range cat.Tables {
		if scored[i].Score > 0 {
			tops[t.Schema] = append(tops[t.Schema], scored[i].Score)
		}
	}
	strength := make(map[string]float64, len(tops))
	best := 0.0
	for schema, scores := range tops {
		slices.SortFunc(scores, func(a, b float64) int { return cmp.Compare(b, a) })
		for _, v := range scores[:min(len(scores), schemaTop)] {
			strength[schema] += v
		}
		best = max(best, strength[schema])
	}
	if len(strength) < 2 {
		return
	}
	for i, t := range cat.Tables {
		scored[i].Score *= schemaFloor + (1-schemaFloor)*strength[t.Schema]/best
	}
}

// bag maps the words of a table to the weight of the best place each is
// found: its name, a column's name, or a comment.
func bag(t warehouse.Table) map[string]float64 {
	b := map[string]float64{}
	add := func(text string, weight float64) {
		eachWord(text, func(w string) {
			if len(w) >= 2 && !stopWords[w] && b[w] < weight {
				b[w] = weight
			}
		})
	}
	add(t.Comment, weightComment)
	add(t.Title, weightTable)
	for _, c := range t.Columns {
		add(c.Comment, weightComment)
		// A semantic layer's member is qualified with its cube: the
		// member's own part names the column.
		name := c.Name
		if _, member, ok := strings.Cut(name, "."); ok {
			name = member
		}
		add(name, weightColumn)
	}
	add(t.Name, weightTable)
	return b
}

// bestMatch is the matched value stored in table t that counts most: its
// similarity, divided by the square root of the number of tables its
// phrase matched in ("Los Angeles", a city in six tables, tells less
// about which table the question needs than "LAX", in one).
func bestMatch(t warehouse.Table, matches []store.ValueMatch, spread map[string]int) (store.ValueMatch, float64, bool) {
	var best store.ValueMatch
	var weight float64
	found := false
	for _, m := range matches {
		if m.Table != t.Name || m.Schema != t.Schema {
			continue
		}
		w := m.Similarity / math.Sqrt(float64(max(spread[m.Phrase], 1)))
		if m.Why == store.MatchFuzzy {
			w *= fuzzyShare
		}
		if !found || w > weight {
			best, weight, found = m, w, true
		}
	}
	return best, weight, found
}

// phraseSpread counts the tables each phrase matched a value in.
func phraseSpread(matches []store.ValueMatch) map[string]int {
	tables := map[string]map[string]bool{}
	for _, m := range matches {
		if tables[m.Phrase] == nil {
			tables[m.Phrase] = map[string]bool{}
		}
		tables[m.Phrase][m.Schema+"."+m.Table] = true
	}
	out := make(map[string]int, len(tables))
	for p, ts := range tables {
		out[p] = len(ts)
	}
	return out
}

// identifiers are the lower-case identifiers of texts: runs of letters,
// digits, _ and $ ("analytics.apps" gives "analytics" and "apps", Cube's
// "Apps.count" gives "apps" and "count").
func identifiers(texts []string) map[string]bool {
	out := map[string]bool{}
	for _, t := range texts {
		start := -1 // where the current identifier starts, -1 between them
		for i, r := range t {
			if isIdentifierRune(r) {
				if start < 0 {
					start = i
				}
				continue
			}
			if start >= 0 {
				out[strings.ToLower(t[start:i])] = true
				start = -1
			}
		}
		if start >= 0 {
			out[strings.ToLower(t[start:])] = true
		}
	}
	return out
}

// isIdentifierRune reports whether r is part of an identifier: a letter, a
// number, _ or $ (`[\pL\pN_$]`).
func isIdentifierRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' || r == '$'
}

// joinPartners lists, per table, the tables it refers to: its declared
// foreign keys, and by name, a column x_id joining a table named x (or its
// plural) of the same schema, a column named like the key another table
// opens with (keyOwners), or named like the one other table whose key it
// is by name (nameOwners: orders.region and region_targets.region). Only
// that way round: a table many others refer to (a fact table every link
// table points at) would otherwise pull them all in. The joins say by
// which columns.
func joinPartners(cat *warehouse.Catalog) ([][]int, joins) {
	// Declared keys name their table exactly; a name read from a column
	// finds it whatever its case ("Customers", an ORM's "Customer"),
	// unless two tables differ only by case.
	index, folded := map[string]int{}, map[string]int{}
	for i, t := range cat.Tables {
		index[t.QualifiedName()] = i
		k := strings.ToLower(t.QualifiedName())
		if _, seen := folded[k]; seen {
			folded[k] = -1
			continue
		}
		folded[k] = i
	}
	lookup := func(schema, name string) (int, bool) {
		candidates := []string{name, name + "s", name + "es", strings.TrimSuffix(name, "y") + "ies"}
		for _, candidate := range candidates {
			if j, ok := index[qualify(schema, candidate)]; ok {
				return j, true
			}
		}
		for _, candidate := range candidates {
			if j, ok := folded[strings.ToLower(qualify(schema, candidate))]; ok && j >= 0 {
				return j, true
			}
		}
		return 0, false
	}
	keys, named := keyOwners(cat), nameOwners(cat)
	out := make([][]int, len(cat.Tables))
	js := joins{via: map[[2]int]string{}, columns: map[string]bool{}}
	link := func(a, b int, from, to string) {
		if a == b || slices.Contains(out[a], b) {
			return
		}
		out[a] = append(out[a], b)
		ta, tb := cat.Tables[a], cat.Tables[b]
		if to == "" && len(tb.Columns) > 0 {
			to = tb.Columns[0].Name
		}
		js.via[[2]int{a, b}] = ta.Name + "." + from + " ↔ " + tb.Name + "." + to
		// A semantic layer's member is named with its cube: the key is
		// its own part, as columnRequest.score reads it.
		js.columns[strings.ToLower(ta.QualifiedName()+"."+memberOf(from))] = true
		js.columns[strings.ToLower(tb.QualifiedName()+"."+memberOf(to))] = true
	}
	for i, t := range cat.Tables {
		for _, fk := range t.ForeignKeys {
			if j, ok := index[qualify(fk.RefSchema, fk.RefTable)]; ok && len(fk.Columns) > 0 && len(fk.RefColumns) > 0 {
				link(i, j, fk.Columns[0], fk.RefColumns[0])
			}
		}
		for ci, c := range t.Columns {
			name := strings.ToLower(c.Name)
			if stem, ok := keyStem(c.Name); ok {
				if j, ok := lookup(t.Schema, stem); ok {
					link(i, j, c.Name, "")
					continue
				}
			}
			// A key named like another table's own (writes.aid and the
			// aid opening author): a link table's columns, or a column
			// other than the table's own key.
			if ci == 0 && isEntity(t) {
				continue
			}
			if j, ok := keys.owner(t.Schema, name, i); ok {
				link(i, j, c.Name, ownColumn(cat.Tables[j], name))
				continue
			}
			if j, ok := named[qualify(t.Schema, name)]; ok && j >= 0 {
				link(i, j, c.Name, ownColumn(cat.Tables[j], name))
			}
		}
	}
	return out, js
}

// memberOf is a column's name without the cube a semantic layer's member
// is qualified with ("Apps.app_id" gives "app_id").
func memberOf(column string) string {
	if _, member, ok := strings.Cut(column, "."); ok {
		return member
	}
	return column
}

// joins says by which columns tables join (joinPartners).
type joins struct {
	// via names the columns that join table a to table b: "orders.region
	// ↔ region_targets.region".
	via map[[2]int]string
	// columns are the joining columns, "schema.table.column" in lower
	// case: a table described in part keeps them.
	columns map[string]bool
}

// ownColumn is t's column named name (lower case) in t's own case, or its
// first column.
func ownColumn(t warehouse.Table, name string) string {
	for _, c := range t.Columns {
		if strings.ToLower(c.Name) == name {
			return c.Name
		}
	}
	if len(t.Columns) > 0 {
		return t.Columns[0].Name
	}
	return name
}

// nameOwners maps "schema.column" to the one table of the schema whose
// key the column is by its name: the table it opens (airline_code opening
// airline), or whose name it begins (region in region_targets), when it
// ends in no "id" (keyOwners has those). Where two tables would own it,
// it maps to -1: no link.
func nameOwners(cat *warehouse.Catalog) map[string]int {
	out := map[string]int{}
	own := func(k string, i int) {
		if j, seen := out[k]; seen && j != i {
			out[k] = -1
			return
		}
		out[k] = i
	}
	for i, t := range cat.Tables {
		if !isEntity(t) {
			continue
		}
		table := strings.ToLower(t.Name)
		for ci, c := range t.Columns {
			name := strings.ToLower(c.Name)
			if len(name) < 3 || strings.HasSuffix(name, "id") {
				continue
			}
			if ci == 0 || table == name || strings.HasPrefix(table, name+"_") {
				own(qualify(t.Schema, name), i)
			}
		}
	}
	return out
}

// keyOwners maps "schema.column" to the entity table (see isEntity) of
// the schema that owns the column, when it is named like a key (ending in
// "id", not just "id"): the one entity table it opens, or else the one
// entity table that has it at all (publication(abstract, …, pid, …) among
// link tables writes(aid, pid) and cite(citing, cited)). Where no foreign
// key is declared, a column of that name elsewhere likely refers to it.
func keyOwners(cat *warehouse.Catalog) keyIndex {
	first, having := map[string][]int{}, map[string][]int{}
	for i, t := range cat.Tables {
		if !isEntity(t) {
			continue
		}
		for ci, c := range t.Columns {
			name := strings.ToLower(c.Name)
			if len(name) <= 2 || !strings.HasSuffix(name, "id") {
				continue
			}
			k := qualify(t.Schema, name)
			having[k] = append(having[k], i)
			if ci == 0 {
				first[k] = append(first[k], i)
			}
		}
	}
	out := keyIndex{exact: map[string]int{}, suffix: map[string]int{}}
	for k, is := range having {
		switch {
		case len(first[k]) == 1:
			out.exact[k] = first[k][0]
		case len(first[k]) == 0 && len(is) == 1:
			out.exact[k] = is[0]
			continue
		default:
			continue
		}
		// Only a table's own key (its first column) links by its end.
		schema, name := splitQualified(k)
		for n := minKeySuffix; n <= len(name); n++ {
			suf := qualify(schema, name[len(name)-n:])
			if j, seen := out.suffix[suf]; seen && j != out.exact[k] {
				out.suffix[suf] = -1 // two owners: no link
				continue
			}
			out.suffix[suf] = out.exact[k]
		}
	}
	return out
}

// minKeySuffix is the shortest end of a key that links by suffix: "custid"
// of sbcustid in sbtxcustid; shorter ends ("d_id") are in too many names.
const minKeySuffix = 6

// keyIndex finds the table that owns a key column, by the key's name or,
// within a schema, by an end of it: broker.sbtransaction.sbtxcustid ends
// like sbcustid, the key opening broker.sbcustomer.
type keyIndex struct {
	exact, suffix map[string]int
}

// owner is the table other than self that owns column of a table of
// schema.
func (k keyIndex) owner(schema, column string, self int) (int, bool) {
	if j, ok := k.exact[qualify(schema, column)]; ok && j != self {
		return j, true
	}
	if !strings.HasSuffix(column, "id") {
		return 0, false
	}
	for n := len(column) - 1; n >= minKeySuffix; n-- {
		if j, ok := k.suffix[qualify(schema, column[len(column)-n:])]; ok {
			return j, j >= 0 && j != self
		}
	}
	return 0, false
}

// keyStem is the table a key column names by its own name: customer of
// customer_id, and of an ORM's customerId or customerID.
func keyStem(column string) (string, bool) {
	if stem, ok := strings.CutSuffix(strings.ToLower(column), "_id"); ok && stem != "" {
		return stem, true
	}
	for _, suffix := range []string{"Id", "ID"} {
		stem, ok := strings.CutSuffix(column, suffix)
		if !ok || stem == "" {
			continue
		}
		if r, _ := utf8.DecodeLastRuneInString(stem); unicode.IsLower(r) || unicode.IsDigit(r) {
			return strings.ToLower(stem), true
		}
	}
	return "", false
}

// splitQualified undoes qualify.
func splitQualified(name string) (schema, rest string) {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return "", name
}

// isEntity reports whether a table holds more than keys: a column whose
// name does not end in "id" (a link table such as writes(aid, pid) has
// none).
func isEntity(t warehouse.Table) bool {
	return slices.ContainsFunc(t.Columns, func(c warehouse.TableColumn) bool {
		return !strings.HasSuffix(strings.ToLower(c.Name), "id")
	})
}

func qualify(schema, name string) string {
	if schema == "" {
		return name
	}
	return schema + "." + name
}

// String renders the context for people: the tables with their scores and
// reasons, and the token estimates.
func (c Context) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "catalog: %d tokens of %d for the whole catalog", c.Tokens, c.WholeTokens)
	if c.Whole {
		b.WriteString(" (all of it fits)")
	}
	b.WriteByte('\n')
	for _, t := range c.Tables {
		fmt.Fprintf(&b, "  %-40s %6.2f  %s\n", t.QualifiedName(), t.Score, strings.Join(t.Reasons, "; "))
		if t.Kept != nil {
			kept := make([]string, len(t.Kept))
			for i, k := range t.Kept {
				kept[i] = k.Name + " (" + k.Why + ")"
			}
			fmt.Fprintf(&b, "    %d of %d columns: %s; %d left out\n", len(t.Kept), len(t.Kept)+t.LeftOut, strings.Join(kept, ", "), t.LeftOut)
		}
	}
	if len(c.Others) > 0 {
		fmt.Fprintf(&b, "  named only: %s\n", strings.Join(c.Others, ", "))
	}
	if c.Omitted > 0 {
		fmt.Fprintf(&b, "  left out: %d tables\n", c.Omitted)
	}
	for _, l := range c.Listed {
		fmt.Fprintf(&b, "  all values listed (low cardinality, at most %d; %s): %s: %s\n", LowCardinality, l.Why, l.ColumnRef, warehouse.DescribeValues(l.Values))
	}
	return b.String()
}
