package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// activeSchedule stores an active schedule due at due.
func activeSchedule(t *testing.T, db *store.DB, due time.Time) store.Schedule {
	t.Helper()
	s, err := db.AddSchedule(context.Background(), store.Schedule{
		State: store.ScheduleActive, OwnerID: "U1", Surface: "slack", SourceThread: "C1:1.1", SourceChannel: "C1",
		Query: warehouse.Query{Backend: "postgres", Text: "SELECT 1"}, QueryID: "0123abcd", Question: "How many?",
		Spec: "0 9 * * *", TimeZone: "Europe/London", DestKind: "channel", DestChannel: "C1", Format: "answer",
		NextRunAt: &due,
	})
	require.NoError(t, err)
	require.Len(t, s.ID, 8)
	return s
}

func claim(db *store.DB, runner string, now time.Time) ([]store.Claim, error) {
	return db.ClaimDueSchedules(context.Background(), store.ClaimRequest{Runner: runner, Now: now, Lease: time.Minute,
		Surfaces: []string{"slack"}, Limit: 10})
}

func TestClaimDueSchedulesOnceAcrossReplicas(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	ctx := context.Background()
	other, err := store.Open(ctx, url)
	require.NoError(t, err)
	t.Cleanup(other.Close)
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	var ids []string
	for range 5 {
		ids = append(ids, activeSchedule(t, db, due).ID)
	}
	activeSchedule(t, db, due.Add(time.Hour)) // not due yet

	// Twenty polls of two replicas at once: every due schedule is claimed
	// by exactly one.
	var mu sync.Mutex
	claimed := map[string]int{}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			pool, runner := db, "a"
			if i%2 == 1 {
				pool, runner = other, "b"
			}
			cs, err := claim(pool, runner, due.Add(time.Second))
			assert.NoError(t, err)
			mu.Lock()
			defer mu.Unlock()
			for _, c := range cs {
				claimed[c.Schedule.ID]++
				assert.Equal(t, 1, c.Attempt)
				assert.Equal(t, due, c.Due.UTC())
				assert.False(t, c.TookOver)
			}
		})
	}
	wg.Wait()
	assert.Len(t, claimed, 5, "the five due schedules are claimed, the one due later is not")
	for _, id := range ids {
		assert.Equal(t, 1, claimed[id], "schedule %s claimed once", id)
	}
}

func TestClaimLapsesAndIsTakenOver(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	s := activeSchedule(t, db, due)

	first, err := claim(db, "a", due)
	require.NoError(t, err)
	require.Len(t, first, 1)
	// Replica a dies mid-run: within its lease nobody else may run it.
	again, err := claim(db, "b", due.Add(30*time.Second))
	require.NoError(t, err)
	assert.Empty(t, again, "a live claim is not taken")
	err = db.RunScheduleNow(ctx, s.ID, due.Add(30*time.Second))
	assert.ErrorIs(t, err, store.ErrRunUnderWay, "run-now waits for the run under way")

	// After the lease, b takes it over as a second attempt of the same run.
	taken, err := claim(db, "b", due.Add(61*time.Second))
	require.NoError(t, err)
	require.Len(t, taken, 1)
	assert.True(t, taken[0].TookOver)
	assert.Equal(t, 2, taken[0].Attempt)
	assert.False(t, taken[0].Posted)
	posting, err := db.StartPosting(ctx, first[0], "a", due.Add(61*time.Second))
	require.NoError(t, err)
	assert.False(t, posting, "a no longer holds it: it must not post")
	posting, err = db.StartPosting(ctx, taken[0], "b", due.Add(61*time.Second))
	require.NoError(t, err)
	assert.True(t, posting, "b does")

	// a cannot record an end any more; b can.
	next := due.Add(24 * time.Hour)
	err = db.FinishRun(ctx, store.RunEnd{Claim: first[0], Runner: "a", At: due.Add(62 * time.Second), Outcome: store.RunPosted, Due: next, Next: next})
	assert.True(t, errors.Is(err, store.ErrClaimLost), "got %v", err)
	rows, v := 3, 42.0
	require.NoError(t, db.FinishRun(ctx, store.RunEnd{Claim: taken[0], Runner: "b", At: due.Add(63 * time.Second),
		Outcome: store.RunPosted, Rows: &rows, Value: &v, KeepValue: true, Due: next, Next: next}))

	got, err := db.ScheduleByID(ctx, s.ID)
	require.NoError(t, err)
	assert.Equal(t, next, got.NextRunAt.UTC())
	assert.Empty(t, got.ClaimedBy)
	require.NotNil(t, got.LastValue)
	assert.Equal(t, 42.0, *got.LastValue)
	assert.Equal(t, store.RunPosted, got.LastOutcome)

	runs, err := db.ScheduleRuns(ctx, s.ID, 10)
	require.NoError(t, err)
	require.Len(t, runs, 2)
	assert.Equal(t, store.RunPosted, runs[0].Outcome)
	assert.Equal(t, "b", runs[0].Runner)
	assert.Equal(t, store.RunAbandoned, runs[1].Outcome)
	assert.Equal(t, "a", runs[1].Runner)
}

