package sqlguard

import (
	"math"
	"strconv"
	"strings"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// timeVal is a bound of a time series: seconds since the epoch, or since
// now when relative. slack widens the span for rounding the value could
// hide (date_trunc, a cast to date, a time zone).
type timeVal struct {
	relative bool
	seconds  float64
	slack    float64
}

// timeValue evaluates a series bound made of date/timestamp literals, now()
// or current_date, date_trunc, casts, and ± constant intervals or days.
func timeValue(n *pg_query.Node) (timeVal, bool) {
	switch v := n.GetNode().(type) {
	case *pg_query.Node_AConst:
		if s := v.AConst.GetSval(); s != nil {
			return parseTime(s.GetSval())
		}
	case *pg_query.Node_TypeCast:
		switch lastName(v.TypeCast.GetTypeName().GetNames()) {
		case "date":
			t, ok := timeValue(v.TypeCast.GetArg())
			t.slack += day
			return t, ok
		case "timestamp", "timestamptz":
			return timeValue(v.TypeCast.GetArg())
		}
	case *pg_query.Node_SqlvalueFunction:
		switch v.SqlvalueFunction.GetOp() {
		case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
			return timeVal{relative: true, slack: day}, true
		case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
			return timeVal{relative: true}, true
		case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
			// Local time differs from now() by the zone offset.
			return timeVal{relative: true, slack: day}, true
		}
	case *pg_query.Node_FuncCall:
		return timeCall(v.FuncCall)
	case *pg_query.Node_AExpr:
		return timeArithmetic(v.AExpr)
	}
	return timeVal{}, false
}

func timeCall(f *pg_query.FuncCall) (timeVal, bool) {
	args := f.GetArgs()
	switch name := lastName(f.GetFuncname()); {
	case len(args) == 0 && (name == "now" || name == "clock_timestamp" || name == "statement_timestamp" || name == "transaction_timestamp"):
		return timeVal{relative: true}, true
	case name == "date_trunc" && len(args) >= 2 && args[0].GetAConst().GetSval() != nil:
		unit, ok := timeUnits[strings.ToLower(args[0].GetAConst().GetSval().GetSval())]
		t, okT := timeValue(args[1])
		t.slack += unit
		return t, ok && okT
	case name == "date" && len(args) == 1:
		t, ok := timeValue(args[0])
		t.slack += day
		return t, ok
	case name == "make_date" && len(args) == 3:
		y, okY := number(args[0])
		m, okM := number(args[1])
		d, okD := number(args[2])
		t := time.Date(int(y), time.Month(m), int(d), 0, 0, 0, 0, time.UTC)
		return timeVal{seconds: float64(t.Unix())}, okY && okM && okD
	}
	return timeVal{}, false
}

// timeArithmetic evaluates time ± interval, interval + time and date ± days.
func timeArithmetic(e *pg_query.A_Expr) (timeVal, bool) {
	names := stringList(e.GetName())
	if len(names) != 1 || (names[0] != "+" && names[0] != "-") || e.GetLexpr() == nil {
		return timeVal{}, false
	}
	sign := 1.0
	if names[0] == "-" {
		sign = -1
	}
	if t, ok := timeValue(e.GetLexpr()); ok {
		if iv, ok := intervalValue(e.GetRexpr()); ok {
			t.seconds += sign * iv
			return t, true
		}
		if days, ok := number(e.GetRexpr()); ok {
			t.seconds += sign * days * day
			return t, true
		}
		return timeVal{}, false
	}
	if iv, ok := intervalValue(e.GetLexpr()); ok && sign > 0 {
		t, ok := timeValue(e.GetRexpr())
		t.seconds += iv
		return t, ok
	}
	return timeVal{}, false
}

// intervalValue evaluates a constant interval to its absolute length in
// seconds (a month is 30 days, a year 365.25).
func intervalValue(n *pg_query.Node) (float64, bool) {
	switch v := n.GetNode().(type) {
	case *pg_query.Node_AConst:
		if s := v.AConst.GetSval(); s != nil {
			return parseInterval(s.GetSval())
		}
	case *pg_query.Node_TypeCast:
		// interval '1' day carries its unit in a type modifier; not worth
		// decoding here.
		tn := v.TypeCast.GetTypeName()
		if lastName(tn.GetNames()) == "interval" && len(tn.GetTypmods()) == 0 {
			return intervalValue(v.TypeCast.GetArg())
		}
	case *pg_query.Node_AExpr:
		if names := stringList(v.AExpr.GetName()); len(names) == 1 && names[0] == "*" {
			if k, ok := number(v.AExpr.GetLexpr()); ok {
				iv, ok := intervalValue(v.AExpr.GetRexpr())
				return math.Abs(k) * iv, ok
			}
			if k, ok := number(v.AExpr.GetRexpr()); ok {
				iv, ok := intervalValue(v.AExpr.GetLexpr())
				return math.Abs(k) * iv, ok
			}
		}
	}
	return 0, false
}

// intervalUnits are PostgreSQL's interval units in seconds.
var intervalUnits = map[string]float64{
	"microsecond": 1e-6, "microseconds": 1e-6, "us": 1e-6, "usec": 1e-6, "usecs": 1e-6,
	"millisecond": 1e-3, "milliseconds": 1e-3, "ms": 1e-3, "msec": 1e-3, "msecs": 1e-3,
	"second": 1, "seconds": 1, "s": 1, "sec": 1, "secs": 1,
	"minute": 60, "minutes": 60, "m": 60, "min": 60, "mins": 60,
	"hour": 3600, "hours": 3600, "h": 3600, "hr": 3600, "hrs": 3600,
	"day": day, "days": day, "d": day,
	"week": 7 * day, "weeks": 7 * day, "w": 7 * day,
	"month": 30 * day, "months": 30 * day, "mon": 30 * day, "mons": 30 * day,
	"year": 365.25 * day, "years": 365.25 * day, "y": 365.25 * day, "yr": 365.25 * day, "yrs": 365.25 * day,
	"decade": 3652.5 * day, "decades": 3652.5 * day,
	"century": 36525 * day, "centuries": 36525 * day,
	"millennium": 365250 * day, "millennia": 365250 * day, "millenniums": 365250 * day,
}

// timeUnits are date_trunc's units: the most a truncation can move a time.
var timeUnits = func() map[string]float64 {
	m := map[string]float64{"quarter": 92 * day, "quarters": 92 * day}
	for k, v := range intervalUnits {
		m[k] = v
	}
	return m
}()

// parseInterval reads the common interval spellings: '1 month', '2 weeks 3
// days', '1day', '@ 1 hour ago', '01:30:00', a bare number of seconds.
func parseInterval(s string) (float64, bool) {
	fields := strings.Fields(strings.ToLower(s))
	total, seen := 0.0, false
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		switch {
		case f == "@" || f == "ago":
			continue
		case strings.Contains(f, ":"):
			secs, ok := clockSeconds(f)
			if !ok {
				return 0, false
			}
			total, seen = total+secs, true
			continue
		}
		num := strings.TrimRight(f, "abcdefghijklmnopqrstuvwxyz")
		unit := f[len(num):]
		k, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return 0, false
		}
		if unit == "" && i+1 < len(fields) {
			i++
			unit = fields[i]
		}
		size := 1.0
		if unit != "" {
			var ok bool
			if size, ok = intervalUnits[unit]; !ok {
				return 0, false
			}
		}
		total, seen = total+k*size, true
	}
	return math.Abs(total), seen
}

