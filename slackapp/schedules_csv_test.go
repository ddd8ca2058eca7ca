package slackapp

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
	"github.com/analyticsbot/analyticsbot/store"
)

// docs/schedules.md, "What a run posts": a CSV schedule whose rows were cut
// at EXPORT_MAX_ROWS says so in the post the file goes under, in the
// words of Export CSV pressed on the run, its counts thousands separated.
func TestCSVScheduleSaysItsExportWasCut(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clk := bottest.NewClock(due.Add(-time.Hour))
	h, sc := scheduled(t, clk, "replica-1", ownState(t), withBotConfig(func(c *bot.Config) { c.MaxRows, c.ExportMaxRows = 3, 1500 }))
	ch, root := channelID("CCSVCUT"), "1700002201.000100"
	answered(t, h, ch, root)
	s := storedSchedules(t, h, threadID(ch, root), ch, due, 1, func(s *store.Schedule) {
		s.Format = "csv"
		s.Query.Text = "SELECT app_id, name FROM analytics.apps ORDER BY app_id"
	})[0]

	clk.Set(due)
	require.Equal(t, 1, tick(t, sc))
	posts := h.posts(ch, s.Question)
	require.Len(t, posts, 1)
	run := h.slack.WaitFile(t, func(f fakeslack.File) bool { return f.Channel == ch && f.ThreadTS == posts[0].TS })
	assert.Len(t, strings.Split(strings.TrimSuffix(string(run.Content), "\n"), "\n"), 1+1500, "the header and EXPORT_MAX_ROWS rows")
	assert.Contains(t, says(posts[0]), "The export was limited to 1,500 rows.", "the run's post says its file was cut")
	assert.Empty(t, run.InitialComment, "the file under the post does not say it all again")

	// Export CSV on the run says it in the same words.
	h.press(posts[0], "export_csv", queryID(t, posts[0]))
	pressed := h.slack.WaitFile(t, func(f fakeslack.File) bool { return f.Channel == ch && f.InitialComment != run.InitialComment })
	assert.Equal(t, "Here is the CSV of “"+s.Question+"”: 1,500 rows. The export was limited to 1,500 rows.", pressed.InitialComment)
}
