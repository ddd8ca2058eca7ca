package feedback_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/feedback"
	"github.com/analyticsbot/analyticsbot/store"
)

// TestWithdrawWaitsForAnotherUsersUpvote: UB's 👍 has found the candidate
// UA's 👍 proposed and is linking to it when UA turns their 👍 into a 👎.
// The 👎 must not delete the candidate UB's 👍 stands on: UB was told the
// rating proposed it, and pressing 👍 again would change nothing. A
// trigger of the test's makes UB's link wait on an advisory lock the test
// holds, so the 👎 runs at exactly that point.
func TestWithdrawWaitsForAnotherUsersUpvote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := book(t, "sql")
	b.AutoVerify = 0
	db := b.DB.(*store.DB)
	const gate = 4242
	_, err := db.Pool().Exec(ctx, `
		CREATE FUNCTION test_gate() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN PERFORM pg_advisory_xact_lock(4242); RETURN NEW; END $$;
		CREATE TRIGGER test_gate BEFORE UPDATE ON feedback FOR EACH ROW
			WHEN (NEW.user_id = 'UB' AND NEW.example_id IS NOT NULL) EXECUTE FUNCTION test_gate()`)
	require.NoError(t, err)

	first, err := b.Rate(ctx, up("UA"))
	require.NoError(t, err)
	require.NotZero(t, first.Example.ID, "UA's 👍 proposes a candidate")

	holder, err := db.Pool().Acquire(ctx)
	require.NoError(t, err)
	defer holder.Release()
	_, err = holder.Exec(ctx, `SELECT pg_advisory_lock($1)`, gate)
	require.NoError(t, err)
	waiting := func(n int) func() bool {
		return func() bool {
			var got int
			err := db.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&got)
			return err == nil && got == n
		}
	}

	upB := make(chan struct{})
	var ratedB, ratedA feedback.Rated
	var errB, errA error
	go func() {
		defer close(upB)
		ratedB, errB = b.Rate(ctx, up("UB"))
	}()
	require.Eventually(t, waiting(1), time.Minute, 10*time.Millisecond, "UB's 👍 waits at its link")

	down := up("UA")
	down.Rating = store.RatingDown
	downA := make(chan struct{})
	go func() {
		defer close(downA)
		ratedA, errA = b.Rate(ctx, down)
	}()
	// The 👎 either finished (it did not wait for the link) or waits on
	// the example's row, which UB's 👍 holds.
	require.Eventually(t, func() bool {
		select {
		case <-downA:
			return true
		default:
			return waiting(2)()
		}
	}, time.Minute, 10*time.Millisecond, "UA's 👎 finished or waits on the example")
	_, err = holder.Exec(ctx, `SELECT pg_advisory_unlock($1)`, gate)
	require.NoError(t, err)
	<-upB
	<-downA

	require.NoError(t, errB)
	require.NoError(t, errA)
	if ratedB.Unpromoted != nil || ratedB.Example.ID != first.Example.ID {
		t.Errorf("UB's 👍: example %d, unpromoted %v; want UA's candidate %d, linked",
			ratedB.Example.ID, ratedB.Unpromoted, first.Example.ID)
	}
	if got, want := ratedA.Withdrawn, false; got != want {
		t.Errorf("UA's 👎 withdrew the candidate: %v, want %v (UB's 👍 stands on it)", got, want)
	}
	got, err := db.Example(ctx, first.Example.ID)
	if err != nil || got.Status != store.StatusCandidate {
		t.Errorf("the candidate after both: %q, err %v; want still a candidate", got.Status, err)
	}
	if n, err := db.ExampleUpvoters(ctx, first.Example.ID); err != nil || n != 1 {
		t.Errorf("👍 linked to the candidate: %d, err %v; want 1 (UB's)", n, err)
	}
}
