package bot_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/scheduler"
	"github.com/analyticsbot/analyticsbot/store"
)

// refusingDeliverer is Slack refusing every post: each run fails in a way
// that may pass.
type refusingDeliverer struct{ recordingDeliverer }

func (*refusingDeliverer) Deliver(context.Context, store.Schedule, bot.Reply) (bot.Delivered, error) {
	return bot.Delivered{}, errors.New("chat.postMessage: service_unavailable")
}

// testScheduleStopsAfterFailures (docs/schedules.md): after 5 failed runs
// in a row the schedule stops, and its owner is told why, rather than at
// every run. A schedule whose last 4 runs failed fails once more.
func testScheduleStopsAfterFailures(t *testing.T, e *testEnv) {
	b := newBot(t, e, script())
	ctx := t.Context()
	thread := bot.NewThreadID()
	answer, _ := ask(t, b, thread, "How many games were released in 2018?")
	require.Empty(t, answer.ErrorKind, answer.ErrorDetail)
	confirm, _ := ask(t, b, thread, "post this here every Monday at 9")
	require.NotEmpty(t, confirm.ScheduleID, "a pending schedule: %s", confirm.ResponseText)
	saved, _ := press(t, b, thread, nodes.ActionScheduleSave, confirm.ScheduleID)
	require.Contains(t, saved.ResponseText, "Saved:")

	_, err := b.DB().Pool().Exec(ctx, `UPDATE schedules SET failures = 4 WHERE id = $1`, confirm.ScheduleID)
	require.NoError(t, err)
	sch, err := b.DB().ScheduleByID(ctx, confirm.ScheduleID)
	require.NoError(t, err)
	require.Equal(t, 4, sch.Failures)

	slack := &refusingDeliverer{}
	sc := scheduler.New(b, scheduler.Options{Now: func() time.Time { return sch.NextRunAt.Add(time.Second) }, Only: sch.ID, Retries: -1})
	sc.Handle(nodes.SurfaceSlack, slack)
	n, err := sc.Tick(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)

	sch, err = b.DB().ScheduleByID(ctx, confirm.ScheduleID)
	require.NoError(t, err)
	assert.Equal(t, store.ScheduleStopped, sch.State, "the fifth failed run in a row stops it")
	assert.Equal(t, "its last 5 runs failed", sch.StopReason)
	require.Len(t, slack.tells, 1, "the owner is told once")
	assert.Contains(t, slack.tells[0], "I stopped your schedule")
	assert.Contains(t, slack.tells[0], "its last 5 runs failed")
}
