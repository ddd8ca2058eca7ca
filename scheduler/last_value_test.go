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
)

// docs/schedules.md, "What a run posts": a change alert compares with the
// last run that found a number. A run in between that finds none (no
// rows, a NULL) posts nothing and keeps that number, so 100, then no
// data, then 10 is a change from 100, posted with "(was 100)".
func TestChangeAlertKeepsTheLastValueFound(t *testing.T) {
	t.Parallel()
	dbURL := testDB(t)
	b := bottest.New(t, dbURL, "")
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	r := newRuns(t, b, due, scheduler.Options{}, func(s *store.Schedule) {
		s.Question, s.CondKind, s.CondThreshold, s.CondColumn = "Games", "change", 50, "games"
		s.Query.Text = "SELECT 100 AS games FROM analytics.apps LIMIT 1"
	})
	ctx := context.Background()
	runOn := func(day int, query string) store.Schedule {
		t.Helper()
		_, err := b.DB().Pool().Exec(ctx, `UPDATE schedules SET query = $2 WHERE id = $1`, r.sch.ID, query)
		require.NoError(t, err)
		r.clk.Set(due.AddDate(0, 0, day).Add(time.Second))
		require.Equal(t, 1, r.tick(t), "the run of day %d", day)
		got, err := b.DB().ScheduleByID(ctx, r.sch.ID)
		require.NoError(t, err)
		return got
	}

	got := runOn(0, "SELECT 100 AS games FROM analytics.apps LIMIT 1")
	require.NotNil(t, got.LastValue, "the first run records its value")
	assert.Equal(t, 100.0, *got.LastValue)
	for i, query := range []string{
		"SELECT 1 AS games FROM analytics.apps WHERE false",      // no rows
		"SELECT sum(1) AS games FROM analytics.apps WHERE false", // NULL
	} {
		day := i + 1
		got = runOn(day, query)
		require.NotNil(t, got.LastValue, "day %d found no number: the last value stays", day)
		assert.Equal(t, 100.0, *got.LastValue, "day %d", day)
	}
	assert.Empty(t, r.slack.posts, "no change found yet: nothing posted")

	got = runOn(3, "SELECT 10 AS games FROM analytics.apps LIMIT 1")
	require.Len(t, r.slack.posts, 1, "100 to 10 is a change of more than 50%")
	assert.Contains(t, r.slack.posts[0].Answer.Plain(), "games is 10 (was 100)")
	require.NotNil(t, got.LastValue)
	assert.Equal(t, 10.0, *got.LastValue)
}
