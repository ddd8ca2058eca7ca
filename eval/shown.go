package eval

import (
	"slices"
	"strings"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/grounding"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// shownAsValue reports whether the prompt of gc shows value as a value of
// col: among the matched values of that column, among the values its
// description lists (a column with few), quoted in its comment as a
// described table shows it, or compared with that column by a query the
// prompt shows (an example's, the earlier one of a follow-up). A value
// quoted elsewhere ('Saturday' in the comment of some other table's
// column) does not count: the generator cannot tell it is this column's.
func shownAsValue(gc bot.GeneratorContext, col store.ValueColumn, value string, cat *warehouse.Catalog) bool {
	if slices.ContainsFunc(gc.State.Matches, func(m store.ValueMatch) bool { return m.ValueColumn == col && m.Value == value }) {
		return true
	}
	g := gc.State.Grounding
	ref := warehouse.ColumnRef{Schema: col.Schema, Table: col.Table, Column: col.Column}
	if slices.ContainsFunc(g.Listed, func(l grounding.ListedColumn) bool { return l.ColumnRef == ref && slices.Contains(l.Values, value) }) {
		return true
	}
	quoted := []string{"'" + value + "'", "'" + strings.ReplaceAll(value, "'", "''") + "'"}
	for _, t := range g.Tables {
		if t.Schema != col.Schema || t.Name != col.Table {
			continue
		}
		// As described: a table described in part shows only some of
		// its columns.
		for _, c := range t.Columns {
			if c.Name == col.Column && (slices.Contains(c.Values, value) ||
				slices.ContainsFunc(quoted, func(q string) bool { return strings.Contains(c.Comment, q) })) {
				return true
			}
		}
	}
	for _, q := range gc.Queries {
		refs, err := References(q)
		if err != nil {
			continue
		}
		for _, l := range refs.Literals {
			if l.Value != value || !strings.EqualFold(l.Column, col.Column) {
				continue
			}
			if t, ok := literalTable(l, refs, cat); ok && t.Schema == col.Schema && t.Name == col.Table {
				return true
			}
		}
	}
	return false
}
