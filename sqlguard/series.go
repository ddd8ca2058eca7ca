package sqlguard

import (
	"math"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// Bounds on generate_series, which can otherwise ask the server for billions
// of rows in a dozen characters.
const (
	maxSeriesRows = 100_000
	maxSeriesSpan = 100 * 365.25 * day // seconds: a century
	day           = 24 * 3600.0
)

// series rejects a generate_series call whose row count is unknown or too
// large.
func (c *checker) series(f *pg_query.FuncCall) {
	rows, span, ok := seriesRows(f)
	switch {
	case !ok:
		c.report(reject(ClassUnbounded, "give generate_series constant bounds (numbers, dates, or current_date ± an interval) and a non-zero constant step"))
	case rows > maxSeriesRows:
		c.report(reject(ClassUnbounded, "this generate_series yields about %.0f rows; the limit is %d, so narrow the range or widen the step", rows, maxSeriesRows))
	case span > maxSeriesSpan:
		c.report(reject(ClassUnbounded, "this generate_series spans more than 100 years; narrow the range"))
	}
}

// seriesProduct rejects generate_series calls that multiply: several in one
// FROM list (a cross join), or one in the select list over one in FROM.
func (c *checker) seriesProduct(s *pg_query.SelectStmt) {
	if rows, n := selectSeriesRows(s); n > 1 && rows > maxSeriesRows {
		c.report(reject(ClassUnbounded, "these generate_series calls multiply to about %.0f rows; the limit is %d, so join on a condition or use one series", rows, maxSeriesRows))
	}
}

// selectSeriesRows estimates the rows that series contribute to s and counts
// the series involved; tables count as one row, since only series are
// bounded here.
func selectSeriesRows(s *pg_query.SelectStmt) (float64, int) {
	if s.GetLarg() != nil && s.GetRarg() != nil {
		l, ln := selectSeriesRows(s.GetLarg())
		r, rn := selectSeriesRows(s.GetRarg())
		return l + r, ln + rn
	}
	rows, n := 1.0, 0
	for _, item := range s.GetFromClause() {
		r, k := fromSeriesRows(item)
		rows, n = rows*r, n+k
	}
	// Set-returning functions in the select list run in lockstep, so the
	// longest counts.
	longest := 0.0
	for _, t := range s.GetTargetList() {
		if f := seriesCall(t.GetResTarget().GetVal()); f != nil {
			if r, _, ok := seriesRows(f); ok {
				longest, n = max(longest, r), n+1
			}
		}
	}
	if longest > 0 {
		rows *= longest
	}
	return rows, n
}

func fromSeriesRows(item *pg_query.Node) (float64, int) {
	switch n := item.GetNode().(type) {
	case *pg_query.Node_JoinExpr:
		l, ln := fromSeriesRows(n.JoinExpr.GetLarg())
		r, rn := fromSeriesRows(n.JoinExpr.GetRarg())
		return l * r, ln + rn
	case *pg_query.Node_RangeSubselect:
		if sel := n.RangeSubselect.GetSubquery().GetSelectStmt(); sel != nil {
			return selectSeriesRows(sel)
		}
	case *pg_query.Node_RangeFunction:
		// ROWS FROM (f(), g()) zips its functions: the longest counts.
		longest, k := 0.0, 0
		for _, fn := range n.RangeFunction.GetFunctions() {
			items := fn.GetList().GetItems()
			if len(items) == 0 {
				continue
			}
			if f := seriesCall(items[0]); f != nil {
				if r, _, ok := seriesRows(f); ok {
					longest, k = max(longest, r), k+1
				}
			}
		}
		if k > 0 {
			return longest, k
		}
	}
	return 1, 0
}

// seriesCall returns n as a generate_series call, looking through a cast.
func seriesCall(n *pg_query.Node) *pg_query.FuncCall {
	if tc := n.GetTypeCast(); tc != nil {
		n = tc.GetArg()
	}
	f := n.GetFuncCall()
	if names := stringList(f.GetFuncname()); len(names) == 1 && names[0] == "generate_series" {
		return f
	}
	return nil
}

// seriesRows returns the number of rows and the span (in seconds, for time
// series) of generate_series(start, stop[, step]), when its arguments are
// constants or times relative to now.
func seriesRows(f *pg_query.FuncCall) (rows, span float64, ok bool) {
	args := f.GetArgs()
	if len(args) != 2 && len(args) != 3 {
		return 0, 0, false
	}
	start, ok1 := number(args[0])
	stop, ok2 := number(args[1])
	if ok1 && ok2 {
		step := 1.0
		if len(args) == 3 {
			if step, ok = number(args[2]); !ok {
				return 0, 0, false
			}
		}
		rows, ok = count(stop-start, step)
		return rows, 0, ok
	}
	if len(args) != 3 {
		return 0, 0, false
	}
	a, okA := timeValue(args[0])
	b, okB := timeValue(args[1])
	step, okS := intervalValue(args[2])
	if okS && math.Abs(step) >= day && (!okA || !okB) && !isLiteral(args[0]) && !isLiteral(args[1]) {
		// Bounds from the data, as in filling the month gaps of a report
		// (min(date) … max(date) by '1 month'): legitimate, and at a step
		// of a day or more a century of data is at most 36,525 rows. Data
		// spanning more (or an 'infinity' in it) is left to the statement
		// timeout and the row cap.
		return math.Floor(maxSeriesSpan/math.Abs(step)) + 1, maxSeriesSpan, true
	}
	if !okA || !okB || !okS || a.relative != b.relative {
		return 0, 0, false
	}
	span = math.Abs(b.seconds-a.seconds) + a.slack + b.slack
	rows, ok = count(span, step)
	return rows, span, ok
}

// isLiteral reports a constant, possibly cast ('infinity'::timestamp): a
// literal the guard could not read is no data-driven bound.
func isLiteral(n *pg_query.Node) bool {
	for n.GetTypeCast() != nil {
		n = n.GetTypeCast().GetArg()
	}
	return n.GetAConst() != nil
}

// count is the number of steps of size step that fit in length, plus one.
// The sign of the step does not matter here: a step pointing away from stop
// yields no rows, which is harmless.
func count(length, step float64) (float64, bool) {
	if step == 0 || math.IsNaN(length) || math.IsInf(length, 0) || math.IsNaN(step) || math.IsInf(step, 0) {
		return 0, false
	}
	return math.Floor(math.Abs(length/step)) + 1, true
}

// number evaluates a numeric constant, possibly negated or cast.
func number(n *pg_query.Node) (float64, bool) {
	switch v := n.GetNode().(type) {
	case *pg_query.Node_AConst:
		switch c := v.AConst.GetVal().(type) {
		case *pg_query.A_Const_Ival:
			return float64(c.Ival.GetIval()), true
		case *pg_query.A_Const_Fval:
			f, err := strconv.ParseFloat(c.Fval.GetFval(), 64)
			return f, err == nil
		}
	case *pg_query.Node_TypeCast:
		return number(v.TypeCast.GetArg())
	case *pg_query.Node_AExpr:
		e := v.AExpr
		if names := stringList(e.GetName()); e.GetLexpr() == nil && len(names) == 1 && names[0] == "-" {
			x, ok := number(e.GetRexpr())
			return -x, ok
		}
	}
	return 0, false
}
