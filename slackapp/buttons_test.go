package slackapp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

// answered asks the 2018 question by mention and returns the answer.
func answered(t *testing.T, h *harness, ch, ts string) fakeslack.Message {
	t.Helper()
	h.mention(ch, ts, "", q2018)
	return h.answerIn(ch, ts, answer18)
}

// press clicks a button of the bot's message m over Socket Mode.
func (h *harness) press(m fakeslack.Message, actionID, value string) {
	h.t.Helper()
	h.send(fakeslack.Envelope{Type: "interactive", Payload: h.slack.BlockAction(user, m.Channel, m.TS, m.ThreadTS, actionID, value)})
}

func TestExportCSVUploadsTheResultIntoTheThread(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch, ts := channelID("CEXPORT01"), "1700000010.000100"
	m := answered(t, h, ch, ts)
	calls := h.modelCalls()

	h.press(m, "export_csv", queryID(t, m))
	f := h.slack.WaitFile(t, func(f fakeslack.File) bool { return f.Channel == ch })
	assert.Equal(t, csv2018, string(f.Content), "the file holds the result as CSV")
	assert.Equal(t, ts, f.ThreadTS, "uploaded into the answer's thread")
	assert.Equal(t, q2018, f.Title, "titled from the question")
	assert.True(t, strings.HasSuffix(f.Name, ".csv"), "file name %q", f.Name)
	assert.Contains(t, f.InitialComment, "1 row")
	assert.Equal(t, calls, h.modelCalls(), "export makes no model call")
	assert.Len(t, h.slack.Calls("files.getUploadURLExternal"), 1, "Slack's external upload flow")
	assert.Len(t, h.slack.Calls("files.completeUploadExternal"), 1)
	assert.Empty(t, h.slack.Calls("files.upload"), "the retired files.upload is never used")
}

func TestExportCSVAfterTheCacheForgot(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch, ts := channelID("CEXPORT02"), "1700000011.000100"
	m := answered(t, h, ch, ts)
	calls := h.modelCalls()

	// As after a restart with the stored result gone: the stored SQL is
	// run again.
	_, err := h.bot.DB().Pool().Exec(context.Background(), `DELETE FROM query_results WHERE thread_id = $1`, threadID(ch, ts))
	require.NoError(t, err)
	h.bot.Cache().Forget()

	h.press(m, "export_csv", queryID(t, m))
	f := h.slack.WaitFile(t, func(f fakeslack.File) bool { return f.Channel == ch })
	assert.Equal(t, csv2018, string(f.Content))
	assert.Equal(t, calls, h.modelCalls(), "re-running stored SQL makes no model call")
}

func TestShowSQLPostsTheQueryInTheThread(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch, ts := channelID("CSHOWSQL1"), "1700000012.000100"
	m := answered(t, h, ch, ts)
	calls := h.modelCalls()

	h.press(m, "show_sql", queryID(t, m))
	got := h.answerIn(ch, ts, "FROM analytics.apps\nWHERE release_year = 2018")
	assert.Contains(t, strings.Join(got.BlockTexts(), "\n"), "```", "the SQL is a code block")
	assert.False(t, got.Ephemeral, "the SQL is posted for the whole thread")
	assert.Equal(t, calls, h.modelCalls(), "show SQL makes no model call")
}

