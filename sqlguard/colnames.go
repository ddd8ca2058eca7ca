package sqlguard

import (
	"slices"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// The columns of relations that are no table: functions in FROM, derived
// tables, VALUES lists and CTEs, named as PostgreSQL names them
// (addRangeTableEntryForFunction, FigureColname), so that x.f over them is
// judged as PostgreSQL reads it: the column f, or f called on x's whole row.
// Over a function returning a scalar that whole row is the scalar itself,
// so g.current_setting over unnest(ARRAY['data_directory']) g reads a
// setting. Where the guard cannot say what PostgreSQL would name a column
// of a derived table or CTE, its columns are unknown, as before: its whole
// row is a record, which only record functions take; a function's row it
// cannot name has the fields the guard knows (relation.anyField).

// rowFunctions are the allowed functions in FROM whose rows have more
// than one column, or a named one (a single named OUT parameter names a
// scalar function's column): TestRowFunctionsAreTheCatalogs holds this
// list to pg_proc. unnest of a tsvector returns lexeme, positions and
// weights; of an array, one column named as a scalar's is.
var rowFunctions = map[string][]string{
	"json_each":                 {"key", "value"},
	"json_each_text":            {"key", "value"},
	"jsonb_each":                {"key", "value"},
	"jsonb_each_text":           {"key", "value"},
	"json_array_elements":       {"value"},
	"json_array_elements_text":  {"value"},
	"jsonb_array_elements":      {"value"},
	"jsonb_array_elements_text": {"value"},
}

// recordFunctions return rows whose columns a column definition list
// names (json_to_record(j) AS t(a int)) or the row type of an argument
// does (json_populate_record(NULL::t, j)): without the list, the guard
// does not know them.
var recordFunctions = nameSet([]string{
	"json_to_record", "json_to_recordset", "jsonb_to_record", "jsonb_to_recordset",
	"json_populate_record", "json_populate_recordset", "jsonb_populate_record", "jsonb_populate_recordset",
})

// functionRelation returns the columns of a function in FROM, named as
// PostgreSQL names them: a scalar function's column after the function,
// or after the alias when it is the only function (generate_series(1, 3)
// g has the column g); a row function's after its fields; then
// ordinality; the alias's column names replace the first of them. An
// expression in FROM that is no function call (CAST(… AS text) x,
// COALESCE(…)) is a scalar named as its select-list column would be.
// A function whose row the guard cannot name (a populated record, one
// of Policy.Functions or of another schema) has any field the guard
// knows (relation.anyField).
func (c *checker) functionRelation(f *pg_query.RangeFunction) relation {
	items := f.GetFunctions()
	alias := f.GetAlias().GetAliasname()
	var cols []string
	anyField := false
	for _, item := range items {
		parts := item.GetList().GetItems()
		if len(parts) == 0 {
			anyField = true
			continue
		}
		if defs := parts[len(parts)-1].GetList().GetItems(); len(parts) == 2 && len(defs) > 0 {
			cols = append(cols, columnDefNames(defs)...)
			continue
		}
		name, builtin := c.fromFunctionName(parts[0])
		scalar := name
		if len(items) == 1 && alias != "" {
			scalar = alias
		}
		nargs := len(parts[0].GetFuncCall().GetArgs())
		switch {
		case len(f.GetColdeflist()) > 0 && len(items) == 1:
			cols = append(cols, columnDefNames(f.GetColdeflist())...)
		case builtin && rowFunctions[name] != nil:
			cols = append(cols, rowFunctions[name]...)
		case builtin && name == "unnest":
			if nargs == 1 {
				cols = append(cols, scalar)
			}
			cols = append(cols, unnestColumns(nargs)...)
		case !builtin || recordFunctions[name]:
			anyField = true
			cols = append(cols, scalar)
		default:
			cols = append(cols, scalar)
		}
	}
	if f.GetOrdinality() {
		cols = append(cols, "ordinality")
	}
	r := named(cols, stringList(f.GetAlias().GetColnames()))
	r.anyField = anyField
	return r
}

// fromFunctionName returns the name of a function in FROM, as it names
// the relation without an alias, and whether it is a built-in function
// the guard names the columns of: a call of an allowed function,
// unqualified or in pg_catalog, or an expression (CAST, COALESCE),
// named as in a select list.
func (c *checker) fromFunctionName(n *pg_query.Node) (string, bool) {
	fc := n.GetFuncCall()
	if fc == nil {
		name, _ := c.figureColname(n)
		return name, true
	}
	names := stringList(fc.GetFuncname())
	if len(names) == 0 {
		return "", false
	}
	name := names[len(names)-1]
	return name, allowed[name] && (len(names) == 1 || len(names) == 2 && names[0] == "pg_catalog")
}

// cteRelation returns the columns a reference to cte reads: its
// query's, renamed by its own column names and then by the reference's
// alias's, with a SEARCH or CYCLE clause's columns after them.
func (c *checker) cteRelation(cte *pg_query.CommonTableExpr, alias []string) relation {
	r := c.renamedOutput(cte.GetCtequery().GetSelectStmt(), stringList(cte.GetAliascolnames()))
	if !r.known {
		return r
	}
	var extra []string
	if s := cte.GetSearchClause(); s != nil {
		extra = append(extra, s.GetSearchSeqColumn())
	}
	if cy := cte.GetCycleClause(); cy != nil {
		extra = append(extra, cy.GetCycleMarkColumn(), cy.GetCyclePathColumn())
	}
	r.cols = append(r.cols[:len(r.cols):len(r.cols)], extra...)
	if r.unordered {
		r.cols = append(r.cols, alias...)
		return r
	}
	return named(r.cols, alias)
}

// unnestColumns are the columns unnest has besides a scalar's: of a
// tsvector, lexeme, positions and weights (the guard does not know its
// argument's type, so it counts them too); of several arrays, one
// column each, all named unnest.
func unnestColumns(nargs int) []string {
	if nargs > 1 {
		return slices.Repeat([]string{"unnest"}, nargs)
	}
	return []string{"lexeme", "positions", "weights"}
}

// columnDefNames returns the names of a column definition list.
func columnDefNames(defs []*pg_query.Node) []string {
	out := make([]string, 0, len(defs))
	for _, d := range defs {
		out = append(out, d.GetColumnDef().GetColname())
	}
	return out
}

// named returns the relation of the columns cols, the first of them
// renamed by an alias's column names.
func named(cols, alias []string) relation {
	r := relation{known: true, cols: make([]string, max(len(cols), len(alias)))}
	for i := range r.cols {
		if i < len(alias) {
			r.cols[i] = alias[i]
		} else {
			r.cols[i] = cols[i]
		}
	}
	return r
}

// output records the columns s returns, once the walk of s (and of the
// SELECTs inside it) is done and its FROM names are in c.scope: a derived
// table or CTE over s has them.
func (c *checker) output(s *pg_query.SelectStmt) {
	if c.outputs == nil {
		c.outputs = map[*pg_query.SelectStmt]relation{}
	}
	c.outputs[s] = c.selectColumns(s)
}

// selectColumns returns the columns s returns: a set operation's are its
// first arm's, VALUES's are column1, column2, …, a select list's are its
// names, each as FigureColname names it, and a star's are the columns of
// the relations it stands for.
func (c *checker) selectColumns(s *pg_query.SelectStmt) relation {
	if s.GetOp() != pg_query.SetOperation_SETOP_NONE {
		return c.outputs[s.GetLarg()]
	}
	if v := s.GetValuesLists(); len(v) > 0 {
		cols := make([]string, len(v[0].GetList().GetItems()))
		for i := range cols {
			cols[i] = "column" + strconv.Itoa(i+1)
		}
		return named(cols, nil)
	}
	r := relation{known: true}
	for _, t := range s.GetTargetList() {
		rt := t.GetResTarget()
		if rt.GetName() != "" {
			r.cols = append(r.cols, rt.GetName())
			continue
		}
		if star, ok := c.star(rt.GetVal()); ok {
			if !star.known {
				return relation{}
			}
			r.cols, r.unordered = append(r.cols, star.cols...), true
			continue
		}
		name, strength := c.figureColname(rt.GetVal())
		switch strength {
		case nameUnknown:
			return relation{}
		case nameNone:
			name = "?column?"
		}
		r.cols = append(r.cols, name)
	}
	return r
}

// star returns the columns a star in a select list stands for (* or x.*),
// and whether n is one: every relation's of this SELECT's FROM, or x's.
// Their order is not kept (USING merges columns), so only a derived
// table's alias without column names may rely on them.
func (c *checker) star(n *pg_query.Node) (relation, bool) {
	fields := n.GetColumnRef().GetFields()
	if len(fields) == 0 || fields[len(fields)-1].GetAStar() == nil {
		if ind := n.GetAIndirection(); ind != nil {
			for _, p := range ind.GetIndirection() {
				if p.GetAStar() != nil {
					return relation{}, true // (v).*: a row's fields
				}
			}
		}
		return relation{}, false
	}
	var rels []relation
	switch {
	case len(fields) == 1 && c.scope != nil:
		for name, rs := range c.scope.rels {
			if !isTableKey(name) {
				rels = append(rels, rs...)
			}
		}
	case len(fields) == 2:
		rels, _ = c.scope.lookup(fields[0].GetString_().GetSval())
	}
	out := relation{known: len(rels) > 0, unordered: true}
	for _, r := range rels {
		out.known = out.known && r.known && !r.anyField
		out.cols = append(out.cols, r.cols...)
	}
	return out, true
}

// Strengths of a figured column name, as FigureColnameInternal ranks
// them, and nameUnknown where the guard does not follow PostgreSQL.
const (
	nameUnknown = -1
	nameNone    = 0 // ?column?
	nameWeak    = 1 // a cast's type, case
	nameStrong  = 2
)

// figureColname names a select-list expression as PostgreSQL's
// FigureColnameInternal does.
func (c *checker) figureColname(n *pg_query.Node) (string, int) {
	switch {
	case n == nil:
		return "", nameNone
	case n.GetColumnRef() != nil:
		if name := lastName(n.GetColumnRef().GetFields()); name != "" {
			return name, nameStrong
		}
	case n.GetAIndirection() != nil:
		if name := lastName(n.GetAIndirection().GetIndirection()); name != "" {
			return name, nameStrong
		}
		return c.figureColname(n.GetAIndirection().GetArg())
	case n.GetFuncCall() != nil:
		return lastName(n.GetFuncCall().GetFuncname()), nameStrong
	case n.GetAExpr() != nil:
		if n.GetAExpr().GetKind() == pg_query.A_Expr_Kind_AEXPR_NULLIF {
			return "nullif", nameStrong
		}
	case n.GetTypeCast() != nil:
		name, strength := c.figureColname(n.GetTypeCast().GetArg())
		if strength == nameUnknown || strength == nameStrong {
			return name, strength
		}
		if t := lastName(n.GetTypeCast().GetTypeName().GetNames()); t != "" {
			return t, nameWeak
		}
		return name, strength
	case n.GetCollateClause() != nil:
		return c.figureColname(n.GetCollateClause().GetArg())
	case n.GetGroupingFunc() != nil:
		return "grouping", nameStrong
	case n.GetSubLink() != nil:
		return c.subLinkName(n.GetSubLink())
	case n.GetCaseExpr() != nil:
		name, strength := c.figureColname(n.GetCaseExpr().GetDefresult())
		if strength == nameUnknown || strength == nameStrong {
			return name, strength
		}
		return "case", nameWeak
	case n.GetAArrayExpr() != nil:
		return "array", nameStrong
	case n.GetRowExpr() != nil:
		return "row", nameStrong
	case n.GetCoalesceExpr() != nil:
		return "coalesce", nameStrong
	case n.GetMinMaxExpr() != nil:
		if n.GetMinMaxExpr().GetOp() == pg_query.MinMaxOp_IS_LEAST {
			return "least", nameStrong
		}
		return "greatest", nameStrong
	case n.GetSqlvalueFunction() != nil:
		return valueFunctionName(n.GetSqlvalueFunction().GetOp())
	case n.GetAConst() != nil, n.GetBoolExpr() != nil, n.GetNullTest() != nil, n.GetBooleanTest() != nil,
		n.GetParamRef() != nil:
	default:
		// SQL/JSON constructors and other nodes whose names differ
		// between PostgreSQL versions.
		return "", nameUnknown
	}
	return "", nameNone
}

// subLinkName names a subquery in a select list: EXISTS and ARRAY
// (SELECT …) after their keyword, a scalar subquery after its first
// column, others not at all.
func (c *checker) subLinkName(s *pg_query.SubLink) (string, int) {
	switch s.GetSubLinkType() {
	case pg_query.SubLinkType_EXISTS_SUBLINK:
		return "exists", nameStrong
	case pg_query.SubLinkType_ARRAY_SUBLINK:
		return "array", nameStrong
	case pg_query.SubLinkType_EXPR_SUBLINK:
		sel := s.GetSubselect().GetSelectStmt()
		for sel.GetOp() != pg_query.SetOperation_SETOP_NONE {
			sel = sel.GetLarg()
		}
		if r, ok := c.outputs[sel]; ok && r.known && len(r.cols) > 0 && !r.unordered {
			return r.cols[0], nameStrong
		}
		return "", nameUnknown
	}
	return "", nameNone
}

// valueFunctionName names CURRENT_DATE and the other SQL value
// functions as FigureColnameInternal does.
func valueFunctionName(op pg_query.SQLValueFunctionOp) (string, int) {
	names := map[pg_query.SQLValueFunctionOp]string{
		pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:        "current_date",
		pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME:        "current_time",
		pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:      "current_time",
		pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP:   "current_timestamp",
		pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N: "current_timestamp",
		pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME:           "localtime",
		pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME_N:         "localtime",
		pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP:      "localtimestamp",
		pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:    "localtimestamp",
		pg_query.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:        "current_role",
		pg_query.SQLValueFunctionOp_SVFOP_CURRENT_USER:        "current_user",
		pg_query.SQLValueFunctionOp_SVFOP_USER:                "user",
		pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER:        "session_user",
		pg_query.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:     "current_catalog",
		pg_query.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:      "current_schema",
	}
	if name, ok := names[op]; ok {
		return name, nameStrong
	}
	return "", nameUnknown
}
