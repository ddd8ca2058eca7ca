package sqlguard

import (
	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// recursion rejects a recursive CTE without an obvious bound. A bound is a
// condition in the recursive term (WHERE or JOIN … ON) comparing a column of
// the CTE with a constant (n < 10, depth <= 5, d + 1 < current_date), or an
// owning query that only reads the CTE through a constant LIMIT, so that
// PostgreSQL stops iterating once it has enough rows.
func (c *checker) recursion(cte *pg_query.CommonTableExpr, owner *pg_query.SelectStmt) {
	q := cte.GetCtequery().GetSelectStmt()
	name := cte.GetCtename()
	if q == nil || !mentionsRelation(q.ProtoReflect(), name) {
		return
	}
	if q.GetOp() == pg_query.SetOperation_SETOP_UNION && boundedTerm(q.GetRarg(), name) {
		return
	}
	if limitsCTE(owner, name) {
		return
	}
	c.report(reject(ClassUnbounded, "the recursive CTE %q has no bound: add a condition like depth < 10 on its column in the recursive part, or read it with SELECT … FROM %s LIMIT n", name, name))
}

// mentionsRelation reports whether an unqualified relation name occurs below m.
func mentionsRelation(m protoreflect.Message, name string) bool {
	return anyBelow(m, func(m protoreflect.Message) bool {
		rv, ok := m.Interface().(*pg_query.RangeVar)
		return ok && rv.GetSchemaname() == "" && rv.GetRelname() == name
	})
}

// boundedTerm looks for a bounding comparison among the top-level AND terms
// of the recursive term's WHERE and JOIN conditions. An OR or NOT could
// cancel a bound, so conditions under them do not count.
func boundedTerm(term *pg_query.SelectStmt, name string) bool {
	refs := map[string]bool{name: true}
	conds := []*pg_query.Node{term.GetWhereClause()}
	var from func(n *pg_query.Node)
	from = func(n *pg_query.Node) {
		switch v := n.GetNode().(type) {
		case *pg_query.Node_RangeVar:
			if v.RangeVar.GetSchemaname() == "" && v.RangeVar.GetRelname() == name && v.RangeVar.GetAlias() != nil {
				refs[v.RangeVar.GetAlias().GetAliasname()] = true
			}
		case *pg_query.Node_JoinExpr:
			conds = append(conds, v.JoinExpr.GetQuals())
			from(v.JoinExpr.GetLarg())
			from(v.JoinExpr.GetRarg())
		}
	}
	for _, n := range term.GetFromClause() {
		from(n)
	}
	for _, cond := range conds {
		for _, c := range conjuncts(cond) {
			if bounds(c, refs) {
				return true
			}
		}
	}
	return false
}

func conjuncts(n *pg_query.Node) []*pg_query.Node {
	if b := n.GetBoolExpr(); b != nil {
		if b.GetBoolop() != pg_query.BoolExprType_AND_EXPR {
			return nil
		}
		var out []*pg_query.Node
		for _, a := range b.GetArgs() {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	if n == nil {
		return nil
	}
	return []*pg_query.Node{n}
}

// bounds reports whether e compares an expression over a CTE column with a
// constant.
func bounds(n *pg_query.Node, refs map[string]bool) bool {
	e := n.GetAExpr()
	if e == nil {
		return false
	}
	switch e.GetKind() {
	case pg_query.A_Expr_Kind_AEXPR_OP:
		switch lastName(e.GetName()) {
		case "<", "<=", ">", ">=", "=":
			return (usesCTE(e.GetLexpr(), refs) && constant(e.GetRexpr())) ||
				(usesCTE(e.GetRexpr(), refs) && constant(e.GetLexpr()))
		}
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM:
		items := e.GetRexpr().GetList().GetItems()
		return usesCTE(e.GetLexpr(), refs) && len(items) == 2 && constant(items[0]) && constant(items[1])
	}
	return false
}

// usesCTE reports whether n contains a column reference that is unqualified
// or qualified by the CTE's name or alias.
func usesCTE(n *pg_query.Node, refs map[string]bool) bool {
	return n != nil && anyBelow(n.ProtoReflect(), func(m protoreflect.Message) bool {
		cr, ok := m.Interface().(*pg_query.ColumnRef)
		if !ok {
			return false
		}
		names := stringList(cr.GetFields())
		return len(names) == 1 || (len(names) == 2 && refs[names[0]])
	})
}

// constant reports whether n is a literal, now()/current_date, or arithmetic
// and casts over those.
func constant(n *pg_query.Node) bool {
	switch v := n.GetNode().(type) {
	case *pg_query.Node_AConst, *pg_query.Node_SqlvalueFunction:
		return true
	case *pg_query.Node_TypeCast:
		return constant(v.TypeCast.GetArg())
	case *pg_query.Node_AExpr:
		return (v.AExpr.GetLexpr() == nil || constant(v.AExpr.GetLexpr())) && constant(v.AExpr.GetRexpr())
	case *pg_query.Node_FuncCall:
		_, ok := timeCall(v.FuncCall)
		return ok
	}
	return false
}

// limitsCTE reports whether owner reads the CTE name and nothing else, with
// a constant LIMIT and nothing that must consume all rows first (ORDER BY,
// GROUP BY, DISTINCT, aggregates, window functions, subqueries, WHERE that
// might never match).
func limitsCTE(owner *pg_query.SelectStmt, name string) bool {
	limit := owner.GetLimitCount().GetAConst()
	from := owner.GetFromClause()
	if limit == nil || limit.GetIval() == nil || owner.GetOp() != pg_query.SetOperation_SETOP_NONE || len(from) != 1 {
		return false
	}
	rv := from[0].GetRangeVar()
	if rv == nil || rv.GetSchemaname() != "" || rv.GetRelname() != name {
		return false
	}
	if owner.GetWhereClause() != nil || owner.GetHavingClause() != nil || len(owner.GetGroupClause()) > 0 ||
		len(owner.GetSortClause()) > 0 || len(owner.GetDistinctClause()) > 0 || len(owner.GetWindowClause()) > 0 {
		return false
	}
	consumes := false
	for _, t := range owner.GetTargetList() {
		consumes = consumes || consumesInput(t.ProtoReflect())
	}
	return !consumes
}

// consumesInput reports whether m needs every input row before it yields
// one: a subquery, an aggregate or a window function.
func consumesInput(m protoreflect.Message) bool {
	return anyBelow(m, func(m protoreflect.Message) bool {
		switch n := m.Interface().(type) {
		case *pg_query.SubLink:
			return true
		case *pg_query.FuncCall:
			return n.GetAggStar() || n.GetOver() != nil || aggregates[lastName(n.GetFuncname())]
		}
		return false
	})
}
