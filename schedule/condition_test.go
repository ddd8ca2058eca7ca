package schedule

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// num makes a *float64 for a table.
func num(f float64) *float64 { return &f }

func TestConditionCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		cond            Condition
		value, previous *float64
		rows            int
		want            bool
	}{
		{name: "zero always sends", cond: Condition{}, want: true},
		{name: "zero sends an empty result", cond: Condition{}, value: nil, rows: 0, want: true},
		{name: "above over", cond: Condition{Kind: CondAbove, Threshold: 100}, value: num(101), rows: 1, want: true},
		{name: "above at the boundary", cond: Condition{Kind: CondAbove, Threshold: 100}, value: num(100), rows: 1, want: false},
		{name: "above without a value", cond: Condition{Kind: CondAbove, Threshold: 100}, rows: 3, want: false},
		{name: "above NaN", cond: Condition{Kind: CondAbove, Threshold: 100}, value: num(math.NaN()), rows: 1, want: false},
		{name: "at least at the boundary", cond: Condition{Kind: CondAtLeast, Threshold: 100}, value: num(100), rows: 1, want: true},
		{name: "at least under", cond: Condition{Kind: CondAtLeast, Threshold: 100}, value: num(99.99), rows: 1, want: false},
		{name: "below under", cond: Condition{Kind: CondBelow, Threshold: 5}, value: num(4), rows: 1, want: true},
		{name: "below at the boundary", cond: Condition{Kind: CondBelow, Threshold: 5}, value: num(5), rows: 1, want: false},
		{name: "below a negative threshold", cond: Condition{Kind: CondBelow, Threshold: -10}, value: num(-11), rows: 1, want: true},
		{name: "at most at the boundary", cond: Condition{Kind: CondAtMost, Threshold: 5}, value: num(5), rows: 1, want: true},
		{name: "at most over", cond: Condition{Kind: CondAtMost, Threshold: 5}, value: num(5.01), rows: 1, want: false},
		{name: "change on the first run", cond: Condition{Kind: CondChange, Threshold: 20}, value: num(200), rows: 1, want: false},
		{name: "change over the threshold", cond: Condition{Kind: CondChange, Threshold: 20}, value: num(121), previous: num(100), rows: 1, want: true},
		{name: "change at the threshold", cond: Condition{Kind: CondChange, Threshold: 20}, value: num(120), previous: num(100), rows: 1, want: false},
		{name: "change downwards", cond: Condition{Kind: CondChange, Threshold: 20}, value: num(70), previous: num(100), rows: 1, want: true},
		{name: "change from zero", cond: Condition{Kind: CondChange, Threshold: 1000}, value: num(0.5), previous: num(0), rows: 1, want: true},
		{name: "zero to zero", cond: Condition{Kind: CondChange, Threshold: 20}, value: num(0), previous: num(0), rows: 1, want: false},
		{name: "change of negative values", cond: Condition{Kind: CondChange, Threshold: 20}, value: num(-130), previous: num(-100), rows: 1, want: true},
		{name: "small change of negative values", cond: Condition{Kind: CondChange, Threshold: 20}, value: num(-90), previous: num(-100), rows: 1, want: false},
		{name: "sign flip", cond: Condition{Kind: CondChange, Threshold: 150}, value: num(60), previous: num(-100), rows: 1, want: true},
		{name: "any change", cond: Condition{Kind: CondChange}, value: num(100.5), previous: num(100), rows: 1, want: true},
		{name: "no change", cond: Condition{Kind: CondChange}, value: num(100), previous: num(100), rows: 1, want: false},
		{name: "change without a value", cond: Condition{Kind: CondChange, Threshold: 20}, previous: num(100), rows: 1, want: false},
		{name: "any rows with rows", cond: Condition{Kind: CondAnyRows}, rows: 1, want: true},
		{name: "any rows with none", cond: Condition{Kind: CondAnyRows}, rows: 0, want: false},
		{name: "no rows with none", cond: Condition{Kind: CondNoRows}, rows: 0, want: true},
		{name: "no rows with rows", cond: Condition{Kind: CondNoRows}, value: num(0), rows: 2, want: false},
		{name: "a percent as written", cond: Condition{Kind: CondAbove, Threshold: 5, Unit: UnitPercent}, value: num(6), rows: 1, want: true},
		{name: "a percent of a fraction column over", cond: Condition{Kind: CondAbove, Threshold: 5, Unit: UnitFraction}, value: num(0.06), rows: 1, want: true},
		{name: "a percent of a fraction column under", cond: Condition{Kind: CondAbove, Threshold: 5, Unit: UnitFraction}, value: num(0.0042), rows: 1, want: false},
		{name: "below a percent of a fraction column", cond: Condition{Kind: CondBelow, Threshold: 2.5, Unit: UnitFraction}, value: num(0.02), rows: 1, want: true},
		{name: "unknown kind", cond: Condition{Kind: "between"}, value: num(1), rows: 1, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.cond.Check(tt.value, tt.previous, tt.rows); got != tt.want {
				t.Errorf("%+v.Check: got %v, want %v", tt.cond, got, tt.want)
			}
		})
	}
}

