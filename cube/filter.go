package cube

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// operators are the filter operators both Cube versions accept, in the
// order they are listed to the model. Cube's "in"/"notIn" are left out
// (equals/notEquals take several values) and so is its internal
// "measureFilter".
var operators = []string{
	"equals", "notEquals", "contains", "notContains", "startsWith", "notStartsWith",
	"endsWith", "notEndsWith", "gt", "gte", "lt", "lte", "set", "notSet",
	"inDateRange", "notInDateRange", "onTheDate", "beforeDate", "beforeOrOnDate",
	"afterDate", "afterOrOnDate",
}

// operatorAliases maps operators written as symbols or words, lower-cased
// and without spaces, underscores or hyphens, to Cube's names.
var operatorAliases = map[string]string{
	"=": "equals", "==": "equals", "eq": "equals", "equal": "equals", "is": "equals", "in": "equals",
	"!=": "notEquals", "<>": "notEquals", "ne": "notEquals", "neq": "notEquals", "notequal": "notEquals",
	"isnot": "notEquals", "notin": "notEquals",
	">": "gt", "greaterthan": "gt", ">=": "gte", "=>": "gte", "ge": "gte", "greaterthanorequal": "gte",
	"greaterthanorequals": "gte", "<": "lt", "lessthan": "lt", "<=": "lte", "=<": "lte", "le": "lte",
	"lessthanorequal": "lte", "lessthanorequals": "lte",
	"notnull": "set", "isnotnull": "set", "isset": "set", "null": "notSet", "isnull": "notSet",
	"before": "beforeDate", "after": "afterDate", "between": "inDateRange", "notbetween": "notInDateRange",
	"beginswith": "startsWith",
}

// dateOperators apply to time dimensions only.
var dateOperators = []string{"inDateRange", "notInDateRange", "onTheDate", "beforeDate", "beforeOrOnDate", "afterDate", "afterOrOnDate"}

// textOperators generate LIKE, which fails on numbers and booleans.
var textOperators = []string{"contains", "notContains", "startsWith", "notStartsWith", "endsWith", "notEndsWith"}

// timeComparisons turn comparisons on a time dimension into the date
// operators Cube expects there.
var timeComparisons = map[string]string{"gt": "afterDate", "gte": "afterOrOnDate", "lt": "beforeDate", "lte": "beforeOrOnDate"}

// numericTypes are the member types whose values are numbers: "number" in
// /meta of Cube 0.33 and 1.x, the measure types in other versions.
var numericTypes = []string{
	"number", "count", "count_distinct", "countDistinct", "count_distinct_approx",
	"countDistinctApprox", "sum", "avg", "min", "max", "running_total", "runningTotal",
}

// valueOperator is an operator written inside a value: ">=90", "< 5", "!=x".
var valueOperator = regexp.MustCompile(`^\s*(>=|<=|!=|<>|==|=>|=<|>|<|=)\s*(.*?)\s*$`)

// canonicalOperator returns Cube's name for op, "" for a missing operator,
// and false when op means nothing known.
func canonicalOperator(op string) (string, bool) {
	op = strings.TrimSpace(op)
	if op == "" {
		return "", true
	}
	key := strings.ToLower(strings.NewReplacer(" ", "", "_", "", "-", "").Replace(op))
	if alias, ok := operatorAliases[key]; ok {
		return alias, true
	}
	for _, known := range operators {
		if strings.ToLower(known) == key {
			return known, true
		}
	}
	return "", false
}

func isNumeric(m Member) bool { return slices.Contains(numericTypes, m.Type) }

// filters normalises the top-level filters, which Cube joins with AND.
func (n *normalizer) filters(fs []Filter) []Filter {
	var out []Filter
	for i, f := range fs {
		if nf, _, ok := n.filter(f, fmt.Sprintf("filters[%d]", i)); ok {
			out = append(out, nf)
		}
	}
	return out
}

