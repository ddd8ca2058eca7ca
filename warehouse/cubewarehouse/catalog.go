package cubewarehouse

import (
	"strings"

	"github.com/analyticsbot/analyticsbot/cube"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// catalogOf turns Cube's data model into a catalog: a table per cube, its
// measures, dimensions and segments as columns (fully qualified, as
// queries name them), each group sorted by name.
func catalogOf(m *cube.Meta) *warehouse.Catalog {
	cat := &warehouse.Catalog{Tables: make([]warehouse.Table, 0, len(m.Cubes))}
	for _, c := range m.Cubes {
		t := warehouse.Table{Name: c.Name, Title: c.Title, Comment: c.Description}
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
// "Name (type): description" line each.
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
		if d := warehouse.OneLine(c.Comment); d != "" {
			b.WriteString(": " + d)
		}
		b.WriteByte('\n')
	}
}
