package scheduler_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/scheduler"
	"github.com/analyticsbot/analyticsbot/store"
)

// pausingOwners is Slack answering who a run's owner is while someone
// pauses the schedule (`schedules pause`, the Pause button): the run is
// under way when it is paused. err is what Owner answers then.
type pausingOwners struct {
	*slackStandIn
	db  *store.DB
	err error
}

func (o *pausingOwners) Owner(ctx context.Context, sch store.Schedule) (string, error) {
	_, err := o.db.ChangeSchedule(ctx, store.ScheduleChange{ID: sch.ID, From: []store.ScheduleState{store.ScheduleActive},
		To: store.SchedulePaused})
	if err != nil {
		return "", err
	}
	return "ana@example.com", o.err
}

// docs/schedules.md, "Managing them": a run whose schedule is
// paused while it runs posts nothing, and its end is recorded
// (`schedules runs` says paused, not running) and its claim released, so
// once resumed `schedules run-now` runs it at once and no attempt is left
// to be called abandoned. One that fails after the pause tells its owner
// nothing (neither "I'll try again at the next time" nor "I stopped your
// schedule"), and leaves the paused schedule with no next run and no
// failure counted.
func TestRunPausedWhileUnderWay(t *testing.T) {
	dbURL := testDB(t)
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	b := bottest.New(t, dbURL, "")
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		err  error
		want string // the attempt's outcome and kind
	}{
		{name: "would have posted", want: "paused "},
		{name: "fails for good", err: &bot.Undeliverable{Reason: "the channel is archived", Err: errors.New("is_archived")},
			want: "failed undeliverable"},
		{name: "fails, may pass", err: errors.New("users.info: internal_error"), want: "failed owner_unknown"},
		{name: "refused", err: &bot.Refusal{Reason: "you are no longer a member of the channel it posts to."},
			want: "refused not_allowed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRuns(t, b, due, scheduler.Options{}, func(s *store.Schedule) { s.Question = "Games " + tt.name })
			r.sc.Handle(nodes.SurfaceSlack, &pausingOwners{slackStandIn: r.slack, db: b.DB(), err: tt.err})

			require.Equal(t, 1, r.tick(t))
			assert.Empty(t, r.slack.posts, "nothing posted")
			assert.Empty(t, r.slack.tells, "the owner who paused it is told nothing")
			assert.Equal(t, []string{tt.want}, r.runs(t), "the attempt's end is recorded")
			got, err := b.DB().ScheduleByID(ctx, r.sch.ID)
			require.NoError(t, err)
			assert.Equal(t, store.SchedulePaused, got.State)
			assert.Empty(t, got.ClaimedBy, "the claim is released")
			assert.Nil(t, got.NextRunAt, "a paused schedule has no next run")
			assert.Zero(t, got.Failures)

			// Resumed, it runs now when asked, and its run posts.
			r.sc.Handle(nodes.SurfaceSlack, r.slack)
			next := due.Add(24 * time.Hour)
			_, err = b.DB().ChangeSchedule(ctx, store.ScheduleChange{ID: r.sch.ID,
				From: []store.ScheduleState{store.SchedulePaused}, To: store.ScheduleActive, Next: &next})
			require.NoError(t, err)
			require.NoError(t, b.DB().RunScheduleNow(ctx, r.sch.ID, r.clk.Now()), "no run is under way")
			require.Equal(t, 1, r.tick(t))
			assert.Len(t, r.slack.posts, 1)
			assert.Equal(t, []string{tt.want, "posted "}, r.runs(t), "no attempt left to be abandoned")
		})
	}
}
