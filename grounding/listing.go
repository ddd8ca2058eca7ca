package grounding

import (
	"slices"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// ListedColumn is a column whose every value the description lists (a
// column with few values, ValueIndex.Listed).
type ListedColumn struct {
	warehouse.ColumnRef
	Values []string
	// Why says why it is listed: ListedTop or ListedRoom.
	Why string
}

// Why a column's values are listed.
const (
	// ListedTop: a code of one of the question's top tables (topTables,
	// codesOf), for which the lower tables' columns gave way.
	ListedTop = "top table, room kept"
	// ListedRoom: the values fit the room the chosen tables left.
	ListedRoom = "room left"
)

// The codes of the question's top tables have a claim on the budget: the
// values of the day column of the table the question is most about
// ('Saturday') are worth more than the last columns of a table ranked
// tenth. The lower tables' columns of least worth give way to them; no
// table does.
const (
	// topMax is the most top tables, and topShare the least share of the
	// best table's score a top table has. On the Defog benchmark more (3,
	// or any above the share) cost more columns of the lower tables and
	// found no more values.
	topMax   = 2
	topShare = 0.5
	// reserveShare is the most of the budget the top tables' codes may
	// claim: 105 tokens at 700, 450 at 3,000.
	reserveShare = 0.15
	// codeChars is the longest listing of a code's values, in characters
	// ("'Friday', 'Monday', …" of seven weekdays takes 76): a column with
	// longer ones (names, addresses, emails that a small table happens to
	// have few of) lists them only in the room left.
	codeChars = 120
)

// topCodes are the codes of the question's top tables (topTables) and the
// tokens listing them takes (listingReserve).
func topCodes(cat *warehouse.Catalog, describe func([]warehouse.Table) string, top []int,
	listed map[warehouse.ColumnRef][]string, budget int) (codes map[warehouse.ColumnRef][]string, reserve int) {
	if len(listed) == 0 || len(top) == 0 {
		return nil, 0
	}
	tables := make([]warehouse.Table, len(top))
	for k, i := range top {
		tables[k] = cat.Tables[i]
	}
	codes = codesOf(tables, listed)
	return codes, listingReserve(tables, codes, describe, budget)
}

// codesOf are the listed columns of tables that hold codes: not keys,
// and listed in at most codeChars.
func codesOf(tables []warehouse.Table, listed map[warehouse.ColumnRef][]string) map[warehouse.ColumnRef][]string {
	out := map[warehouse.ColumnRef][]string{}
	for _, t := range tables {
		for ci, c := range t.Columns {
			ref := warehouse.ColumnRef{Schema: t.Schema, Table: t.Name, Column: c.Name}
			values, ok := listed[ref]
			own, layer := ownName(t, c)
			if ok && !isKey(t, ci, own, layer) && utf8.RuneCountInString(warehouse.DescribeValues(values)) <= codeChars {
				out[ref] = values
			}
		}
	}
	return out
}

// because sets why each column of listed is listed, and returns listed.
func because(why string, listed []ListedColumn) []ListedColumn {
	for k := range listed {
		listed[k].Why = why
	}
	return listed
}

// listValues sets the Values of the columns of tables that listed has, best
// table first (tables[priority[0]]), while their descriptions grow by no
// more than room characters; a column a table described in part left out
// is not listed. It returns the columns listed; tables are changed in
// place, on copies of their columns.
func listValues(tables []warehouse.Table, priority []int, listed map[warehouse.ColumnRef][]string,
	describe func([]warehouse.Table) string, room int) []ListedColumn {
	if len(listed) == 0 {
		return nil
	}
	var out []ListedColumn
	for _, i := range priority {
		t := &tables[i]
		size := utf8.RuneCountInString(describe([]warehouse.Table{*t}))
		cloned := false
		for ci, c := range t.Columns {
			ref := warehouse.ColumnRef{Schema: t.Schema, Table: t.Name, Column: c.Name}
			values, ok := listed[ref]
			if !ok || len(c.Values) > 0 {
				continue
			}
			if !cloned {
				t.Columns, cloned = slices.Clone(t.Columns), true
			}
			t.Columns[ci].Values = values
			grown := utf8.RuneCountInString(describe([]warehouse.Table{*t}))
			if grown-size > room {
				t.Columns[ci].Values = nil
				continue
			}
			room -= grown - size
			size = grown
			out = append(out, ListedColumn{ColumnRef: ref, Values: values})
		}
	}
	return out
}

// topTables counts the question's top tables: those that lead order (best
// first) scoring at least topShare of the first's score, at most topMax.
func topTables(order []int, scored []Table) int {
	if len(order) == 0 || scored[order[0]].Score <= 0 {
		return 0
	}
	best := scored[order[0]].Score
	n := 0
	for n < min(len(order), topMax) && scored[order[n]].Score >= topShare*best {
		n++
	}
	return n
}

// listingReserve is the prompt tokens that listing the values listed has
// of the columns of tables adds to their descriptions, at most
// reserveShare of budget: the room the lower tables give way for.
func listingReserve(tables []warehouse.Table, listed map[warehouse.ColumnRef][]string,
	describe func([]warehouse.Table) string, budget int) int {
	grown := 0
	for _, t := range tables {
		u, cloned := t, false
		for ci, c := range t.Columns {
			values, ok := listed[warehouse.ColumnRef{Schema: t.Schema, Table: t.Name, Column: c.Name}]
			if !ok || len(c.Values) > 0 {
				continue
			}
			if !cloned {
				u.Columns, cloned = slices.Clone(t.Columns), true
			}
			u.Columns[ci].Values = values
		}
		if cloned {
			grown += utf8.RuneCountInString(describe([]warehouse.Table{u})) - utf8.RuneCountInString(describe([]warehouse.Table{t}))
		}
	}
	if grown == 0 {
		return 0
	}
	// listValues measures its room in characters against the sum of the
	// tables' rounded estimates: one token more covers the rounding.
	return min((grown+3)/4+1, int(float64(budget)*reserveShare))
}

// giveWay frees free tokens for the top tables' codes from the tables of
// lower (the described tables below the top ones, best first): the
// lowest first leaves out its columns of least worth, down to its core
// (its keys and the columns the question needs); a table described whole
// becomes described in part. No table is dropped. A table the question
// names (forced) whose core is its keys alone keeps its best other column
// too: program(program_id) tells the generator nothing to show for "each
// program", program(program_id, name) does.
func giveWay(cat *warehouse.Catalog, describe func([]warehouse.Table) string, lower []int, chosen []bool,
	parts []*partial, cr columnRequest, forced map[int]bool, free int) {
	for _, i := range slices.Backward(lower) {
		if free <= 0 {
			return
		}
		if !chosen[i] {
			continue
		}
		p := parts[i]
		if p == nil {
			p = newPartial(cat.Tables[i], describe, cr, 0, true)
			p.kept = len(p.order)
		}
		before := p.cost()
		if parts[i] == nil {
			before = llm.EstimateTokens(describe([]warehouse.Table{cat.Tables[i]}))
		}
		kept, floor := p.kept, p.core
		if forced[i] && p.keysOnly() && p.core < p.kept {
			floor++
		}
		for p.kept > floor && before-p.cost() < free {
			p.kept--
		}
		if before-p.cost() <= 0 {
			p.kept = kept // leaving columns out saves nothing
			continue
		}
		if best := p.order[p.core]; floor > p.core && p.kept == floor && p.why[best] == whyRoom {
			p.why[best] = whyNamedBest
		}
		free -= before - p.cost()
		parts[i] = p
	}
}