// filter normalises one condition or group; kinds reports which member
// kinds it uses, since Cube cannot put measures (HAVING) and dimensions
// (WHERE) in one or/and group.
func (n *normalizer) filter(f Filter, where string) (Filter, []Kind, bool) {
	if len(f.Or) == 0 && len(f.And) == 0 {
		return n.condition(f, where)
	}
	if f.Member != "" || f.Operator != "" || len(f.Values) > 0 || (len(f.Or) > 0 && len(f.And) > 0) {
		n.problem("%s: a filter is either {member, operator, values} or one {or: [...]} or {and: [...]} group, not both", where)
		return Filter{}, nil, false
	}
	group, name := f.Or, "or"
	if len(f.And) > 0 {
		group, name = f.And, "and"
	}
	var children []Filter
	var kinds []Kind
	ok := true
	for i, child := range group {
		nf, ks, cok := n.filter(child, fmt.Sprintf("%s.%s[%d]", where, name, i))
		ok = ok && cok
		children = append(children, nf)
		for _, k := range ks {
			if !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
	}
	if len(kinds) > 1 {
		n.problem("%s: an %s group cannot mix measures and dimensions; use separate top-level filters", where, name)
		ok = false
	}
	if !ok {
		return Filter{}, nil, false
	}
	if name == "or" {
		return Filter{Or: children}, kinds, true
	}
	return Filter{And: children}, kinds, true
}

// condition normalises a {member, operator, values} filter.
func (n *normalizer) condition(f Filter, where string) (Filter, []Kind, bool) {
	if strings.TrimSpace(f.Member) == "" {
		n.problem("%s: the filter has no member", where)
		return Filter{}, nil, false
	}
	e, ok := n.resolve(f.Member, where, "filters", KindMeasure, KindDimension)
	if !ok {
		return Filter{}, nil, false
	}
	op, values, ok := n.operator(e, f, where)
	if !ok {
		return Filter{}, nil, false
	}
	values, ok = n.values(e, op, values, where)
	if !ok {
		return Filter{}, nil, false
	}
	return Filter{Member: e.Name, Operator: op, Values: values}, []Kind{e.kind}, true
}

// operator returns Cube's operator for f, taking it from the values when f
// has none, says equals, or says the same operator the values carry.
func (n *normalizer) operator(e entry, f Filter, where string) (string, []any, bool) {
	op, known := canonicalOperator(f.Operator)
	if !known {
		n.problem("%s: unknown operator '%s' on '%s'; use one of %s", where, f.Operator, e.Name, strings.Join(operators, ", "))
		return "", nil, false
	}
	values := slices.Clone(f.Values)
	if inner, stripped, ok := n.operatorInValues(e, values, where); !ok {
		return "", nil, false
	} else if inner != "" && (op == "" || op == "equals" || op == inner) {
		// {"operator": ">=", "values": [">=2018"]} says the same thing twice.
		op, values = inner, stripped
	}
	if op == "" {
		if len(values) == 0 {
			n.problem("%s: the filter on '%s' has no operator; use one of %s", where, e.Name, strings.Join(operators, ", "))
			return "", nil, false
		}
		op = "equals"
	}
	if e.Type == "time" {
		if dateOp, ok := timeComparisons[op]; ok {
			op = dateOp
		}
	}
	switch {
	case slices.Contains(dateOperators, op) && e.Type != "time":
		n.problem("%s: %s works on time dimensions only and '%s' is %s; use gt, gte, lt or lte", where, op, e.Name, article(e.Type))
		return "", nil, false
	case slices.Contains(textOperators, op) && (isNumeric(e.Member) || e.Type == "boolean" || e.Type == "time"):
		n.problem("%s: %s works on strings and '%s' is %s; use equals, notEquals, gt, gte, lt or lte", where, op, e.Name, article(e.Type))
		return "", nil, false
	}
	return op, values, true
}

// operatorInValues splits ">=90"-style values. It returns "" when no value
// carries an operator. Comparisons are split only for numeric and time
// members: for strings, "<b>" is more likely a value than an operator.
func (n *normalizer) operatorInValues(e entry, values []any, where string) (string, []any, bool) {
	ops := make([]string, 0, len(values))
	stripped := make([]any, len(values))
	for i, v := range values {
		stripped[i] = v
		s, isString := v.(string)
		m := valueOperator.FindStringSubmatch(s)
		if !isString || m == nil {
			continue
		}
		op, _ := canonicalOperator(m[1])
		if op != "equals" && op != "notEquals" && !isNumeric(e.Member) && e.Type != "time" {
			continue
		}
		ops = append(ops, op)
		stripped[i] = m[2]
	}
	switch {
	case len(ops) == 0:
		return "", values, true
	case len(ops) < len(values):
		n.problem("%s: only some values carry an operator; give the operator once, in operator", where)
		return "", nil, false
	case slices.ContainsFunc(ops, func(op string) bool { return op != ops[0] }):
		n.problem("%s: the values carry different operators; use one filter per operator", where)
		return "", nil, false
	}
	return ops[0], stripped, true
}

// values checks the number of values op takes and converts them to what
// the member holds: numbers for numeric members, strings otherwise.
func (n *normalizer) values(e entry, op string, values []any, where string) ([]any, bool) {
	ranged := op == "inDateRange" || op == "notInDateRange" || op == "onTheDate"
	switch {
	case op == "set" || op == "notSet":
		return nil, true
	case len(values) == 0:
		n.problem("%s: %s on '%s' needs at least one value", where, op, e.Name)
		return nil, false
	case ranged && len(values) == 1:
		values = []any{values[0], values[0]} // that whole day: Cube reads [from, to]
	case ranged && len(values) != 2:
		n.problem("%s: %s takes two dates [from, to]", where, op)
		return nil, false
	case len(values) > 1 && !ranged && op != "equals" && op != "notEquals" && !slices.Contains(textOperators, op):
		n.problem("%s: %s takes one value, got %d", where, op, len(values))
		return nil, false
	}
	if slices.Contains(dateOperators, op) {
		for _, v := range values {
			if s, ok := v.(string); !ok || !dateLike.MatchString(strings.TrimSpace(s)) {
				n.problem("%s: %s takes dates such as \"2018-01-31\", got %v; for a relative range such as \"last year\" use timeDimensions with a dateRange", where, op, v)
				return nil, false
			}
		}
	}
	out := make([]any, len(values))
	for i, v := range values {
		var err error
		switch {
		case isNumeric(e.Member):
			out[i], err = toNumber(v)
		case e.Type == "boolean":
			out[i], err = toBoolString(v)
		default:
			out[i], err = toText(v)
			if str, ok := out[i].(string); ok && e.Type == "time" {
				out[i] = strings.TrimSpace(str)
			}
		}
		if err != nil {
			n.problem("%s: '%s' is %s: %v", where, e.Name, article(e.Type), err)
			return nil, false
		}
	}
	return out, true
}

// toNumber converts a JSON number, a Go number or a numeric string to int64
// when integral, float64 otherwise.
func toNumber(v any) (any, error) {
	var s string
	switch x := v.(type) {
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case int64:
		return x, nil
	case float32:
		return numberOf(float64(x)), nil
	case float64:
		return numberOf(x), nil
	case json.Number:
		s = string(x)
	case string:
		s = strings.TrimSpace(x)
	default:
		return nil, fmt.Errorf("the value %v is not a number", v)
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("the value %q is not a number", s)
	}
	return numberOf(f), nil
}

// numberOf keeps integral floats as int64, so 90.0 is sent as 90.
func numberOf(f float64) any {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f)
	}
	return f
}

// toBoolString accepts the spellings of true and false and sends Cube the
// strings it compares booleans with.
func toBoolString(v any) (any, error) {
	switch strings.ToLower(strings.TrimSpace(fmt.Sprint(v))) {
	case "true", "t", "yes", "1":
		return "true", nil
	case "false", "f", "no", "0":
		return "false", nil
	}
	return nil, fmt.Errorf("the value %v is not true or false", v)
}

// toText turns a value into the string Cube compares a string or time
// member with.
func toText(v any) (any, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case nil:
		return nil, fmt.Errorf("a null value matches nothing; use set or notSet")
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case json.Number, int, int32, int64, bool:
		return fmt.Sprint(x), nil
	}
	return nil, fmt.Errorf("the value %v is not a string", v)
}

func article(typ string) string {
	switch typ {
	case "":
		return "untyped"
	case "number":
		return "a number"
	}
	if strings.ContainsRune("aeiou", rune(typ[0])) {
		return "an " + typ
	}
	return "a " + typ
}
