package nodes

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// What an alert says it found, in the numbers people read: a small rate
// to its first significant digits, not rounded to 0.00 like its threshold
// was not.
func TestAlertFinding(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	above := schedule.Condition{Kind: schedule.CondAbove, Threshold: 0.001, Column: "error_rate"}
	assert.Equal(t, "error_rate is 0.0042 (was 0.000815): when error_rate is above 0.001.",
		alertFinding(above, f(0.0042), f(0.000815), 1))
	count := schedule.Condition{Kind: schedule.CondAbove, Threshold: 100, Column: "count"}
	assert.Equal(t, "count is 1,234.57 (was 95): when count is above 100.", alertFinding(count, f(1234.567), f(95), 1))
	assert.Equal(t, "count is no number: when count is above 100.", alertFinding(count, nil, nil, 0))
	assert.Equal(t, "the value is 0.00005: when the value is above 100.",
		alertFinding(schedule.Condition{Kind: schedule.CondAbove, Threshold: 100}, f(0.00005), nil, 1), "no exponent")
	assert.Equal(t, "the value is -0.25: when the value is above 100.",
		alertFinding(schedule.Condition{Kind: schedule.CondAbove, Threshold: 100}, f(-0.25), nil, 1))
}

// An alert on a money column reads its value ("$12,345.00", as PostgreSQL
// writes money) as the number it is, so the alert can fire.
func TestAlertValueOfMoney(t *testing.T) {
	t.Parallel()
	r := warehouse.Result{Columns: []warehouse.Column{{Name: "region", Kind: warehouse.KindText}, {Name: "revenue", Kind: warehouse.KindNumber, Type: "money"}},
		Rows: [][]any{{"north", "$12,345.00"}}}
	v := valueOf(r, "revenue")
	if assert.NotNil(t, v) {
		assert.Equal(t, 12345.0, *v)
	}
	r.Rows[0][1] = "-$1.50"
	if v = valueOf(r, ""); assert.NotNil(t, v) {
		assert.Equal(t, -1.5, *v)
	}
	r.Columns[1].Type = "unknown" // text that is not money stays no number
	assert.Nil(t, valueOf(r, "revenue"))
}
