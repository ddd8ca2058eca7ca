package sqlguard

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// The access rules of a caller's policy: relations that exist but are not
// theirs to read (Policy.Forbidden), and columns of readable relations that
// are not (Policy.DeniedColumns). A statement breaking them is rejected as
// ClassAccess, which is never retried: the answer is not the generator's to
// fix.

// forbiddenTable returns the qualified name of the forbidden relation a
// reference resolves to, or "": a qualified name is itself; an
// unqualified one is looked up through Policy.Schemas in order, as the
// search_path resolves it (the first schema with a relation of that name,
// readable or not, is the one read).
func (c *checker) forbiddenTable(schema, name string) string {
	if len(c.p.Forbidden) == 0 {
		return ""
	}
	if schema != "" {
		if slices.Contains(c.p.Forbidden, schema+"."+name) {
			return schema + "." + name
		}
		return ""
	}
	for _, s := range c.p.Schemas {
		q := s + "." + name
		if slices.Contains(c.p.Forbidden, q) {
			return q
		}
		if slices.Contains(c.p.Tables, q) {
			return ""
		}
	}
	return ""
}

// resolve is the qualified name a table reference reads, "" when it is not
// one of the policy's tables (a CTE, an unknown name).
func (c *checker) resolve(schema, name string) string {
	if schema != "" {
		return schema + "." + name
	}
	for _, s := range c.p.Schemas {
		if q := s + "." + name; slices.Contains(c.p.Tables, q) || slices.Contains(c.p.Forbidden, q) {
			return q
		}
	}
	return ""
}

// tableRef records a readable relation the statement reads and the names
// its columns may be qualified with: its alias (or its own name) and the
// aliases of the joins around it, whose whole rows hold its columns. A
// column alias list (AS c(i, n, e)), on it or on a join around it,
// renames its columns out of the reach of name checks: deniedColumn
// refuses one over a relation with denied or masked columns.
func (c *checker) tableRef(rv *pg_query.RangeVar, qualified string) {
	if qualified == "" || len(c.p.DeniedColumns)+len(c.p.MaskedColumns) == 0 {
		return
	}
	if c.reads == nil {
		c.reads, c.renamed = map[string][]string{}, map[string]bool{}
	}
	names := []string{strings.ToLower(rv.GetRelname())}
	if a := rv.GetAlias(); a.GetAliasname() != "" {
		names = []string{strings.ToLower(a.GetAliasname())}
		c.renamed[qualified] = c.renamed[qualified] || len(a.GetColnames()) > 0
	}
	for _, j := range c.joins {
		names = append(names, strings.ToLower(j.alias.GetAliasname()))
		c.renamed[qualified] = c.renamed[qualified] || len(j.alias.GetColnames()) > 0
	}
	c.reads[qualified] = append(c.reads[qualified], names...)
}

// colRef is a column reference, or a field taken from a row, as the
// access rules judge it.
type colRef struct {
	name string // the column's (or field's) name
	// qualifier is the name before it (c in c.email), "" when none: a
	// name that is not a column of the relation c names calls a function
	// on its whole row (c.to_json, c.record_out).
	qualifier string
	// of and field are qualifier and name as written, which scopes
	// match exactly (fields.go).
	of, field string
	lone      bool   // a lone name: a column or a relation's whole row
	shown     bool   // in a select list, outside count()
	misuse    string // a place a masked value may not reach (masked.go), or ""
	// scope is the SELECT it is written in, where its qualifier is looked
	// up (fields.go).
	scope *scope
}

// columnRef records a column reference: its last name, a star, or a
// whole-row reference to a relation (a lone name). A qualified name is
// also a selection (fields.go): a column of the relation, or a function
// called on its whole row.
func (c *checker) columnRef(cr *pg_query.ColumnRef) {
	fields := cr.GetFields()
	if len(fields) == 0 {
		return
	}
	last := fields[len(fields)-1]
	if last.GetAStar() != nil {
		c.stars = true
		return
	}
	r := colRef{name: strings.ToLower(last.GetString_().GetSval()), lone: len(fields) == 1, scope: c.scope}
	if len(fields) > 1 {
		r.of, r.field = fields[len(fields)-2].GetString_().GetSval(), last.GetString_().GetSval()
		r.qualifier = strings.ToLower(r.of)
		if len(fields) >= 3 {
			// schema.table.f: the table of that name used without an
			// alias, whatever else is named table.
			r.of = tableKey(c.resolve(fields[len(fields)-3].GetString_().GetSval(), r.of))
		}
		c.sels = append(c.sels, selection{name: r.field, of: r.of, scope: c.scope})
	}
	if len(c.p.DeniedColumns)+len(c.p.MaskedColumns) > 0 {
		c.addRef(r)
	}
}