func TestUntrustedButtonPayloads(t *testing.T) {
	t.Parallel()
	h := start(t)
	chA, tsA := channelID("CBUTTONSA"), "1700000013.000100"
	chB, tsB := channelID("CBUTTONSB"), "1700000013.000500"
	a := answered(t, h, chA, tsA)
	answered(t, h, chB, tsB) // thread B asks nothing about A's query
	bThread := h.threadMessages(chB, tsB)[0]
	calls := h.modelCalls()
	tests := []struct {
		name          string
		msg           fakeslack.Message
		action, value string
		want          string
	}{
		{name: "unknown action", msg: a, action: "drop_table", value: queryID(t, a), want: "isn't one of mine"},
		{name: "malformed value", msg: a, action: "export_csv", value: "'; DROP TABLE x; --", want: "isn't one of mine"},
		{name: "huge value", msg: a, action: "show_sql", value: strings.Repeat("f", 2000), want: "isn't one of mine"},
		{name: "another thread's query", msg: bThread, action: "show_sql", value: "0badc0de", want: "find"},
	}
	for _, tt := range tests {
		before := len(h.slack.Messages())
		h.press(tt.msg, tt.action, tt.value)
		got := h.slack.WaitMessage(t, tt.name+": an ephemeral error", func(m fakeslack.Message) bool {
			return m.Ephemeral && m.User == user && m.Channel == tt.msg.Channel && strings.Contains(strings.ToLower(m.Text), tt.want)
		})
		assert.Equal(t, tt.msg.ThreadTS, got.ThreadTS, "%s: the error shows in the thread", tt.name)
		for _, m := range h.slack.Messages()[before:] {
			assert.True(t, m.Ephemeral, "%s: nothing public is posted, got %q", tt.name, m.Text)
		}
	}
	assert.Empty(t, h.slack.Files(), "no file was uploaded")
	assert.Equal(t, calls, h.modelCalls(), "buttons never call the model")
}

// An answer cut at MAX_ROWS still exports every row: the file is streamed
// from the database and uploaded from disk.
func TestExportCSVOfACutResultUploadsEveryRow(t *testing.T) {
	t.Parallel()
	h := start(t, withBotConfig(func(c *bot.Config) { c.MaxRows = 3 }))
	ch, ts := channelID("CEXPFULL"), "1700000014.000100"
	h.mention(ch, ts, "", "Which publishers released the most games?")
	m := h.answerIn(ch, ts, "result limited to 3 rows")

	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "analyticsbot-export-*.csv"))
	h.press(m, "export_csv", queryID(t, m))
	f := h.slack.WaitFile(t, func(f fakeslack.File) bool { return f.Channel == ch })
	h.waitJobs(2) // the mention and the press
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "analyticsbot-export-*.csv"))
	assert.Equal(t, before, after, "the temporary export file is removed after the upload")
	lines := strings.Split(strings.TrimSpace(string(f.Content)), "\n")
	assert.Equal(t, "publisher,games", lines[0], "header")
	assert.Len(t, lines, 11, "the header and all 10 rows of the query, not the 3 the answer showed")
	assert.Contains(t, f.InitialComment, "10 rows")
}

// With RESULT_FRESHNESS, the same question asked again in another thread
// is answered from the first result, saying when the data is from, with a
// Refresh button; pressing it posts a fresh answer in the thread without
// the model.
func TestRefreshInSlack(t *testing.T) {
	t.Parallel()
	h := start(t, withBotConfig(func(c *bot.Config) { c.ResultFreshness = 10 * time.Minute }))
	ch := channelID("CREFRESH")
	answered(t, h, ch, "1700000901.000100")

	again := answered(t, h, ch, "1700000902.000100")
	texts := strings.Join(again.BlockTexts(), "\n")
	assert.Regexp(t, `data as of \d{4}-\d\d-\d\d \d\d:\d\d UTC`, texts, "the answer says when its data is from")
	assert.Contains(t, string(again.Blocks), `"action_id":"refresh"`, "a Refresh button")

	calls := h.modelCalls()
	h.press(again, "refresh", queryID(t, again))
	fresh := h.answerIn(ch, "1700000902.000100", "Games: *8,160*") // the fresh answer, said without the model
	assert.False(t, fresh.Ephemeral, "the fresh answer is posted for the whole thread")
	assert.NotContains(t, strings.Join(fresh.BlockTexts(), "\n"), "data as of", "it ran now")
	assert.Equal(t, calls, h.modelCalls(), "Refresh makes no model call")
}

