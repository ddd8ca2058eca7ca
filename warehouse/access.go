package warehouse

import (
	"context"
	"fmt"
	"strings"
)

// Access is what one caller may read: a policy of the access file
// (package access), as the backends enforce it. Tables and columns outside
// it are left out of the catalog the caller's questions see, and a query
// naming them is refused with Forbidden, never retried.
type Access interface {
	// Policy names the policy, for logs and the query log.
	Policy() string
	// AllowsTable reports whether the caller may read schema.table.
	AllowsTable(schema, table string) bool
	// AllowsColumn reports whether the caller may read a column of a
	// table they may read.
	AllowsColumn(schema, table, column string) bool
	// MasksColumn reports whether an allowed column is masked: the
	// caller's queries may filter, group, order and count by it, never
	// return it.
	MasksColumn(schema, table, column string) bool
}

// MaskedNote is what Filter adds to a masked column's description, so
// the model knows how a SQL query may use it. A backend whose queries
// may use a masked column less gives its own note (FilterNoted).
const MaskedNote = "Masked: filter, group, order or count by it (count(DISTINCT …)); never select it."

// Permitter is a backend that can tell, without running anything, whether
// ctx's caller may run a query under their access policy (the guard
// alone, not the database's EXPLAIN): cheap enough to check examples and
// suggestions with.
type Permitter interface {
	Permits(ctx context.Context, text string) error
}

// Permits checks text for ctx's caller with b's Permitter when it has one,
// else with Check (which may ask the data source).
func Permits(ctx context.Context, b Backend, text string) error {
	if p, ok := b.(Permitter); ok {
		return p.Permits(ctx, text)
	}
	_, err := b.Check(ctx, text, 0)
	return err
}

// PermitsShown checks text, another person's query shown to ctx's caller
// (an example in the generator's prompt, a suggested question, a verified
// query listed), as Permits does, with every column the caller's policy
// masks counted as denied: the values such a query names (a masked
// column compared with a literal) are that column's data, which the
// caller may narrow their own queries by but never read.
func PermitsShown(ctx context.Context, b Backend, text string) error {
	return Permits(ShownCaller(ctx), b, text)
}

// ShownCaller returns ctx with its caller's policy as PermitsShown checks
// it: every column it masks denied.
func ShownCaller(ctx context.Context) context.Context {
	if c := CallerOf(ctx); c.Access != nil {
		c.Access = masksDenied{c.Access}
		ctx = WithCaller(ctx, c)
	}
	return ctx
}

// masksDenied is an Access whose masked columns are denied.
type masksDenied struct{ Access }

// masksDeniedMark ends the name of a masksDenied policy; a control
// character, which no policy name may hold (package access), so backends
// that keep a view per policy name keep this one apart.
const masksDeniedMark = "\x00masks denied"

func (m masksDenied) Policy() string { return m.Access.Policy() + masksDeniedMark }

func (m masksDenied) AllowsColumn(schema, table, column string) bool {
	return m.Access.AllowsColumn(schema, table, column) && !m.Access.MasksColumn(schema, table, column)
}

func (m masksDenied) MasksColumn(string, string, string) bool { return false }

// Match is the inner policy's match with its masked columns denied, so
// that Decide reads the wrapper as it reads the policy: a view or a
// partitioned table it names exactly is still its own.
func (m masksDenied) Match(schema, table, column string) Match {
	mt := matchOf(m.Access, schema, table, column)
	mt.Denied, mt.Masked = mt.Denied || mt.Masked, false
	return mt
}

// RoleTeller is a backend that says which database role a caller's
// queries run as, for the audit.
type RoleTeller interface {
	RoleFor(ctx context.Context) string
}

// Forbidden: the query names a table or column outside the caller's access
// policy. Never retried; people are told what they may not read.
const Forbidden ErrorKind = "forbidden"

// Filter returns the tables of cat as a may see them, as Decide decides a
// over cat: without the tables and views a does not allow and the columns
// it denies (and foreign keys through them). A nil a sees cat as it is.
func Filter(cat *Catalog, a Access) *Catalog {
	return FilterNoted(cat, a, MaskedNote)
}

