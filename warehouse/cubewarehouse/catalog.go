package cubewarehouse

import (
	"strings"

	"github.com/analyticsbot/analyticsbot/cube"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// catalogOf turns Cube's data model into a catalog: a table per cube or
// view, its measures, dimensions and segments as columns (fully
// qualified, as queries name them), each group sorted by name; a view
// reads the cubes' members its own stand for (viewReads).
func catalogOf(m *cube.Meta) *warehouse.Catalog {
	cat := &warehouse.Catalog{Tables: make([]warehouse.Table, 0, len(m.Cubes))}
	for _, c := range m.Cubes {
		t := warehouse.Table{Name: c.Name, Title: c.Title, Comment: c.Description}
		if c.View {
			t.Reads = viewReads(c)
		}
		for _, mem := range c.Measures {
			t.Columns = append(t.Columns, warehouse.TableColumn{Name: mem.Name, Type: measureType(mem),
				Kind: warehouse.KindNumber, Role: warehouse.RoleMeasure, Nullable: true, Comment: mem.Description})
		}
		for _, mem := range c.Dimensions {
			t.Columns = append(t.Columns, warehouse.TableColumn{Name: mem.Name, Type: mem.Type,
				Kind: valueKind(mem.Type), Role: warehouse.RoleDimension, Nullable: true, Comment: mem.Description})
		}
		for _, mem := range c.Segments {
			t.Columns = append(t.Columns, warehouse.TableColumn{Name: mem.Name,
				Kind: warehouse.KindBool, Role: warehouse.RoleSegment, Comment: mem.Description})
		}
		cat.Tables = append(cat.Tables, t)
	}
	return cat
}

// viewReads are the cube members a view's members stand for (their
// aliasMember, "Orders.count", or "orders.users.name" through a join
// path). A member /meta gives no alias for is read as one the backend
// cannot name: the view is then refused to a policy that does not name
// it (warehouse.Decide). Segments count too: one filters by what its cube's
// segment reads, and no Cube version names it in /meta, so a view with a
// segment is refused to such a policy on every version.
func viewReads(c cube.CubeMeta) []warehouse.ColumnRef {
	reads := []warehouse.ColumnRef{}
	for _, m := range append(append(append([]cube.Member{}, c.Measures...), c.Dimensions...), c.Segments...) {
		parts := strings.Split(m.AliasMember, ".")
		if len(parts) < 2 {
			reads = append(reads, warehouse.ColumnRef{Column: m.Name})
			continue
		}
		cubeName := parts[len(parts)-2]
		reads = append(reads, warehouse.ColumnRef{Table: cubeName, Column: cubeName + "." + parts[len(parts)-1]})
	}
	return reads
}

// valueKind is the neutral kind of a Cube type.
func valueKind(cubeType string) warehouse.Kind {
	switch cubeType {
	case "number":
		return warehouse.KindNumber
	case "string":
		return warehouse.KindText
	case "time":
		return warehouse.KindTime
	case "boolean":
		return warehouse.KindBool
	}
	return warehouse.KindOther
}

// measureType shows the aggregation ("count", "avg"), which tells the model
// more than the "number" every measure has.
func measureType(m cube.Member) string {
	if m.AggType != "" {
		return m.AggType
	}
	return m.Type
}

// describe renders cubes compactly for the prompt: per cube its name,
// title and description, then its measures, dimensions and segments, one
// "Name (type): description" line each (with its values, for a dimension
// with few), and how many members a cube described in part leaves out.
func describe(tables []warehouse.Table) string {
	var b strings.Builder
	for i, t := range tables {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("Cube " + t.Name)
		if title := warehouse.OneLine(t.Title); title != "" && title != t.Name {
			b.WriteString(": " + title)
		}
		if d := warehouse.OneLine(t.Comment); d != "" {
			b.WriteString(" — " + d)
		}
		b.WriteByte('\n')
		describeList(&b, "Measures", t.ColumnsOf(warehouse.RoleMeasure))
		describeList(&b, "Dimensions", t.ColumnsOf(warehouse.RoleDimension))
		describeList(&b, "Segments", t.ColumnsOf(warehouse.RoleSegment))
		if t.LeftOut > 0 {
			b.WriteString("  " + warehouse.DescribeLeftOut(t.LeftOut) + "\n")
		}
	}
	return b.String()
}

func describeList(b *strings.Builder, heading string, cols []warehouse.TableColumn) {
	if len(cols) == 0 {
		return
	}
	b.WriteString("  " + heading + ":\n")
	for _, c := range cols {
		b.WriteString("    " + c.Name)
		if c.Type != "" {
			b.WriteString(" (" + c.Type + ")")
		}
		d := warehouse.OneLine(c.Comment)
		if len(c.Values) > 0 {
			d = strings.TrimPrefix(d+"; values: "+warehouse.QuoteJSON.List(c.Values), "; ")
		}
		if d != "" {
			b.WriteString(": " + d)
		}
		b.WriteByte('\n')
	}
}