// An upload whose middle step fails is run again as a whole (docs/slack.md,
// Reliability): the file cannot be sent twice to one upload URL, so the
// retry asks for a new one, and the thread gets one file.
func TestExportCSVRetriesTheWholeUpload(t *testing.T) {
	t.Parallel()
	h := start(t)
	ch, ts := channelID("CEXPRETRY"), "1700000015.000100"
	m := answered(t, h, ch, ts)
	h.slack.FailNext("upload", 1, 503)

	h.press(m, "export_csv", queryID(t, m))
	f := h.slack.WaitFile(t, func(f fakeslack.File) bool { return f.Channel == ch })
	h.waitJobs(2) // the mention and the press

	assert.Equal(t, csv2018, string(f.Content), "the file holds the result")
	assert.Len(t, h.slack.Calls("files.getUploadURLExternal"), 2, "a new upload URL for the second attempt")
	uploads := h.slack.Calls("upload")
	require.Len(t, uploads, 2, "the failed upload and the new one")
	assert.Equal(t, []int{503, 200}, []int{uploads[0].Status, uploads[1].Status})
	assert.NotEqual(t, uploads[0].Args.Get("file_id"), uploads[1].Args.Get("file_id"), "each attempt uploads to its own URL")
	assert.Len(t, h.slack.Calls("files.completeUploadExternal"), 1)
	var files int
	for _, f := range h.slack.Files() {
		if f.Channel == ch {
			files++
		}
	}
	assert.Equal(t, 1, files, "one file in the thread")
}

// A double click on a button is two presses with two trigger ids: Export
// CSV uploads one file, a follow-up button asks its question once. The
// same button pressed again pressRepeat later is pressed again: a second
// file.
func TestButtonPressedTwiceAtOnceRepliesOnce(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	h := start(t, withApp(func(a *App) { a.clock = clock }))
	ch, ts := channelID("CTWICE01"), "1700000012.000100"
	m := answered(t, h, ch, ts)
	h.waitJobs(1)
	files := func() int {
		n := 0
		for _, f := range h.slack.Files() {
			if f.Channel == ch {
				n++
			}
		}
		return n
	}

	jobs := h.jobs.Load()
	h.press(m, "export_csv", queryID(t, m))
	clock.Advance(pressRepeat - time.Second)
	h.press(m, "export_csv", queryID(t, m))
	h.waitJobs(jobs + 2)
	assert.Equal(t, 1, files(), "one file for a double click")

	clock.Advance(pressRepeat)
	h.press(m, "export_csv", queryID(t, m))
	h.waitJobs(jobs + 3)
	assert.Equal(t, 2, files(), "pressed again later, exported again")

	// An upload that failed is no double click's first: pressed again at
	// once, it is tried again.
	clock.Advance(pressRepeat)
	jobs = h.jobs.Load()
	h.slack.ErrorNext("files.getUploadURLExternal", 1, "invalid_auth") // refused: not retried
	h.press(m, "export_csv", queryID(t, m))
	h.waitJobs(jobs + 1)
	require.Equal(t, 2, files(), "the upload failed")
	h.press(m, "export_csv", queryID(t, m))
	h.waitJobs(jobs + 2)
	assert.Equal(t, 3, files(), "pressed again after a failed upload, exported")

	// A button whose reply is for the presser alone (a rating) is
	// answered each time.
	jobs = h.jobs.Load()
	h.press(m, "feedback_up", queryID(t, m))
	h.press(m, "feedback_up", queryID(t, m))
	h.waitJobs(jobs + 2)
	var rated []string
	for _, msg := range h.slack.Messages() {
		if msg.Ephemeral && msg.Channel == ch && strings.Contains(msg.Text, "👍") {
			rated = append(rated, msg.Text)
		}
	}
	assert.Equal(t, []string{"Thanks for the 👍. I'll learn from this answer for similar questions.",
		"You already gave this answer a 👍; nothing changed."}, rated, "each rating press is answered")

	const next = "How many games were released per year?"
	buttons := askButtons(t, m)
	require.Contains(t, buttons, next)
	jobs = h.jobs.Load()
	h.press(m, buttons[next], next)
	h.press(m, buttons[next], next)
	h.waitJobs(jobs + 2)
	var asked int
	for _, msg := range h.threadMessages(ch, ts) {
		if strings.Contains(msg.Text, "asked: "+next) {
			asked++
		}
	}
	assert.Equal(t, 1, asked, "the follow-up is asked once")
}
