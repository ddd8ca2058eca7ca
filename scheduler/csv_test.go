package scheduler_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/scheduler"
	"github.com/analyticsbot/analyticsbot/store"
)

// docs/schedules.md, "What a run posts": a CSV schedule attaches every
// row, the query streamed again past MAX_ROWS (up to EXPORT_MAX_ROWS).
// With MAX_ROWS=2 an answer of 5 rows shows 2 and attaches all 5.
func TestCSVScheduleAttachesRowsPastMaxRows(t *testing.T) {
	t.Parallel()
	b := bottest.New(t, testDB(t), "", func(c *bot.Config) { c.MaxRows = 2 })
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	r := newRuns(t, b, due, scheduler.Options{}, func(s *store.Schedule) {
		s.Question, s.Format = "Games per year, 2014 to 2018", "csv"
		s.Query.Text = "SELECT release_year, count(*) AS games FROM analytics.apps " +
			"WHERE release_year BETWEEN 2014 AND 2018 GROUP BY release_year ORDER BY release_year"
	})
	require.Equal(t, 1, r.tick(t))
	require.Len(t, r.slack.posts, 1, "the run posts")
	run := r.slack.posts[0]
	require.True(t, run.Outcome.OK(), "run: %+v", run.Outcome)
	require.NotNil(t, run.Answer.Result)
	assert.Len(t, run.Answer.Result.Rows, 2, "the message shows MAX_ROWS rows")
	require.NotNil(t, run.File, "a CSV attached")
	assert.Equal(t, 5, run.File.Rows)
	require.Len(t, r.slack.csvs, 1)
	lines := strings.Split(strings.TrimSuffix(r.slack.csvs[0], "\n"), "\n")
	require.Len(t, lines, 6, "a header and every row: %q", r.slack.csvs[0])
	assert.Equal(t, "release_year,games", lines[0])
	for i, line := range lines[1:] {
		year := fmt.Sprintf("%d,", 2014+i)
		assert.True(t, strings.HasPrefix(line, year), "row %d: got %q, want %s…", i+1, line, year)
	}
}
