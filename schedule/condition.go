package schedule

import (
	"math"
	"strconv"
	"strings"
)

// ConditionKind is the test an alert applies to each run's result.
type ConditionKind string

// The kinds of condition. The zero kind ("") is a plain scheduled report:
// every run is sent.
const (
	// CondAbove holds when the value is greater than the threshold
	// ("above", "over", "more than", "greater than", "exceeds", ">").
	CondAbove ConditionKind = "above"
	// CondAtLeast holds when the value is the threshold or more ("at least",
	// ">=", "reaches", "hits").
	CondAtLeast ConditionKind = "at_least"
	// CondBelow holds when the value is less than the threshold ("below",
	// "under", "less than", "drops below", "falls below", "<").
	CondBelow ConditionKind = "below"
	// CondAtMost holds when the value is the threshold or less ("at most",
	// "no more than", "<=").
	CondAtMost ConditionKind = "at_most"
	// CondChange holds when the value moved from the previous run's by more
	// than Threshold percent of the previous value, in either direction
	// ("changes by more than 20%"); a move away from 0 counts as infinitely
	// large, and a Threshold of 0 means any change ("when it changes").
	CondChange ConditionKind = "change"
	// CondAnyRows holds when the result has at least one row ("when any row
	// appears", "if anything comes back", "when it is not empty").
	CondAnyRows ConditionKind = "any_rows"
	// CondNoRows holds when the result has no rows ("when it is empty",
	// "when there are no rows").
	CondNoRows ConditionKind = "no_rows"
)

// Condition is an alert's test of a run's result. The zero value means
// "always send" (a plain scheduled report).
type Condition struct {
	// Kind is the test; "" always holds.
	Kind ConditionKind
	// Threshold is the number the value is compared with, or for CondChange
	// the percentage it must move by. Words such as "1,000", "2.5k", "1.2m"
	// and "20%" are read as 1000, 2500, 1200000 and 20 (a limit's "20%"
	// with Unit UnitPercent).
	Threshold float64
	// Column is the result column the words name, lower case as written
	// ("when the count is above 100" gives "count"); empty when the words
	// name none ("when it is above 100"), and callers then use the first
	// numeric column.
	Column string
	// Unit says how a threshold written as a percentage ("above 5%")
	// reads against the column; "" for one written as a plain number.
	Unit ThresholdUnit
}

// ThresholdUnit says how a limit's threshold (above, at least, below, at
// most) is compared with the column's value.
type ThresholdUnit string

// The units of a threshold.
const (
	// UnitAsWritten compares a plain number as written ("above 100").
	UnitAsWritten ThresholdUnit = ""
	// UnitPercent is a percentage ("above 5%") compared as written: the
	// column holds percentages (5 for 5 %), or nothing said otherwise.
	// ParseRequest reads every percentage limit so.
	UnitPercent ThresholdUnit = "percent"
	// UnitFraction is a percentage compared as the fraction it is (5% as
	// 0.05): the column holds fractions, as error_rate = 0.0042 does. The
	// alert's maker decides it from the answer's values.
	UnitFraction ThresholdUnit = "fraction"
)

// limit is the number the value is compared with: the threshold, or its
// hundredth for a percentage compared as a fraction.
func (c Condition) limit() float64 {
	if c.Unit == UnitFraction {
		return Hundredth(c.Threshold)
	}
	return c.Threshold
}

// Hundredth is p percent as a fraction, worked out in decimal, so 1.1 %
// is 0.011, not the 0.011000000000000001 that p/100 gives, which a value
// of exactly 0.011 would not reach.
func Hundredth(p float64) float64 {
	f, err := strconv.ParseFloat(strconv.FormatFloat(p, 'f', -1, 64)+"e-2", 64)
	if err != nil {
		return p / 100
	}
	return f
}

// Check says whether the condition holds for a run. value is the run's
// number (nil when the result has none: then only the row conditions can
// hold), previous the last run's (nil on the first run: a change cannot hold
// yet), and rows the run's row count. A NaN value never holds.
func (c Condition) Check(value, previous *float64, rows int) bool {
	switch c.Kind {
	case "":
		return true
	case CondAnyRows:
		return rows > 0
	case CondNoRows:
		return rows == 0
	}
	if value == nil || math.IsNaN(*value) {
		return false
	}
	v, limit := *value, c.limit()
	switch c.Kind {
	case CondAbove:
		return v > limit
	case CondAtLeast:
		return v >= limit
	case CondBelow:
		return v < limit
	case CondAtMost:
		return v <= limit
	case CondChange:
		if previous == nil || math.IsNaN(*previous) {
			return false
		}
		p := *previous
		if p == 0 {
			return v != 0
		}
		return math.Abs(v-p)/math.Abs(p)*100 > c.Threshold
	}
	return false
}

// Describe says the condition in words: "when count is above 100", "when
// error_rate is above 5% (0.05 in error_rate)", "when the value changes by
// more than 20 %", "when any row appears". It is "" for the zero Condition.
func (c Condition) Describe() string {
	subject := c.Column
	if subject == "" {
		subject = "the value"
	}
	n := formatNumber(c.Threshold)
	switch c.Unit {
	case UnitPercent:
		n += "%"
	case UnitFraction:
		n += "% (" + formatNumber(c.limit()) + " in " + subject + ")"
	}
	switch c.Kind {
	case CondAbove:
		return "when " + subject + " is above " + n
	case CondAtLeast:
		return "when " + subject + " is at least " + n
	case CondBelow:
		return "when " + subject + " is below " + n
	case CondAtMost:
		return "when " + subject + " is at most " + n
	case CondChange:
		if c.Threshold == 0 {
			return "when " + subject + " changes"
		}
		return "when " + subject + " changes by more than " + formatNumber(c.Threshold) + " %"
	case CondAnyRows:
		return "when any row appears"
	case CondNoRows:
		return "when there are no rows"
	}
	return ""
}

// formatNumber writes a threshold for people: 1000 as "1,000", 2.5 as
// "2.5", -1200000 as "-1,200,000".
func formatNumber(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if hasFrac {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}
