package sqlguard

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A masked column may narrow, group, order and count a query, never come
// back from it, and an error's text is a way back: PostgreSQL quotes the
// value a cast or a parsing function fails on (`invalid input syntax for
// type integer: "ann@corp.test"`), and the generator reads that text on a
// retry. So a masked column (or a whole row of its table) may only reach
// places that cannot fail on any of its values: comparisons (=, <>, <, >,
// LIKE, ILIKE, SIMILAR TO, regular expressions, IN, BETWEEN, IS [NOT]
// DISTINCT FROM), IS NULL, a boolean context, GROUP BY, ORDER BY,
// DISTINCT, a window's PARTITION BY and count(…), possibly through maskSafeFunctions,
// casts to text types, ||, arithmetic, CASE, COALESCE, NULLIF, GREATEST,
// LEAST and COLLATE. Any other cast, function or operator over it is
// columns_not_allowed: the generator can compare the column as text
// instead.

// frame is one step of the walk's path: a message and the field (and list
// index) the walk went down.
type frame struct {
	msg   protoreflect.Message
	field protoreflect.Name
	index int
}

// maskSafeFunctions are the functions a masked value may pass through:
// they cannot fail on any value of their argument's type, so no error
// quotes it. The value is the argument position the masked value must
// take, -1 for any: date_trunc('month', d) is safe, date_trunc(d, …) would
// quote d as an unknown unit.
var maskSafeFunctions = map[string]int{
	"lower": -1, "upper": -1, "btrim": -1, "ltrim": -1, "rtrim": -1, "initcap": -1, "reverse": -1,
	"length": -1, "char_length": -1, "character_length": -1, "octet_length": -1, "md5": -1,
	"left": -1, "right": -1, "substr": -1, "substring": -1, "split_part": -1, "strpos": -1,
	"position": -1, "starts_with": -1, "replace": -1, "concat": -1, "concat_ws": -1,
	"min": -1, "max": -1, "abs": -1, "round": -1, "trunc": -1, "floor": -1, "ceil": -1,
	"ceiling": -1, "sign": -1,
	"similarity": -1, "word_similarity": -1, "strict_word_similarity": -1, // pg_trgm's
	"date_trunc": 1, "date_part": 1, "extract": 1,
}

// textTypes are the types any value may be cast to without an error: its
// output function cannot fail, and varchar(n) or char(n) cut it.
var textTypes = nameSet([]string{"text", "varchar", "bpchar"})

// comparisons compare a value without failing on it.
var comparisons = nameSet([]string{"=", "<>", "!=", "<", ">", "<=", ">=",
	"~~", "!~~", "~~*", "!~~*", "~", "~*", "!~", "!~*"})

// passOperators return a value computed from their operands that the walk
// follows further: their errors (overflow, division by zero) quote none.
var passOperators = nameSet([]string{"||", "+", "-", "*", "/", "%"})

// enter and leave keep the walk's path, needed only for masked columns.
func (c *checker) enter(m protoreflect.Message, field protoreflect.Name, index int) {
	if len(c.p.MaskedColumns) > 0 {
		c.path = append(c.path, frame{m, field, index})
	}
}

func (c *checker) leave() {
	if len(c.p.MaskedColumns) > 0 {
		c.path = c.path[:len(c.path)-1]
	}
}

// maskedPlace climbs the path from a column reference to the first place
// that settles its use: "" when the value is compared, grouped, ordered,
// counted or returned (which the select-list rule decides), else what it
// would pass through that may fail on it.
func (c *checker) maskedPlace() string {
	for i := len(c.path) - 1; i >= 0; i-- {
		f := c.path[i]
		switch n := f.msg.Interface().(type) {
		case *pg_query.Node, *pg_query.List, *pg_query.CoalesceExpr, *pg_query.MinMaxExpr,
			*pg_query.RowExpr, *pg_query.CollateClause, *pg_query.NamedArgExpr:
			continue // the value passes through unchanged
		case *pg_query.TypeCast:
			if what := castPlace(n.GetTypeName()); what != "" {
				return what
			}
		case *pg_query.FuncCall:
			if f.field == "agg_filter" {
				return ""
			}
			name := lastName(n.GetFuncname())
			if name == "count" {
				return ""
			}
			if pos, ok := maskSafeFunctions[name]; !ok || f.field != "args" || pos >= 0 && pos != f.index {
				return "the function " + name + "()"
			}
		case *pg_query.A_Expr:
			if what, settled := exprPlace(n); settled {
				return what
			}
		case *pg_query.CaseExpr:
			if f.field == "arg" {
				return "" // CASE x WHEN v compares x with v
			}
		case *pg_query.CaseWhen:
			if f.field == "expr" {
				return ""
			}
		case *pg_query.SelectStmt:
			switch f.field {
			case "where_clause", "having_clause", "group_clause", "distinct_clause":
				return ""
			}
			return "that clause"
		case *pg_query.NullTest, *pg_query.BooleanTest, *pg_query.BoolExpr, *pg_query.SortBy,
			*pg_query.GroupingSet, *pg_query.WindowDef, *pg_query.ResTarget, *pg_query.JoinExpr:
			return ""
		case *pg_query.SubLink:
			if f.field == "testexpr" {
				return "" // x IN (SELECT …), x = ANY (SELECT …)
			}
			return "that subquery"
		default:
			return "that expression"
		}
	}
	return ""
}

// castPlace is "" for a cast to a text type, else what the cast is.
func castPlace(t *pg_query.TypeName) string {
	name := lastName(t.GetNames())
	if len(t.GetArrayBounds()) > 0 {
		return "a cast to " + name + "[]"
	}
	if textTypes[name] {
		return ""
	}
	return "a cast to " + name
}

// exprPlace settles an operator expression: a comparison is a safe place
// (settled, ""), an arithmetic or || one is followed further (not
// settled), any other operator is not safe.
func exprPlace(e *pg_query.A_Expr) (what string, settled bool) {
	op := lastName(e.GetName())
	switch e.GetKind() {
	case pg_query.A_Expr_Kind_AEXPR_OP:
		switch {
		case comparisons[op]:
			return "", true
		case passOperators[op]:
			return "", false
		}
	case pg_query.A_Expr_Kind_AEXPR_OP_ANY, pg_query.A_Expr_Kind_AEXPR_OP_ALL:
		if comparisons[op] {
			return "", true
		}
	case pg_query.A_Expr_Kind_AEXPR_NULLIF:
		return "", false
	default: // IS DISTINCT FROM, IN, LIKE, ILIKE, SIMILAR TO, BETWEEN
		return "", true
	}
	return "the operator " + strings.TrimSpace(op), true
}