func TestConditionDescribe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cond Condition
		want string
	}{
		{name: "zero", cond: Condition{}, want: ""},
		{name: "above", cond: Condition{Kind: CondAbove, Threshold: 100, Column: "count"}, want: "when count is above 100"},
		{name: "at least", cond: Condition{Kind: CondAtLeast, Threshold: 1000, Column: "signups"}, want: "when signups is at least 1,000"},
		{name: "below", cond: Condition{Kind: CondBelow, Threshold: 5000, Column: "revenue"}, want: "when revenue is below 5,000"},
		{name: "at most, no column", cond: Condition{Kind: CondAtMost, Threshold: 2.5}, want: "when the value is at most 2.5"},
		{name: "negative", cond: Condition{Kind: CondBelow, Threshold: -1200000}, want: "when the value is below -1,200,000"},
		{name: "a percent", cond: Condition{Kind: CondAbove, Threshold: 5, Column: "error_pct", Unit: UnitPercent}, want: "when error_pct is above 5%"},
		{name: "a percent of a fraction column", cond: Condition{Kind: CondAbove, Threshold: 5, Column: "error_rate", Unit: UnitFraction}, want: "when error_rate is above 5% (0.05 in error_rate)"},
		{name: "a percent of the value as a fraction", cond: Condition{Kind: CondAtMost, Threshold: 2.5, Unit: UnitFraction}, want: "when the value is at most 2.5% (0.025 in the value)"},
		{name: "change", cond: Condition{Kind: CondChange, Threshold: 20}, want: "when the value changes by more than 20 %"},
		{name: "any change", cond: Condition{Kind: CondChange, Column: "price"}, want: "when price changes"},
		{name: "any rows", cond: Condition{Kind: CondAnyRows}, want: "when any row appears"},
		{name: "no rows", cond: Condition{Kind: CondNoRows}, want: "when there are no rows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.cond.Describe(); got != tt.want {
				t.Errorf("%+v.Describe(): got %q, want %q", tt.cond, got, tt.want)
			}
		})
	}
}

// A percentage compared as a fraction is its hundredth in decimal: a
// value of exactly 1.1 % (0.011) is at least 1.1 %, and 0.7 % at most 0.7 %.
func TestFractionLimitIsExact(t *testing.T) {
	t.Parallel()
	v := num
	atLeast := Condition{Kind: CondAtLeast, Threshold: 1.1, Column: "error_rate", Unit: UnitFraction}
	assert.True(t, atLeast.Check(v(0.011), nil, 1))
	assert.Equal(t, "when error_rate is at least 1.1% (0.011 in error_rate)", atLeast.Describe())
	atMost := Condition{Kind: CondAtMost, Threshold: 0.7, Column: "error_rate", Unit: UnitFraction}
	assert.True(t, atMost.Check(v(0.007), nil, 1))
	for p := 0.1; p < 100; p += 0.1 {
		p = math.Round(p*10) / 10
		want, err := strconv.ParseFloat(strconv.FormatFloat(p/100, 'f', 4, 64), 64)
		require.NoError(t, err)
		assert.Equal(t, want, Hundredth(p), "%v%%", p)
	}
}
