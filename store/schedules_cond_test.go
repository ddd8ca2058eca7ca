package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// conditionOf is the condition of s as this version checks it
// (nodes.ConditionOf).
func conditionOf(kind string, threshold float64, unit string) schedule.Condition {
	return schedule.Condition{Kind: schedule.ConditionKind(kind), Threshold: threshold, Unit: schedule.ThresholdUnit(unit)}
}

// TestEveryVersionChecksAnAlertAlike: during a rolling upgrade replicas of
// the version before, still serving after `migrate` (docs/scaling.md),
// claim the alerts this one stores and check them against the run's value.
// A replica of a version before 00025 compares cond_threshold as written;
// one of 00025..00029 divides it by 100 for cond_unit 'fraction' alone.
// Each must find an alert's condition holding exactly when this version
// does: "above 5%" on a column of fractions fires at 0.07 on all of them.
func TestEveryVersionChecksAnAlertAlike(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	tests := []struct {
		name, kind string
		threshold  float64
		unit       string
	}{
		{name: "above a percent of a fraction column", kind: "above", threshold: 5, unit: "fraction"},
		{name: "below a percent of a fraction column", kind: "below", threshold: 5, unit: "fraction"},
		{name: "a percent worked out in decimal", kind: "at_least", threshold: 1.1, unit: "fraction"},
		{name: "a percent of a percent column", kind: "above", threshold: 5, unit: "percent"},
		{name: "a plain number", kind: "at_most", threshold: 100, unit: ""},
	}
	values := []float64{0.011, 0.04, 0.05, 0.07, 1.1, 4, 5, 7, 100, 120}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := db.AddSchedule(ctx, store.Schedule{State: store.ScheduleActive, OwnerID: "U1", Surface: "cli",
				SourceThread: "cli-1", SourceChannel: "cli", Query: warehouse.Query{Backend: "postgres", Text: "SELECT 0.07 AS error_rate"},
				QueryID: "q1", Question: "error rate", Spec: "0 * * * *", TimeZone: "UTC", DestKind: "thread",
				DestChannel: "cli", DestThread: "cli-1", Format: "answer", CondKind: tt.kind, CondThreshold: tt.threshold,
				CondColumn: "error_rate", CondUnit: tt.unit})
			require.NoError(t, err)
			if s.CondThreshold != tt.threshold || s.CondUnit != tt.unit {
				t.Errorf("read back: %v %q, want %v %q", s.CondThreshold, s.CondUnit, tt.threshold, tt.unit)
			}
			var rawThreshold float64
			var rawUnit string
			require.NoError(t, db.Pool().QueryRow(ctx, `SELECT cond_threshold, cond_unit FROM schedules WHERE id = $1`, s.ID).
				Scan(&rawThreshold, &rawUnit))
			now := conditionOf(s.CondKind, s.CondThreshold, s.CondUnit)
			before25 := conditionOf(tt.kind, rawThreshold, "")
			since25 := conditionOf(tt.kind, rawThreshold, rawUnit)
			for _, v := range values {
				want := now.Check(&v, nil, 1)
				if got := before25.Check(&v, nil, 1); got != want {
					t.Errorf("at %v a replica before 00025 (%v as written) finds the condition %v, this version %v", v, rawThreshold, got, want)
				}
				if got := since25.Check(&v, nil, 1); got != want {
					t.Errorf("at %v a replica of 00025..00029 (%v, %q) finds the condition %v, this version %v", v, rawThreshold, rawUnit, got, want)
				}
			}
		})
	}
}

// TestAFractionAlertOfAnEarlierReplica: an alert a replica of 00025..00029
// stores during the upgrade (the percent with cond_unit 'fraction') reads
// as the same alert stored by this version.
func TestAFractionAlertOfAnEarlierReplica(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	s := activeSchedule(t, db, time.Now())
	_, err := db.Pool().Exec(ctx, `UPDATE schedules SET cond_kind = 'above', cond_threshold = 5, cond_unit = 'fraction' WHERE id = $1`, s.ID)
	require.NoError(t, err)
	got, err := db.ScheduleByID(ctx, s.ID)
	require.NoError(t, err)
	if got.CondThreshold != 5 || got.CondUnit != "fraction" {
		t.Errorf("an earlier replica's alert reads %v %q, want 5 \"fraction\"", got.CondThreshold, got.CondUnit)
	}
}