func TestTakeoverOfAPostedRunDoesNotPostAgain(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	activeSchedule(t, db, due)
	first, err := claim(db, "a", due)
	require.NoError(t, err)
	require.Len(t, first, 1)
	// a posted and died before recording the run's end.
	require.NoError(t, db.MarkPosted(ctx, first[0].RunID, "C1", "1700000000.000100"))
	taken, err := claim(db, "b", due.Add(2*time.Minute))
	require.NoError(t, err)
	require.Len(t, taken, 1)
	assert.True(t, taken[0].Posted, "the taker learns the run was posted")
}

func TestScheduleStates(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	s, err := db.AddSchedule(ctx, store.Schedule{OwnerID: "U1", Surface: "web", SourceThread: "local-1", SourceChannel: "web",
		Query: warehouse.Query{Backend: "postgres", Text: "SELECT 1"}, Question: "How many?", Spec: "0 9 * * 1",
		TimeZone: "UTC", DestKind: "thread", DestChannel: "web", DestThread: "local-1", Format: "csv"})
	require.NoError(t, err)
	assert.Equal(t, store.SchedulePending, s.State)
	assert.Nil(t, s.NextRunAt)

	list, err := db.Schedules(ctx, store.ScheduleFilter{OwnerID: "U1"})
	require.NoError(t, err)
	assert.Empty(t, list, "a pending schedule is not listed")
	_, err = claim(db, "a", time.Now().Add(time.Hour))
	require.NoError(t, err)

	next := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	s, err = db.ChangeSchedule(ctx, store.ScheduleChange{ID: s.ID, From: []store.ScheduleState{store.SchedulePending},
		To: store.ScheduleActive, Next: &next})
	require.NoError(t, err)
	assert.Equal(t, store.ScheduleActive, s.State)
	assert.Equal(t, next, s.NextRunAt.UTC())

	_, err = db.ChangeSchedule(ctx, store.ScheduleChange{ID: s.ID, From: []store.ScheduleState{store.SchedulePending},
		To: store.ScheduleActive, Next: &next})
	assert.True(t, errors.Is(err, store.ErrScheduleState), "confirming twice: got %v", err)

	s, err = db.ChangeSchedule(ctx, store.ScheduleChange{ID: s.ID, From: []store.ScheduleState{store.ScheduleActive}, To: store.SchedulePaused})
	require.NoError(t, err)
	assert.Nil(t, s.NextRunAt, "a paused schedule has no next run")
	cs, err := db.ClaimDueSchedules(ctx, store.ClaimRequest{Runner: "a", Now: next.Add(time.Hour), Lease: time.Minute, Surfaces: []string{"web"}, Limit: 5})
	require.NoError(t, err)
	assert.Empty(t, cs, "a paused schedule does not run")

	require.NoError(t, db.DeleteSchedule(ctx, s.ID))
	_, err = db.ScheduleByID(ctx, s.ID)
	assert.True(t, errors.Is(err, store.ErrNotFound))
	assert.True(t, errors.Is(db.DeleteSchedule(ctx, s.ID), store.ErrNotFound))
}

