package warehouse

// What a policy allows depends on more than the names its lists match: a
// view reads with its owner's rights, so it can show a table the policy
// denies, and reading a partitioned or inherited table reads its
// descendants' rows. Decide turns a policy and a catalog that records both
// (Table.Reads, Table.Parents) into the decision every layer applies:
// Filter (the catalog the model sees, and through it the value lookup),
// Outside (the guard's lists) and pgwarehouse.ApplyPolicies (the grants).
// docs/access.md states the rules.

// Match is how an access policy's own lists match a table (column "") or a
// column, before a catalog's views, partitions and inheritance children
// are taken into account.
type Match struct {
	// Listed: the allowed tables match the table. Exact: one of them names
	// it exactly, with no "*": the administrator chose that table.
	Listed, Exact bool
	// Denied: the denied tables match the table, or the denied columns
	// the column, whatever else the policy says.
	Denied bool
	// Masked: the masked columns match the column.
	Masked bool
}

// Matcher is an Access that says how its lists match a table or a column.
// Decide reads an Access without it strictly: every table it allows as
// matched by a pattern, and every table or column it does not allow as
// denied.
type Matcher interface {
	Match(schema, table, column string) Match
}

// matchOf is how a's lists match the table (column "") or column.
func matchOf(a Access, schema, table, column string) Match {
	if m, ok := a.(Matcher); ok {
		return m.Match(schema, table, column)
	}
	if column == "" {
		ok := a.AllowsTable(schema, table)
		return Match{Listed: ok, Denied: !ok}
	}
	return Match{Listed: a.AllowsTable(schema, table), Denied: !a.AllowsColumn(schema, table, column),
		Masked: a.MasksColumn(schema, table, column)}
}

// Decide returns a as it applies to cat's relations:
//
//   - A view (Table.Reads) that a's tables match only by a pattern with
//     "*" is allowed when a allows every table it reads, by these same
//     rules, and every column it reads, unmasked: a view could return a
//     masked column as it is. One named exactly is allowed whatever it
//     reads, unless denied.
//   - A table is refused when a denies one of its descendants (partitions
//     and inheritance children, at any depth): reading it reads their
//     rows. A column a denies (or masks) on a descendant is denied (or
//     masked) on it too, by the column's name.
//   - A descendant of a table a denies is refused when a's tables match it
//     only by a pattern: it holds that table's rows. Likewise for the
//     columns a denies or masks on an ancestor.
//
// Tables outside cat are decided by a alone. The result is safe for
// concurrent use; a nil a or cat gives a back.
func Decide(cat *Catalog, a Access) Access {
	if d, ok := a.(*decision); ok {
		if d.cat == cat {
			return d
		}
		a = d.Access
	}
	if a == nil || cat == nil {
		return a
	}
	d := &decision{Access: a, cat: cat, rels: map[TableRef]*Table{}, children: map[TableRef][]TableRef{},
		tables: map[TableRef]bool{}, building: true}
	for _, list := range [][]Table{cat.Tables, cat.Partitions, cat.Related} {
		for i := range list {
			t := &list[i]
			d.rels[t.Ref()] = t
			for _, p := range t.Parents {
				d.children[p] = append(d.children[p], t.Ref())
			}
		}
	}
	for r := range d.rels {
		d.table(r)
	}
	d.building = false // d.tables is read-only from here on
	return d
}

// decision is an Access decided over a catalog (Decide).
type decision struct {
	Access
	cat      *Catalog
	rels     map[TableRef]*Table
	children map[TableRef][]TableRef
	// tables holds each relation's decision, made while building.
	tables   map[TableRef]bool
	building bool
}

// AllowsTable implements Access.
func (d *decision) AllowsTable(schema, table string) bool {
	return d.table(TableRef{Schema: schema, Name: table})
}

// AllowsColumn implements Access.
func (d *decision) AllowsColumn(schema, table, column string) bool {
	ok, _ := d.column(TableRef{Schema: schema, Name: table}, column)
	return ok
}

// MasksColumn implements Access.
func (d *decision) MasksColumn(schema, table, column string) bool {
	ok, masked := d.column(TableRef{Schema: schema, Name: table}, column)
	return ok && masked
}

// table decides r once, while building; a relation outside the catalog
// is the policy's alone.
func (d *decision) table(r TableRef) bool {
	if ok, done := d.tables[r]; done {
		return ok
	}
	if !d.building || d.rels[r] == nil {
		return d.Access.AllowsTable(r.Schema, r.Name)
	}
	d.tables[r] = false // a cycle, which PostgreSQL does not allow, refuses
	ok := d.decideTable(r)
	d.tables[r] = ok
	return ok
}

func (d *decision) decideTable(r TableRef) bool {
	if !d.Access.AllowsTable(r.Schema, r.Name) {
		return false
	}
	for _, c := range d.descendants(r) {
		if matchOf(d.Access, c.Schema, c.Name, "").Denied {
			return false
		}
	}
	if matchOf(d.Access, r.Schema, r.Name, "").Exact {
		return true
	}
	for _, p := range d.ancestors(r) {
		if matchOf(d.Access, p.Schema, p.Name, "").Denied {
			return false
		}
	}
	for _, read := range d.rels[r].Reads {
		if read.Table == "" {
			return false // what it reads, the backend could not say
		}
		from := TableRef{Schema: read.Schema, Name: read.Table}
		if !d.table(from) {
			return false
		}
		if read.Column == "" {
			continue
		}
		if ok, masked := d.column(from, read.Column); !ok || masked {
			return false
		}
	}
	return true
}

// column decides a column of r: whether the policy allows it, and whether
// it masks it.
func (d *decision) column(r TableRef, column string) (ok, masked bool) {
	if !d.table(r) || !d.Access.AllowsColumn(r.Schema, r.Name, column) {
		return false, false
	}
	masked = d.Access.MasksColumn(r.Schema, r.Name, column)
	relatives := d.descendants(r)
	if !matchOf(d.Access, r.Schema, r.Name, "").Exact {
		relatives = append(relatives, d.ancestors(r)...)
	}
	for _, x := range relatives {
		m := matchOf(d.Access, x.Schema, x.Name, column)
		if m.Denied {
			return false, false
		}
		masked = masked || m.Masked
	}
	return true, masked
}

// descendants are r's partitions and inheritance children, at any depth.
func (d *decision) descendants(r TableRef) []TableRef {
	var out []TableRef
	seen := map[TableRef]bool{r: true}
	queue := []TableRef{r}
	for len(queue) > 0 {
		next := queue[0]
		queue = queue[1:]
		for _, c := range d.children[next] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				queue = append(queue, c)
			}
		}
	}
	return out
}

// ancestors are the tables r is a partition or inheritance child of, at
// any depth.
func (d *decision) ancestors(r TableRef) []TableRef {
	var out []TableRef
	seen := map[TableRef]bool{r: true}
	queue := []TableRef{r}
	for len(queue) > 0 {
		next := queue[0]
		queue = queue[1:]
		t := d.rels[next]
		if t == nil {
			continue
		}
		for _, p := range t.Parents {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
				queue = append(queue, p)
			}
		}
	}
	return out
}
