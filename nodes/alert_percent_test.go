package nodes

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// docs/schedules.md: "when error_rate is above 5%" keeps its percent. When
// the alert is made, a column whose values in the answer all lie within
// [-1, 1] holds fractions and is compared with 0.05, which the
// confirmation says; a column named as a percentage, or one with larger
// values, is compared with 5; without the answer's values it is compared
// as written, and the confirmation says so.
func TestAlertOnAPercent(t *testing.T) {
	t.Parallel()
	column := func(name string) []warehouse.Column {
		return []warehouse.Column{{Name: "day", Kind: warehouse.KindText}, {Name: name, Type: "numeric", Kind: warehouse.KindNumber}}
	}
	fiveOver := schedule.Condition{Kind: schedule.CondAbove, Threshold: 5, Column: "error_rate", Unit: schedule.UnitPercent}
	for _, tt := range []struct {
		name     string
		result   *warehouse.Result // nil: no result at hand
		cond     schedule.Condition
		units    map[string]answer.Unit // the answer's units, from the catalog
		want     string                 // the condition's words
		wantNote string
	}{
		{name: "a column of fractions", cond: fiveOver,
			result: &warehouse.Result{Columns: column("error_rate"), Rows: [][]any{{"mon", 0.0042}, {"tue", -0.5}, {"wed", nil}}, RowCount: 3},
			want:   "when error_rate is above 5% (0.05 in error_rate)"},
		{name: "a column of percentages", cond: fiveOver,
			result: &warehouse.Result{Columns: column("error_rate"), Rows: [][]any{{"mon", 0.42}, {"tue", 12.5}}, RowCount: 2},
			want:   "when error_rate is above 5%"},
		{name: "a column named as a percentage", cond: schedule.Condition{Kind: schedule.CondBelow, Threshold: 2.5, Column: "share", Unit: schedule.UnitPercent},
			result: &warehouse.Result{Columns: column("share_pct"), Rows: [][]any{{"mon", 0.3}}, RowCount: 1},
			want:   "when share is below 2.5%"},
		{name: "no answer at hand", cond: fiveOver,
			want:     "when error_rate is above 5%",
			wantNote: "I couldn't see the answer's values, so I'll compare error_rate with 5 as written; if it holds fractions (0.05 for 5%), ask for an alert “when error_rate is above 0.05” instead."},
		{name: "no answer at hand, below", cond: schedule.Condition{Kind: schedule.CondBelow, Threshold: 2, Column: "error_rate", Unit: schedule.UnitPercent},
			want:     "when error_rate is below 2%",
			wantNote: "I couldn't see the answer's values, so I'll compare error_rate with 2 as written; if it holds fractions (0.05 for 5%), ask for an alert “when error_rate is below 0.02” instead."},
		{name: "a fraction of one decimal", cond: schedule.Condition{Kind: schedule.CondAtLeast, Threshold: 1.1, Column: "error_rate", Unit: schedule.UnitPercent},
			result: &warehouse.Result{Columns: column("error_rate"), Rows: [][]any{{"mon", 0.011}}, RowCount: 1},
			want:   "when error_rate is at least 1.1% (0.011 in error_rate)"},
		{name: "no number in the answer", cond: fiveOver,
			result:   &warehouse.Result{Columns: column("error_rate"), Rows: [][]any{{"mon", nil}}, RowCount: 1},
			want:     "when error_rate is above 5%",
			wantNote: "I couldn't see the answer's values, so I'll compare error_rate with 5 as written; if it holds fractions (0.05 for 5%), ask for an alert “when error_rate is above 0.05” instead."},
		{name: "a column the catalog says is in percent", cond: fiveOver,
			result: &warehouse.Result{Columns: column("error_rate"), Rows: [][]any{{"mon", 0.42}}, RowCount: 1},
			units:  map[string]answer.Unit{"error_rate": {Suffix: "%"}},
			want:   "when error_rate is above 5%"},
		{name: "a plain number", cond: schedule.Condition{Kind: schedule.CondAbove, Threshold: 5, Column: "error_rate"},
			result: &warehouse.Result{Columns: column("error_rate"), Rows: [][]any{{"mon", 0.0042}}, RowCount: 1},
			want:   "when error_rate is above 5"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var turn store.Turn
			if tt.units != nil {
				reply, err := answer.Marshal(&answer.Answer{Kind: answer.KindAnswer, Result: tt.result, Units: tt.units})
				require.NoError(t, err)
				turn.Reply = reply
			}
			got, note := percentUnit(turn, tt.cond, tt.result)
			assert.Equal(t, tt.want, got.Describe())
			assert.Equal(t, tt.wantNote, note)
			sch := store.Schedule{Question: "Error rate", DestKind: "dm", TimeZone: "UTC", CondKind: string(got.Kind),
				CondThreshold: got.Threshold, CondColumn: got.Column, CondUnit: string(got.Unit)}
			assert.Contains(t, DescribeSchedule(sch, alertCheck(nil)).Plain(), ", only "+tt.want, "the confirmation")
		})
	}
}

// An alert at 5% of a column of fractions fires when the run reads more
// than 0.05, and says what it compared.
func TestAlertOnAPercentOfAFractionFires(t *testing.T) {
	t.Parallel()
	n, _ := newNodes(t, nil)
	ctx := context.Background()
	for _, tt := range []struct {
		sql       string
		wantQuiet bool
		want      string
	}{
		{sql: "SELECT 0.06 AS error_rate", want: "🔔 *Error rate*: error_rate is 0.06: when error_rate is above 5% (0.05 in error_rate)."},
		{sql: "SELECT 0.0042 AS error_rate", wantQuiet: true},
	} {
		sch := store.Schedule{Question: "Error rate", Query: pgQuery(tt.sql), Spec: "0 * * * *", TimeZone: "UTC",
			CondKind: string(schedule.CondAbove), CondThreshold: 5, CondColumn: "error_rate", CondUnit: string(schedule.UnitFraction)}
		run := State{Intent: IntentScheduledRun, ThreadTS: threadID(t), Scheduled: &ScheduledRun{Schedule: sch, Due: fixedNow}}
		require.NoError(t, n.RunSchedule(ctx, &run))
		require.Empty(t, run.ErrorKind, run.ErrorDetail)
		assert.Equal(t, tt.wantQuiet, run.Quiet, "%s: quiet", tt.sql)
		if !tt.wantQuiet {
			assert.Contains(t, run.Answer, tt.want)
		}
	}
}
