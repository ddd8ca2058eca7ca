package scheduler_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/scheduler"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// docs/schedules.md: an unsaved schedule is forgotten after a day. A tick
// deletes the schedules left unconfirmed for more than a day (by the
// database's clock), and keeps a younger one and a saved one however old.
func TestUnsavedScheduleForgottenAfterADay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := bottest.New(t, testDB(t), "")
	db := b.DB()
	add := func(question string, age time.Duration, save bool) store.Schedule {
		t.Helper()
		s, err := db.AddSchedule(ctx, store.Schedule{OwnerID: "U1", Surface: "web", SourceThread: "local-1", SourceChannel: "web",
			Query: warehouse.Query{Backend: "postgres", Text: sql2018}, Question: question, Spec: "0 9 * * 1",
			TimeZone: "UTC", DestKind: "thread", DestChannel: "web", DestThread: "local-1", Format: "csv"})
		require.NoError(t, err)
		if save {
			next := time.Now().Add(7 * 24 * time.Hour)
			_, err = db.ChangeSchedule(ctx, store.ScheduleChange{ID: s.ID, From: []store.ScheduleState{store.SchedulePending},
				To: store.ScheduleActive, Next: &next})
			require.NoError(t, err)
		}
		_, err = db.Pool().Exec(ctx, `UPDATE schedules SET created_at = now() - make_interval(secs => $2) WHERE id = $1`, s.ID, age.Seconds())
		require.NoError(t, err)
		return s
	}
	stale := add("unsaved for 25 hours", 25*time.Hour, false)
	young := add("unsaved for 23 hours", 23*time.Hour, false)
	saved := add("saved two days ago", 48*time.Hour, true)

	n, err := scheduler.New(b, scheduler.Options{Runner: "pending-test"}).Tick(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "nothing was due")

	_, err = db.ScheduleByID(ctx, stale.ID)
	assert.ErrorIs(t, err, store.ErrNotFound, "unsaved for more than a day: forgotten")
	got, err := db.ScheduleByID(ctx, young.ID)
	require.NoError(t, err, "unsaved for less than a day: kept")
	assert.Equal(t, store.SchedulePending, got.State)
	got, err = db.ScheduleByID(ctx, saved.ID)
	require.NoError(t, err, "a saved schedule is never forgotten so")
	assert.Equal(t, store.ScheduleActive, got.State)
}
