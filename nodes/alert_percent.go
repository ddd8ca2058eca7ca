package nodes

import (
	"cmp"
	"fmt"
	"math"
	"strconv"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// percentUnit decides, when an alert is made, how its limit written as a
// percentage ("when error_rate is above 5%") reads against the column the
// run will read: a column the answer shows in percent (answer's units:
// its name, share_pct, or the catalog's description) is compared as
// written (5); one whose values in the answer's result all lie within
// [-1, 1] (result, nil when not at hand) holds fractions and is compared with 0.05, which the condition's
// words then say ("above 5% (0.05 in error_rate)"). note says, for the
// confirmation, when the result could not tell (not at hand, or no number
// in it): the limit is then compared as written. Other conditions come
// back as they are.
func percentUnit(turn store.Turn, c schedule.Condition, result *warehouse.Result) (_ schedule.Condition, note string) {
	if c.Unit != schedule.UnitPercent || answer.NameUnit(c.Column).Suffix == "%" {
		return c, ""
	}
	subject := cmp.Or(c.Column, "the value")
	// The same condition on the fraction, in the words to ask for it.
	plain := c
	plain.Unit, plain.Threshold = schedule.UnitAsWritten, schedule.Hundredth(c.Threshold)
	asWritten := fmt.Sprintf("I couldn't see the answer's values, so I'll compare %s with %s as written; "+
		"if it holds fractions (0.05 for 5%%), ask for an alert “%s” instead.",
		subject, plainNumber(c.Threshold), plain.Describe())
	if result == nil {
		return c, asWritten
	}
	res := *result
	pick := numberColumn(res.Columns, c.Column)
	if pick < 0 {
		return c, asWritten
	}
	// A column the answer shows in percent (by its name, or the
	// catalog's description: "in percent from 0 to 100") holds them.
	shown := &answer.Answer{Result: &res}
	if a, err := answer.Unmarshal(turn.Reply); err == nil && len(turn.Reply) > 0 {
		shown.Units = a.Units
	}
	if shown.Table().Unit(pick).Suffix == "%" {
		return c, ""
	}
	switch fractions(res, pick) {
	case fractionsYes:
		c.Unit = schedule.UnitFraction
	case fractionsUnknown:
		return c, asWritten
	}
	return c, ""
}

// plainNumber writes a threshold as people type one: 5, 2.5, 0.025.
func plainNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// fractionsVerdict is what a column's values say about whether it holds
// fractions.
type fractionsVerdict int

const (
	fractionsUnknown fractionsVerdict = iota // no number to read
	fractionsYes                             // every number within [-1, 1]
	fractionsNo                              // a number beyond
)

// fractions reads column col of every row of res.
func fractions(res warehouse.Result, col int) fractionsVerdict {
	table := answer.NewTable(&res)
	verdict := fractionsUnknown
	for _, row := range res.Rows {
		v, ok := table.Number(row, col)
		if !ok || math.IsNaN(v) {
			continue
		}
		if math.Abs(v) > 1 {
			return fractionsNo
		}
		verdict = fractionsYes
	}
	return verdict
}