func (c *checker) addRef(r colRef) {
	r.shown = c.inTarget > 0 && c.inCount == 0
	if r.scope == nil {
		r.scope = c.scope
	}
	if len(c.p.MaskedColumns) > 0 {
		r.misuse = c.maskedPlace()
	}
	c.refs = append(c.refs, r)
}

// usingColumns records the columns of a JOIN … USING (…).
func (c *checker) usingColumns(j *pg_query.JoinExpr) {
	if len(c.p.DeniedColumns)+len(c.p.MaskedColumns) == 0 {
		return
	}
	for _, n := range j.GetUsingClause() {
		c.refs = append(c.refs, colRef{name: strings.ToLower(n.GetString_().GetSval())})
	}
	if j.GetIsNatural() {
		c.stars = true // NATURAL JOIN joins on every column of the same name
	}
}

// wholeRow reports whether r reads the whole row of table, which its
// columns may be qualified with aliases: r is one of those names alone,
// or one of them qualifies a name that is a column of no relation that
// name denotes (a function called on the row; a join alias denotes each
// relation joined). When a relation's columns are unknown (no
// Policy.Columns, a function returning rows the guard cannot name, a
// derived table over one), the names of allowed functions and of the
// catalog's record functions count as calls.
func (c *checker) wholeRow(r colRef, table string, aliases []string) bool {
	if r.lone {
		return slices.Contains(aliases, r.name)
	}
	if r.qualifier == "" || !slices.Contains(aliases, r.qualifier) {
		return false
	}
	switch r.scope.columnOf(r.of, r.field, c.knownField) {
	case isColumn:
		return false
	case notColumn:
		return true
	}
	return allowed[r.name] || c.extra[r.name] || strings.HasPrefix(r.name, "record_") || r.name == "hstore"
}

// deniedColumn returns the first access rejection of the statement's
// columns: a denied column named anywhere (ClassAccess; a column of that
// name in any other table read counts too, since names are not resolved
// to tables here: refusing is the safe side), or a star, NATURAL JOIN,
// whole row or column alias list over a table with denied columns
// (ClassColumns, which names no column: the generator, which never saw
// them, can list the ones it may).
func (c *checker) deniedColumn() *Rejection {
	for _, dc := range c.p.DeniedColumns {
		table, col := splitColumn(dc)
		aliases, read := c.reads[table]
		if !read {
			continue
		}
		if c.renamed[table] {
			return renamedColumns(table)
		}
		for _, r := range c.refs {
			if r.name == col {
				return reject(ClassAccess, "you may not read the column %s", dc)
			}
			if c.wholeRow(r, table, aliases) {
				return reject(ClassColumns, "%s has columns outside your access; name the columns you need instead of the whole row", table)
			}
		}
		if c.stars {
			return reject(ClassColumns, "%s has columns outside your access; name the columns you need instead of *", table)
		}
	}
	for _, mc := range c.p.MaskedColumns {
		table, col := splitColumn(mc)
		aliases, read := c.reads[table]
		if !read {
			continue
		}
		if c.renamed[table] {
			return renamedColumns(table)
		}
		for _, r := range c.refs {
			if r.shown && (r.name == col || c.wholeRow(r, table, aliases)) {
				return reject(ClassColumns, "%s may be filtered, grouped, ordered and counted by but never returned; leave it out of every select list (count(DISTINCT %s) is fine)", mc, col)
			}
		}
		if c.stars {
			return reject(ClassColumns, "%s has a column that may not be returned (%s); name the columns you need instead of *", table, mc)
		}
		for _, r := range c.refs {
			if r.misuse == "" {
				continue
			}
			what := mc + " is masked"
			if r.name != col {
				what = "the whole row of " + table + " holds the masked " + mc
			}
			if r.name == col || c.wholeRow(r, table, aliases) {
				return reject(ClassColumns, "%s: it may only be compared (=, LIKE, IN, BETWEEN, IS NULL, …), grouped, ordered or counted, "+
					"also through lower, upper, trim, length, substr, date_trunc or a cast to text, but not through %s, which can fail on its values; "+
					"compare it as text instead", what, r.misuse)
			}
		}
	}
	return nil
}

// renamedColumns refuses a column alias list over a relation with denied
// or masked columns: which name then means which column depends on the
// table's column order, including columns the catalog does not show.
func renamedColumns(table string) *Rejection {
	return reject(ClassColumns, "%s has columns you may not read or see; do not rename its columns in FROM (AS alias(a, b, …)), name them in the select list instead (column AS name)", table)
}

// splitColumn splits "schema.table.column" into "schema.table" and
// "column".
func splitColumn(qualified string) (table, column string) {
	i := strings.LastIndexByte(qualified, '.')
	if i < 0 {
		return "", qualified
	}
	return qualified[:i], qualified[i+1:]
}