// clockSeconds reads hh:mm[:ss[.frac]].
func clockSeconds(s string) (float64, bool) {
	parts := strings.Split(strings.TrimLeft(s, "+-"), ":")
	if len(parts) > 3 {
		return 0, false
	}
	total := 0.0
	for i, scale := range []float64{3600, 60, 1}[:len(parts)] {
		v, err := strconv.ParseFloat(parts[i], 64)
		if err != nil {
			return 0, false
		}
		total += v * scale
	}
	return total, true
}

// timeLayouts are the literal spellings read as absolute times.
var timeLayouts = []string{
	"2006-01-02", "2006-01-02 15:04", "2006-01-02 15:04:05", "2006-01-02T15:04:05",
	"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05Z07:00",
	"2006-01-02T15:04:05Z07:00", "2006-01-02 15:04:05Z07", "2006-01-02T15:04:05Z07",
}

// parseTime reads a date or timestamp literal, or one of the special values
// now, today, tomorrow and yesterday. A trailing zone name is dropped at the
// cost of a day of slack.
func parseTime(s string) (timeVal, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "now":
		return timeVal{relative: true}, true
	case "today":
		return timeVal{relative: true, slack: day}, true
	case "tomorrow":
		return timeVal{relative: true, seconds: day, slack: day}, true
	case "yesterday":
		return timeVal{relative: true, seconds: -day, slack: day}, true
	}
	slack := 0.0
	for range 2 {
		for _, layout := range timeLayouts {
			if t, err := time.Parse(layout, s); err == nil {
				return timeVal{seconds: float64(t.Unix()), slack: slack}, true
			}
		}
		i := strings.LastIndexByte(s, ' ')
		if i < 0 {
			break
		}
		s, slack = s[:i], day
	}
	return timeVal{}, false
}
