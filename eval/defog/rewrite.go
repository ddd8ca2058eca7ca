package defog

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// qualifier moves the relations a parse tree names into one schema. Both
// the loader (dump statements) and the question conversion (gold queries)
// use it, so a table lands where the queries look for it.
type qualifier struct {
	// to is the schema relations move to.
	to string
	// from are the schemas the source database used (public, or
	// consumer_div for ewallet); names qualified with them move too.
	from []string
	// others collects the schemas of qualified names left alone.
	others []string
}

// qualify rewrites tree in place: every relation that is unqualified (and
// not a CTE in scope) or qualified with one of from is given schema to, and
// so is every type qualified with one of from. It returns the other schemas
// that qualified names used; those names are left alone.
func qualify(tree *pg_query.ParseResult, to string, from ...string) (others []string) {
	q := &qualifier{to: to, from: from}
	for _, st := range tree.GetStmts() {
		q.walk(st.ProtoReflect(), nil)
	}
	return q.others
}

// walk visits m and everything below it; ctes are the CTE names in scope.
func (q *qualifier) walk(m protoreflect.Message, ctes []string) {
	switch n := m.Interface().(type) {
	case *pg_query.RangeVar:
		q.relation(n, ctes)
		return
	case *pg_query.TypeName:
		if names := n.GetNames(); len(names) > 1 && slices.Contains(q.from, names[0].GetString_().GetSval()) {
			names[0] = pg_query.MakeStrNode(q.to)
		}
	}
	// A WITH clause's names are visible in the statement that owns it and,
	// with the clause's own rules, in its CTEs; nowhere else.
	// (A Node wrapping a bare WithClause has a field of that name too.)
	var skip protoreflect.FieldDescriptor
	if _, isNode := m.Interface().(*pg_query.Node); !isNode {
		skip = m.Descriptor().Fields().ByName("with_clause")
	}
	if skip != nil && m.Has(skip) {
		ctes = q.with(m.Get(skip).Message().Interface().(*pg_query.WithClause), ctes)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd == skip:
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			l := v.List()
			for i := range l.Len() {
				q.walk(l.Get(i).Message(), ctes)
			}
		case !fd.IsList() && !fd.IsMap() && fd.Kind() == protoreflect.MessageKind:
			q.walk(v.Message(), ctes)
		}
		return true
	})
}

// with walks the CTEs of wc as PostgreSQL scopes them (a CTE sees the ones
// before it, or all of them under RECURSIVE) and returns the names in scope
// for the statement that owns wc.
func (q *qualifier) with(wc *pg_query.WithClause, outer []string) []string {
	var names []string
	for _, c := range wc.GetCtes() {
		names = append(names, c.GetCommonTableExpr().GetCtename())
	}
	all := append(slices.Clip(outer), names...)
	for i, c := range wc.GetCtes() {
		scope := append(slices.Clip(outer), names[:i]...)
		if wc.GetRecursive() {
			scope = all
		}
		if body := c.GetCommonTableExpr().GetCtequery(); body != nil {
			q.walk(body.ProtoReflect(), scope)
		}
	}
	return all
}

// relation qualifies one relation name.
func (q *qualifier) relation(rv *pg_query.RangeVar, ctes []string) {
	switch s := rv.GetSchemaname(); {
	case rv.GetCatalogname() != "":
		q.others = append(q.others, rv.GetCatalogname()+"."+s)
	case s == "" && slices.Contains(ctes, rv.GetRelname()):
	case s == "" || slices.Contains(q.from, s):
		rv.Schemaname = q.to
	default:
		q.others = append(q.others, s)
	}
}