// FilterNoted is Filter with note, in the backend's words, added to the
// description of each column a masks.
func FilterNoted(cat *Catalog, a Access, note string) *Catalog {
	if a == nil || cat == nil {
		return cat
	}
	return &Catalog{Tables: filterTables(cat.Tables, Decide(cat, a), note)}
}

// filterTables keeps the tables a allows, with the columns it allows.
func filterTables(tables []Table, a Access, note string) []Table {
	out := make([]Table, 0, len(tables))
	for _, t := range tables {
		if !a.AllowsTable(t.Schema, t.Name) {
			continue
		}
		cols := make([]TableColumn, 0, len(t.Columns))
		for _, c := range t.Columns {
			if !a.AllowsColumn(t.Schema, t.Name, c.Name) {
				continue
			}
			if a.MasksColumn(t.Schema, t.Name, c.Name) {
				c.Comment = strings.TrimSpace(c.Comment + " " + note)
			}
			cols = append(cols, c)
		}
		if len(cols) == 0 {
			continue
		}
		t.Columns = cols
		var fks []ForeignKey
		for _, fk := range t.ForeignKeys {
			if keepsKey(a, t, fk) {
				fks = append(fks, fk)
			}
		}
		t.ForeignKeys = fks
		out = append(out, t)
	}
	return out
}

// Outside lists, for the guard, what exists in cat (its tables and
// partitions) but a does not allow, as Decide decides a over cat: tables
// ("schema.table"), columns of allowed tables ("schema.table.column"),
// and the allowed columns it masks.
func Outside(cat *Catalog, a Access) (tables, columns, masked []string) {
	if a == nil || cat == nil {
		return nil, nil, nil
	}
	a = Decide(cat, a)
	for _, t := range append(cat.Tables[:len(cat.Tables):len(cat.Tables)], cat.Partitions...) {
		var denied, hidden []string
		for _, c := range t.Columns {
			switch {
			case !a.AllowsColumn(t.Schema, t.Name, c.Name):
				denied = append(denied, t.Schema+"."+t.Name+"."+c.Name)
			case a.MasksColumn(t.Schema, t.Name, c.Name):
				hidden = append(hidden, t.Schema+"."+t.Name+"."+c.Name)
			}
		}
		// A table with no column left is as good as forbidden.
		if !a.AllowsTable(t.Schema, t.Name) || len(denied) == len(t.Columns) {
			tables = append(tables, t.Schema+"."+t.Name)
			continue
		}
		columns = append(columns, denied...)
		masked = append(masked, hidden...)
	}
	return tables, columns, masked
}

// keepsKey reports whether a foreign key of t stays visible under a: its
// target table and every column on both sides are allowed.
func keepsKey(a Access, t Table, fk ForeignKey) bool {
	if !a.AllowsTable(fk.RefSchema, fk.RefTable) {
		return false
	}
	for _, c := range fk.Columns {
		if !a.AllowsColumn(t.Schema, t.Name, c) {
			return false
		}
	}
	for _, c := range fk.RefColumns {
		if !a.AllowsColumn(fk.RefSchema, fk.RefTable, c) {
			return false
		}
	}
	return true
}

// Patterned is an Access written as patterns (the access file's policies),
// which can say which of them match nothing in a catalog: most likely a
// typo, and for a deny or a mask, a rule that keeps nothing out.
type Patterned interface {
	Unmatched(cat *Catalog) []Unmatched
}

// Unmatched is a pattern of a policy that matches no table (tables,
// deny_tables) or no column (deny_columns, mask_columns) of a catalog.
type Unmatched struct {
	// Policy is the policy's name, Key the list the pattern is in.
	Policy, Key string
	// Pattern is as the file writes it ("analytics.app.price").
	Pattern string
	// Exact is true when the pattern has no wildcard: it names one table
	// or column, which does not exist.
	Exact bool
}

// Restricts reports whether the pattern would take something away (a
// deny or a mask): matching nothing, it leaves readable in full what it
// was written to keep out.
func (u Unmatched) Restricts() bool { return u.Key != "tables" }

// String says it for the operator: `policy "analysts" deny_columns
// "analytics.app.price" matches no column`.
func (u Unmatched) String() string {
	what := "table"
	if u.Key == "deny_columns" || u.Key == "mask_columns" {
		what = "column"
	}
	return fmt.Sprintf("policy %q %s %q matches no %s", u.Policy, u.Key, u.Pattern, what)
}
