package sqlguard

import (
	"cmp"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// Names taken from rows. In PostgreSQL x.f is the column f of the relation
// x or, when x has none, the function f called on x's whole row
// (c.to_json); (v).f is the field f of the row v or, when v has none, the
// function f called on v, whatever v is: (0.1).pg_sleep sleeps and
// (c).to_json is to_json(c). The walk records each such name (a
// selection) and the relations each name in FROM denotes; once the
// statement is walked, calls judges a name that is no column or field as
// the function call it is, against the allowlist as a FuncCall is.

// relation is what a name in FROM (an alias, a table's name, a join
// alias) denotes: a table, whose columns are known when Policy.Columns has
// them, or a derived table, VALUES list, CTE or function, whose columns
// are known when the guard names them as PostgreSQL does (colnames.go).
type relation struct {
	cols  []string // as PostgreSQL names them: matched exactly
	known bool
	// unordered says cols are not in the relation's order (a star's, a
	// table's with its alias's column names added), so a column alias
	// list adds its names rather than replacing the first ones.
	unordered bool
	// anyField marks a function's row the guard cannot name (a
	// populated record, a function of Policy.Functions): known, its
	// columns are cols and any field the guard knows (knownField), and no
	// other name, so f in x.f is judged as a call as over another known
	// relation.
	anyField bool
}

// selection is a name taken from a row, as written (matched exactly, as
// PostgreSQL matches a column's or a function's name): of names the
// relation (x in x.f or (x).f); value says the name may be taken from a
// value instead, as in (v).f or (x).f where x may be a column.
type selection struct {
	name, of string
	value    bool
	scope    *scope // the SELECT it is written in
}

// scope is what the names in one SELECT's FROM denote; its parent is the
// SELECT it is nested in (a subquery, a derived table's, a CTE's), whose
// names it sees unless its own hide them. x in x.f is looked up in the
// innermost scope that has it, as PostgreSQL looks it up: an alias a
// subquery reuses for a table denotes that table there, whatever it
// denotes elsewhere.
type scope struct {
	rels   map[string][]relation
	parent *scope
}

// before returns what a LATERAL subquery or a function's arguments see
// while FROM is being read: the FROM items before them (those of the
// joins they are in and of their SELECT, copied now, an inner name
// hiding an outer one), then the SELECTs around. Names are looked up once
// the statement is walked, when the items after them are known too.
func (c *checker) before() *scope {
	out := &scope{parent: c.selParent}
	for sc := c.scope; sc != nil; sc = sc.parent {
		for name, rs := range sc.rels {
			if _, seen := out.rels[name]; !seen {
				for _, r := range rs {
					out.add(name, r)
				}
			}
		}
		if sc == c.selScope {
			break
		}
	}
	return out
}

// tableKey is the name a scope knows a table used without an alias by in
// schema.table.column ("schema.table"), which no alias can take.
func tableKey(qualified string) string { return "\x00" + qualified }

func isTableKey(name string) bool { return strings.HasPrefix(name, "\x00") }

// lookup returns the relations the name x denotes where sc is, and
// whether any scope has it. Names are matched as PostgreSQL matches them,
// exactly: the parser has folded unquoted ones to lower case, and a
// quoted "E" is not e.
func (sc *scope) lookup(x string) ([]relation, bool) {
	for ; sc != nil; sc = sc.parent {
		if rels, ok := sc.rels[x]; ok {
			return rels, true
		}
	}
	return nil, false
}

// column is what columnOf knows of a name.
type column int

const (
	unknownColumn column = iota
	isColumn
	notColumn
)

// joinFrame is an aliased join the walk is in: the relations inside it
// are named in a scope of its own, seen only within the join (its ON
// clauses), and the alias in the scope around it (outer) denotes them all.
type joinFrame struct {
	alias *pg_query.Alias
	outer *scope
	// rels are what the alias denotes, added to outer once the join is
	// walked: PostgreSQL names the join only then, so a LATERAL item or
	// function inside it does not see its alias.
	rels []relation
}

// fromItem records that name (in FROM) denotes r, as do the aliases of the
// joins around it, each in the scope around its join.
func (c *checker) fromItem(name string, r relation) {
	if c.scope == nil {
		c.scope = &scope{}
	}
	c.scope.add(name, r)
	for _, j := range c.joins {
		j.rels = append(j.rels, r)
	}
}

func (sc *scope) add(name string, r relation) {
	if sc.rels == nil {
		sc.rels = map[string][]relation{}
	}
	sc.rels[name] = append(sc.rels[name], r)
}

// joinColumns records the columns a join alias's column alias list names
// (AS j(x, y)): the join's and those of the joins around it. They are
// added to the columns of the relations joined, which the guard does not
// know the order of; a renamed column's old name is still taken for a
// column.
func (c *checker) joinColumns(a *pg_query.Alias) {
	if len(a.GetColnames()) == 0 {
		return
	}
	r := relation{known: true, cols: stringList(a.GetColnames())}
	for _, j := range c.joins {
		j.rels = append(j.rels, r)
	}
}

// rangeVar records the relation a table reference reads: a column alias
// list (AS a(i, n)) adds its names to the table's columns (the catalog
// leaves out columns the reader may not see, so the guard cannot tell
// which ones the list renames). A CTE's name reads the CTE.
func (c *checker) rangeVar(rv *pg_query.RangeVar) {
	name := cmp.Or(rv.GetAlias().GetAliasname(), rv.GetRelname())
	if cte := c.cte(rv.GetRelname()); rv.GetSchemaname() == "" && cte != nil {
		c.fromItem(name, c.cteRelation(cte, stringList(rv.GetAlias().GetColnames())))
		return
	}
	r := relation{}
	if cols, ok := c.p.Columns[c.resolve(rv.GetSchemaname(), rv.GetRelname())]; ok {
		r = relation{known: true, unordered: true, cols: slices.Clone(cols)}
		r.cols = append(r.cols, stringList(rv.GetAlias().GetColnames())...)
	}
	c.fromItem(name, r)
	if rv.GetAlias() == nil {
		c.scope.add(tableKey(cmp.Or(c.resolve(rv.GetSchemaname(), rv.GetRelname()), rv.GetSchemaname()+"."+rv.GetRelname())), r)
	}
}

// rangeFunction records a function in FROM: named by its alias, or
// without one by its (first) function's name.
func (c *checker) rangeFunction(f *pg_query.RangeFunction) {
	r := c.functionRelation(f)
	if a := f.GetAlias().GetAliasname(); a != "" {
		c.fromItem(a, r)
		return
	}
	for _, item := range f.GetFunctions() {
		if parts := item.GetList().GetItems(); len(parts) > 0 {
			if name, _ := c.fromFunctionName(parts[0]); name != "" {
				c.fromItem(name, r)
			}
		}
		break // ROWS FROM (f(), g()) is named f
	}
}

// derived records a derived table (a subquery or VALUES list in FROM),
// once walked, under its alias: its columns are its SELECT's, the first
// renamed by the alias's column names.
func (c *checker) derived(rs *pg_query.RangeSubselect) {
	a := rs.GetAlias()
	if a.GetAliasname() == "" {
		return
	}
	c.fromItem(a.GetAliasname(), c.renamedOutput(rs.GetSubquery().GetSelectStmt(), stringList(a.GetColnames())))
}

// renamedOutput returns the columns sel returns, the first renamed by
// alias (a derived table's or CTE's column names): unknown when sel is
// not walked yet (a recursive CTE's own name in its body).
func (c *checker) renamedOutput(sel *pg_query.SelectStmt, alias []string) relation {
	r, ok := c.outputs[sel]
	switch {
	case !ok || !r.known:
		return relation{}
	case r.unordered:
		r.cols = append(r.cols[:len(r.cols):len(r.cols)], alias...)
		return r
	}
	return named(r.cols, alias)
}

// columnOf says whether name is a column of a relation that the name x
// denotes where sc is: it is when it is one of any (a join alias's column
// may be any joined relation's), it is not when every relation's columns
// are known and none has it. field says whether a name is a field the
// guard knows, which a row of anyField may have.
func (sc *scope) columnOf(x, name string, field func(string) bool) column {
	rels, _ := sc.lookup(x)
	if len(rels) == 0 {
		return unknownColumn
	}
	out := notColumn
	for _, r := range rels {
		switch {
		case slices.Contains(r.cols, name), r.anyField && field(name):
			return isColumn
		case !r.known:
			out = unknownColumn
		}
	}
	return out
}

// maybeColumn reports whether the lone name x may be a column where sc
// is, which PostgreSQL prefers to a relation of that name: x names no
// relation, or some relation it sees has a column x, or some relation's
// columns are unknown (or, anyField, x is a field the guard knows).
func (sc *scope) maybeColumn(x string, field func(string) bool) bool {
	if _, ok := sc.lookup(x); !ok {
		return true
	}
	for ; sc != nil; sc = sc.parent {
		for _, rels := range sc.rels {
			for _, r := range rels {
				if !r.known || slices.Contains(r.cols, x) || r.anyField && field(x) {
					return true
				}
			}
		}
	}
	return false
}

// indirection records the names (v).f.g takes: f from the row of x when
// v is a lone name x (as x.f), and from a value otherwise; g and any name
// after a subscript from a value. It reports whether v was a lone name,
// which walk then leaves unwalked: (c).name reads c's column name, not
// c's whole row.
func (c *checker) indirection(ind *pg_query.A_Indirection) bool {
	x, path := "", ind.GetIndirection()
	if f := ind.GetArg().GetColumnRef().GetFields(); len(f) == 1 && f[0].GetString_() != nil && len(path) > 0 && path[0].GetString_() != nil {
		x = f[0].GetString_().GetSval()
	}
	for i, p := range path {
		s := p.GetString_()
		if s == nil {
			continue
		}
		name := strings.ToLower(s.GetSval())
		if i > 0 || x == "" {
			c.sels = append(c.sels, selection{name: s.GetSval(), value: true, scope: c.scope})
			if len(c.p.DeniedColumns)+len(c.p.MaskedColumns) > 0 {
				c.addRef(colRef{name: name})
			}
			continue
		}
		c.sels = append(c.sels, selection{name: s.GetSval(), of: x, value: true, scope: c.scope})
		if len(c.p.DeniedColumns)+len(c.p.MaskedColumns) == 0 {
			continue
		}
		// x is a column, whose value f is called on, or a relation
		// whose column (or whole row) f is.
		c.addRef(colRef{name: strings.ToLower(x)})
		if pos, ok := maskSafeFunctions[name]; len(c.p.MaskedColumns) > 0 && (!ok || pos > 0) {
			c.refs[len(c.refs)-1].misuse = "the function " + name + "()"
		}
		r := colRef{name: name, qualifier: strings.ToLower(x), of: x, field: s.GetSval(), scope: c.scope}
		r.shown = c.inTarget > 0 && c.inCount == 0
		if len(c.p.MaskedColumns) > 0 {
			r.misuse = c.maskedPlace()
			if len(path) > 1 {
				r.misuse = "that expression" // (x).f.g calls g(f) unless g is a field
			}
		}
		c.refs = append(c.refs, r)
	}
	return x != ""
}

// calls judges each selection that is no column or field as the call it
// is: a dangerous function is unsafe, as pg_sleep(1) is, any other must be
// allowed. A name taken from a relation's row is a call when it is no
// column of any relation that name denotes (with unknown columns, only a
// function taking a whole row could be called, and the access rules
// judge that row). A name taken from a value is a call unless it is a
// field the guard knows of: a column of a relation in Policy.Columns, or
// json_each's key and value.
func (c *checker) calls() {
	for _, s := range c.sels {
		// A function the guard refuses outright (pg_sleep, an advisory
		// lock, pg_terminate_backend) is refused in field position
		// whatever else the name may be: a column so named costs little
		// to rename, and where the guard names a relation's columns
		// wrongly, g.pg_sleep would sleep.
		if class, reason := deniedFunction(s.name, 1); class != "" {
			c.report(reject(class, "%s", reason))
			return
		}
		call := s.of != "" && s.scope.columnOf(s.of, s.name, c.knownField) == notColumn
		if s.value && (s.of == "" || s.scope.maybeColumn(s.of, c.knownField)) && !c.knownField(s.name) {
			call = true
		}
		if !call {
			continue
		}
		if !allowed[s.name] && !c.extra[s.name] {
			c.report(reject(ClassFunction, "%s() is not an allowed function, and .%s calls it unless it names a column or field; "+
				"write table.column for a column, or use standard aggregate, window, math, string, date/time, array or JSON functions", s.name, s.name))
		}
	}
}

// knownField reports whether name is a field a row value may have: a
// column of a relation in Policy.Columns, or the key or value of a
// json_each or jsonb_each row. No function is named key or value. The
// columns' names are gathered once per statement, on the first question:
// a warehouse may have thousands.
func (c *checker) knownField(name string) bool {
	if c.fields == nil {
		c.fields = map[string]bool{"key": true, "value": true}
		for _, cols := range c.p.Columns {
			for _, col := range cols {
				c.fields[strings.ToLower(col)] = true
			}
		}
	}
	return c.fields[strings.ToLower(name)]
}
