package grounding

import (
	"slices"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// ListedColumn is a column whose every value the description lists (a
// column with few values, ValueIndex.Listed).
type ListedColumn struct {
	warehouse.ColumnRef
	Values []string
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