func TestTakeoverOfARunCaughtPostingIsUnsure(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	s := activeSchedule(t, db, due)
	first, err := claim(db, "a", due)
	require.NoError(t, err)
	require.Len(t, first, 1)
	// a started posting and died: did Slack take the post?
	posting, err := db.StartPosting(ctx, first[0], "a", due.Add(time.Second))
	require.NoError(t, err)
	require.True(t, posting)
	taken, err := claim(db, "b", due.Add(2*time.Minute))
	require.NoError(t, err)
	require.Len(t, taken, 1)
	assert.False(t, taken[0].Posted)
	assert.True(t, taken[0].Unsure, "the taker must ask before posting")
	assert.Equal(t, due.Add(time.Second), taken[0].DeliveringSince.UTC())

	ch, err := db.PostedChannel(ctx, s.ID)
	require.NoError(t, err)
	assert.Empty(t, ch)
	require.NoError(t, db.MarkPosted(ctx, taken[0].RunID, "D0123", "1700000000.000100"))
	ch, err = db.PostedChannel(ctx, s.ID)
	require.NoError(t, err)
	assert.Equal(t, "D0123", ch)
}

func TestRetentionDeletesOldScheduleRuns(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	s := activeSchedule(t, db, due)
	_, err := db.Pool().Exec(ctx, `
		INSERT INTO schedule_runs (schedule_id, due_at, attempt, runner, started_at, finished_at, outcome)
		SELECT $1, now() - make_interval(days => i), 1, 'a', now() - make_interval(days => i), now() - make_interval(days => i), 'posted'
		FROM generate_series(1, 100) i`, s.ID)
	require.NoError(t, err)
	_, err = claim(db, "a", due) // one under way, never deleted
	require.NoError(t, err)
	n, err := db.ApplyRetention(ctx, store.RetentionPolicy{Turns: 30 * 24 * time.Hour})
	require.NoError(t, err)
	assert.Equal(t, int64(71), n.ScheduleRuns, "the runs that finished more than 30 days ago")
	runs, err := db.ScheduleRuns(ctx, s.ID, 1000)
	require.NoError(t, err)
	assert.Len(t, runs, 30)
}

func TestPausedMidRunDoesNotPost(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	s := activeSchedule(t, db, due)
	c, err := claim(db, "a", due)
	require.NoError(t, err)
	require.Len(t, c, 1)
	_, err = db.ChangeSchedule(ctx, store.ScheduleChange{ID: s.ID, From: []store.ScheduleState{store.ScheduleActive}, To: store.SchedulePaused})
	require.NoError(t, err)
	posting, err := db.StartPosting(ctx, c[0], "a", due.Add(time.Second))
	require.NoError(t, err)
	assert.False(t, posting, "paused while the query ran: nothing is posted")
}

func TestAFailedPostMakesTheRetryUnsure(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	s := activeSchedule(t, db, due)
	c, err := claim(db, "a", due)
	require.NoError(t, err)
	require.Len(t, c, 1)
	posting, err := db.StartPosting(ctx, c[0], "a", due)
	require.NoError(t, err)
	require.True(t, posting)
	// Slack's answer was lost: the attempt failed, to be retried a minute later.
	retry := due.Add(time.Minute)
	require.NoError(t, db.FinishRun(ctx, store.RunEnd{Claim: c[0], Runner: "a", At: due, Outcome: store.RunFailed, Due: due, Next: retry}))
	again, err := claim(db, "a", retry)
	require.NoError(t, err)
	require.Len(t, again, 1)
	assert.True(t, again[0].Unsure, "the post may have gone through: ask before posting again")
	assert.Equal(t, 2, again[0].Attempt)

	// A run left "running" under an older due time (paused and resumed
	// since) is closed when the schedule is claimed next.
	_, err = db.ChangeSchedule(ctx, store.ScheduleChange{ID: s.ID, From: []store.ScheduleState{store.ScheduleActive}, To: store.SchedulePaused})
	require.NoError(t, err)
	next := due.Add(24 * time.Hour)
	_, err = db.ChangeSchedule(ctx, store.ScheduleChange{ID: s.ID, From: []store.ScheduleState{store.SchedulePaused}, To: store.ScheduleActive, Next: &next})
	require.NoError(t, err)
	_, err = db.Pool().Exec(ctx, `UPDATE schedules SET claimed_by = NULL, claimed_until = NULL WHERE id = $1`, s.ID)
	require.NoError(t, err)
	fresh, err := claim(db, "b", next)
	require.NoError(t, err)
	require.Len(t, fresh, 1)
	assert.False(t, fresh[0].Unsure, "another run")
	runs, err := db.ScheduleRuns(ctx, s.ID, 10)
	require.NoError(t, err)
	for _, r := range runs[1:] {
		assert.NotEqual(t, store.RunRunning, r.Outcome, "no run of an earlier time is left running")
	}
}

