package warehouse

import (
	"fmt"
	"strings"
)

// Kind is a backend-neutral kind of value.
type Kind string

// The kinds of values. Numbers read right-aligned and may be summed, times
// may be charted over, and so on; other is anything else (json, arrays,
// binary, ...).
const (
	KindNumber Kind = "number"
	KindText   Kind = "text"
	KindTime   Kind = "time"
	KindBool   Kind = "bool"
	KindOther  Kind = "other"
)

// Role says what a catalog column is for. SQL columns have none; a semantic
// layer tells measures, dimensions and segments apart.
type Role string

// The roles of a semantic layer's members.
const (
	RoleMeasure   Role = "measure"
	RoleDimension Role = "dimension"
	RoleSegment   Role = "segment"
)

// Catalog is what a backend lets questions read: tables (views, cubes)
// with their columns, in a stable order.
type Catalog struct {
	Tables []Table
	// Partitions are the partitions of the Tables' partitioned tables, with
	// their columns: a query may read one by name, but the model is not
	// shown them (their parent stands for them).
	Partitions []Table
	// Related are the relations the Tables and Partitions read, inherit
	// from or are inherited by (directly or not) that they do not hold
	// themselves: tables and views of other schemas, relations the reader
	// may not read. They carry Reads and Parents but no columns: an access
	// decision (Decide) follows them, nobody queries them.
	Related []Table
}

// Table is one table, view or cube of a catalog.
type Table struct {
	// Schema is the table's namespace; empty for backends without one.
	Schema string
	Name   string
	// Title is a display name the backend gives, when it differs from Name.
	Title string
	// Comment describes the table (COMMENT ON, a cube's description).
	Comment string
	Columns []TableColumn
	// ForeignKeys are the table's declared references to other tables.
	ForeignKeys []ForeignKey
	// Reads is what a view reads (a materialized view, or a Cube view,
	// too), whoever queries it, as the backend records it (PostgreSQL's
	// pg_depend rows of the view's rewrite rule, Cube's members' aliases):
	// columns of other tables and views, and a table's rows with no column
	// named (Column "": count(*) over it). A whole row it reads
	// (row_to_json(t), t.*) is every column of the table; a read with no
	// Table is one the backend could not name. Nil for a table.
	Reads []ColumnRef
	// Parents are the tables this one is a partition or an inheritance
	// child of, directly (PostgreSQL's pg_inherits): reading a parent
	// reads its descendants' rows.
	Parents []TableRef
	// LeftOut counts the columns a description of the table leaves out:
	// package grounding describes a table too wide for the prompt's budget
	// by some of its Columns, and the Dialect's Describe says how many
	// more there are. 0 in a backend's catalog.
	LeftOut int
}

// TableRef names a table of a catalog.
type TableRef struct {
	Schema, Name string
}

func (r TableRef) String() string {
	if r.Schema == "" {
		return r.Name
	}
	return r.Schema + "." + r.Name
}

// Ref names the table.
func (t Table) Ref() TableRef { return TableRef{Schema: t.Schema, Name: t.Name} }

// TableColumn is one column (or member) of a Table.
type TableColumn struct {
	Name string
	// Type is the backend's native type: "integer", "numeric(10,2)", Cube's
	// "number" or a measure's aggregation ("count").
	Type     string
	Kind     Kind
	Role     Role
	Nullable bool
	Comment  string
	// Values are every value of a column that has few (codes and flags
	// such as 'T'/'F'), which the Dialect's Describe lists so the
	// generator sees them; package grounding sets them from the value
	// index. Nil in a backend's catalog.
	Values []string
}

// DescribeValues renders a column's Values for a prompt as SQL string
// literals, comma separated ("'F', 'M'"), each exactly the stored value
// (QuoteSQL): 'EMEA ' with its space, E'Line\nBreak' on one line.
func DescribeValues(values []string) string {
	return QuoteSQL.List(values)
}

// DescribeLeftOut says how many columns a description leaves out.
func DescribeLeftOut(n int) string {
	if n == 1 {
		return "… 1 more column, not shown"
	}
	return fmt.Sprintf("… %d more columns, not shown", n)
}

// ForeignKey is a declared reference from columns of a table to columns of
// another.
type ForeignKey struct {
	Columns    []string
	RefSchema  string
	RefTable   string
	RefColumns []string
}

// ColumnRef names a column of a catalog.
type ColumnRef struct {
	Schema, Table, Column string
}

func (c ColumnRef) String() string {
	if c.Schema == "" {
		return c.Table + "." + c.Column
	}
	return c.Schema + "." + c.Table + "." + c.Column
}

// QualifiedName is the table's name with its schema, "analytics.apps", or
// its bare name for backends without schemas.
func (t Table) QualifiedName() string {
	if t.Schema == "" {
		return t.Name
	}
	return t.Schema + "." + t.Name
}

// ColumnsOf returns the columns of the given role, in catalog order.
func (t Table) ColumnsOf(role Role) []TableColumn {
	var out []TableColumn
	for _, c := range t.Columns {
		if c.Role == role {
			out = append(out, c)
		}
	}
	return out
}

// Column finds a column by name.
func (t Table) Column(name string) (TableColumn, bool) {
	for _, c := range t.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return TableColumn{}, false
}

// Table finds a table by schema and name; an empty schema matches a table
// of any schema when only one has that name.
func (c *Catalog) Table(schema, name string) (Table, bool) {
	var found []Table
	for _, t := range c.Tables {
		if t.Name == name && (schema == "" || t.Schema == schema) {
			found = append(found, t)
		}
	}
	if len(found) != 1 {
		return Table{}, false
	}
	return found[0], true
}

// Schemas lists the schemas of the catalog's tables in order of first
// appearance.
func (c *Catalog) Schemas() []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range c.Tables {
		if t.Schema != "" && !seen[t.Schema] {
			seen[t.Schema] = true
			out = append(out, t.Schema)
		}
	}
	return out
}

// OneLine collapses white space, so a multi-line comment stays on one line
// of a prompt.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
