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
// its columns may be qualified with (its alias, or its own name).
func (c *checker) tableRef(rv *pg_query.RangeVar, qualified string) {
	if qualified == "" || len(c.p.DeniedColumns)+len(c.p.MaskedColumns) == 0 {
		return
	}
	if c.reads == nil {
		c.reads = map[string][]string{}
	}
	names := []string{strings.ToLower(rv.GetRelname())}
	if a := rv.GetAlias().GetAliasname(); a != "" {
		names = []string{strings.ToLower(a)}
	}
	c.reads[qualified] = append(c.reads[qualified], names...)
}

// columnRef records a column reference: its last name, a star, or a
// whole-row reference to a table (a lone name).
func (c *checker) columnRef(cr *pg_query.ColumnRef) {
	if len(c.p.DeniedColumns)+len(c.p.MaskedColumns) == 0 {
		return
	}
	fields := cr.GetFields()
	if len(fields) == 0 {
		return
	}
	last := fields[len(fields)-1]
	if last.GetAStar() != nil {
		c.stars = true
		return
	}
	// A lone name is a column or a whole row ("customers", "c"): deniedColumn
	// checks it both ways.
	name := strings.ToLower(last.GetString_().GetSval())
	c.names = append(c.names, name)
	if c.inTarget > 0 && c.inCount == 0 {
		c.shown = append(c.shown, name)
	}
	if len(c.p.MaskedColumns) > 0 {
		c.maskedRef(name, len(fields) == 1)
	}
}

// usingColumns records the columns of a JOIN … USING (…).
func (c *checker) usingColumns(j *pg_query.JoinExpr) {
	if len(c.p.DeniedColumns)+len(c.p.MaskedColumns) == 0 {
		return
	}
	for _, n := range j.GetUsingClause() {
		c.names = append(c.names, strings.ToLower(n.GetString_().GetSval()))
	}
	if j.GetIsNatural() {
		c.stars = true // NATURAL JOIN joins on every column of the same name
	}
}

// deniedColumn returns the first access rejection of the statement's
// columns: a denied column named anywhere (ClassAccess; a column of that
// name in any other table read counts too, since names are not resolved
// to tables here: refusing is the safe side), or a star, NATURAL JOIN or
// whole row over a table with denied columns (ClassColumns, which names no
// column: the generator, which never saw them, can list the ones it may).
func (c *checker) deniedColumn() *Rejection {
	for _, dc := range c.p.DeniedColumns {
		table, col := splitColumn(dc)
		aliases, read := c.reads[table]
		if !read {
			continue
		}
		for _, n := range c.names {
			if n == col {
				return reject(ClassAccess, "you may not read the column %s", dc)
			}
			if slices.Contains(aliases, n) {
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
		for _, n := range c.shown {
			if n == col || slices.Contains(aliases, n) {
				return reject(ClassColumns, "%s may be filtered, grouped, ordered and counted by but never returned; leave it out of every select list (count(DISTINCT %s) is fine)", mc, col)
			}
		}
		if c.stars {
			return reject(ClassColumns, "%s has a column that may not be returned (%s); name the columns you need instead of *", table, mc)
		}
		for _, u := range c.misused {
			what := mc + " is masked"
			if u.name != col {
				what = "the whole row of " + table + " holds the masked " + mc
			}
			if u.name == col || slices.Contains(aliases, u.name) {
				return reject(ClassColumns, "%s: it may only be compared (=, LIKE, IN, BETWEEN, IS NULL, …), grouped, ordered or counted, "+
					"also through lower, upper, trim, length, substr, date_trunc or a cast to text, but not through %s, which can fail on its values; "+
					"compare it as text instead", what, u.what)
			}
		}
	}
	return nil
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