// A runner that could not record a run's end within its lease (the
// database was away) still finishes it when no one took it over; its own
// polls never claim the run it has under way (Except); and an attempt a
// takeover ended cannot be finished, even by a runner of the same name.
func TestALapsedClaimIsStillItsRunners(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	s := activeSchedule(t, db, due)
	first, err := claim(db, "a", due)
	require.NoError(t, err)
	require.Len(t, first, 1)

	own, err := db.ClaimDueSchedules(ctx, store.ClaimRequest{Runner: "a", Now: due.Add(90 * time.Second), Lease: time.Minute,
		Surfaces: []string{"slack"}, Limit: 10, Except: []string{s.ID}})
	require.NoError(t, err)
	assert.Empty(t, own, "a's own run under way is not claimed again, its lease lapsed or not")
	retry := due.Add(2 * time.Minute)
	require.NoError(t, db.FinishRun(ctx, store.RunEnd{Claim: first[0], Runner: "a", At: due.Add(100 * time.Second),
		Outcome: store.RunFailed, ErrorKind: "delivery_failed", Due: due, Next: retry}), "recorded after its lease, not taken over")
	got, err := db.ScheduleByID(ctx, s.ID)
	require.NoError(t, err)
	assert.Equal(t, retry, got.NextRunAt.UTC(), "the planned retry")

	second, err := claim(db, "a", retry)
	require.NoError(t, err)
	require.Len(t, second, 1)
	assert.Equal(t, 2, second[0].Attempt)
	// Its lease lapses; a poll of the same runner that did not exclude it
	// takes the run over, ending the attempt as abandoned.
	third, err := claim(db, "a", retry.Add(61*time.Second))
	require.NoError(t, err)
	require.Len(t, third, 1)
	assert.True(t, third[0].TookOver)
	err = db.FinishRun(ctx, store.RunEnd{Claim: second[0], Runner: "a", At: retry.Add(62 * time.Second),
		Outcome: store.RunPosted, Due: due.Add(24 * time.Hour), Next: due.Add(24 * time.Hour)})
	assert.ErrorIs(t, err, store.ErrClaimLost, "the abandoned attempt is not finished over the new one")
	got, err = db.ScheduleByID(ctx, s.ID)
	require.NoError(t, err)
	assert.Equal(t, "a", got.ClaimedBy, "the new attempt keeps its claim")
}

// An alert's percentage keeps how it reads against its column (package
// schedule's ThresholdUnit); a schedule saved without one reads as
// written, as those saved before the column existed do.
func TestScheduleKeepsItsConditionUnit(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	for _, unit := range []string{"", "percent", "fraction"} {
		s, err := db.AddSchedule(ctx, store.Schedule{OwnerID: "U1", Surface: "web", SourceThread: "local-1", SourceChannel: "web",
			Query: warehouse.Query{Backend: "postgres", Text: "SELECT 0.06 AS error_rate"}, Question: "Error rate", Spec: "0 * * * *",
			TimeZone: "UTC", DestKind: "thread", DestChannel: "web", DestThread: "local-1", Format: "answer",
			CondKind: "above", CondThreshold: 5, CondColumn: "error_rate", CondUnit: unit})
		require.NoError(t, err)
		got, err := db.ScheduleByID(ctx, s.ID)
		require.NoError(t, err)
		assert.Equal(t, unit, got.CondUnit)
		assert.Equal(t, 5.0, got.CondThreshold)
	}
}
