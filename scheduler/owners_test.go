package scheduler_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/scheduler"
	"github.com/analyticsbot/analyticsbot/store"
)

// ownersStandIn is Slack telling each run its owner's address now.
type ownersStandIn struct {
	*slackStandIn
	email string
}

func (o *ownersStandIn) Owner(context.Context, store.Schedule) (string, error) { return o.email, nil }

// docs/schedules.md, "Who it reads as": a run that reads as a changed
// address saves it with the schedule; one told no address (a token that
// may not read them) leaves the saved one.
func TestRunSavesItsOwnersAddress(t *testing.T) {
	dbURL := testDB(t)
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	b := bottest.New(t, dbURL, "")
	r := newRuns(t, b, due, scheduler.Options{}, func(s *store.Schedule) { s.OwnerEmail = "ana@example.com" })
	owners := &ownersStandIn{slackStandIn: r.slack}
	r.sc.Handle(nodes.SurfaceSlack, owners)
	saved := func() string {
		t.Helper()
		got, err := b.DB().ScheduleByID(context.Background(), r.sch.ID)
		require.NoError(t, err)
		return got.OwnerEmail
	}

	owners.email = "ana.new@example.com"
	require.Equal(t, 1, r.tick(t))
	assert.Equal(t, "ana.new@example.com", saved(), "the address the run read as")

	owners.email = ""
	r.clk.Set(due.Add(24*time.Hour + time.Second))
	require.Equal(t, 1, r.tick(t))
	assert.Equal(t, "ana.new@example.com", saved(), "no address told: the saved one is left")
	assert.Len(t, r.slack.posts, 2, "both runs posted")
}
