package bot_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// testActionsWithoutModel exports the CSV and shows the SQL of an answer,
// by phrase and by button, from the cache and after the cache lost the
// result; none of it may call the model.
func testActionsWithoutModel(t *testing.T, e *testEnv) {
	type trigger struct {
		text   string // a message, or
		action string // a button press with the answer's query id
	}
	tests := []struct {
		name       string
		trigger    trigger
		clearCache bool
		wantNode   string
	}{
		{name: "csv by phrase, cached", trigger: trigger{text: "export as csv"}, wantNode: nodes.NodeExportCSV},
		{name: "csv by phrase, cache cleared", trigger: trigger{text: "export as csv"}, clearCache: true, wantNode: nodes.NodeExportCSV},
		{name: "csv by button, cached", trigger: trigger{action: string(nodes.IntentExportCSV)}, wantNode: nodes.NodeExportCSV},
		{name: "csv by button, cache cleared", trigger: trigger{action: string(nodes.IntentExportCSV)}, clearCache: true, wantNode: nodes.NodeExportCSV},
		{name: "sql by phrase, cached", trigger: trigger{text: "show me the sql"}, wantNode: nodes.NodeShowSQL},
		{name: "sql by phrase, cache cleared", trigger: trigger{text: "show me the sql"}, clearCache: true, wantNode: nodes.NodeShowSQL},
		{name: "sql by button, cached", trigger: trigger{action: string(nodes.IntentShowSQL)}, wantNode: nodes.NodeShowSQL},
		{name: "sql by button, cache cleared", trigger: trigger{action: string(nodes.IntentShowSQL)}, clearCache: true, wantNode: nodes.NodeShowSQL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBot(t, e, script())
			thread := bot.NewThreadID()
			answer, _ := ask(t, b, thread, "How many games were released in 2018?")
			require.Empty(t, answer.ErrorKind, "question: %s", answer.ErrorDetail)
			queryID := answer.QueryID
			callsBefore := len(b.Scripted.Calls())

			if tt.clearCache {
				b.Cache().Forget()
				_, err := e.admin.Pool().Exec(context.Background(), "DELETE FROM query_results WHERE thread_id = $1", thread)
				require.NoError(t, err, "clear the cached results")
			}

			var (
				s   *nodes.State
				res workflow.Result
			)
			if tt.trigger.action != "" {
				s, res = press(t, b, thread, tt.trigger.action, queryID)
			} else {
				s, res = ask(t, b, thread, tt.trigger.text)
			}

			require.Empty(t, s.ErrorKind, "got error %s (%s), want the %s", s.ErrorKind, s.ErrorDetail, tt.wantNode)
			assert.Equal(t, []string{nodes.NodeRouteIntent, tt.wantNode, nodes.NodeSaveTurn}, res.Path(), "path")
			assert.Zero(t, s.LLMCalls, "model calls in the state")
			assert.Equal(t, callsBefore, len(b.Scripted.Calls()), "model calls received")
			assert.Equal(t, queryID, s.QueryID, "query id")
			assert.Equal(t, sql2018, s.Query.Text, "sql")

			switch tt.wantNode {
			case nodes.NodeExportCSV:
				assert.Equal(t, "games\n"+strconv.Itoa(games2018)+"\n", string(s.CSVContent), "csv")
				assert.True(t, strings.HasSuffix(s.CSVFilename, "-"+queryID+".csv"), "got filename %q, want it to end in -%s.csv", s.CSVFilename, queryID)
				assert.Equal(t, "How many games were released in 2018?", s.CSVTitle, "csv title")
				if tt.clearCache {
					assert.Positive(t, s.DBTime, "a cleared cache must re-run the stored SQL")
					assert.Equal(t, 1, cachedRows(t, e, thread), "the re-run result must be cached again")
				} else {
					assert.Zero(t, s.DBTime, "a cached result must not run SQL")
				}
			case nodes.NodeShowSQL:
				assert.Empty(t, s.CSVContent, "no csv for show sql")
				assert.Contains(t, blocksJSON(t, s), `FROM analytics.apps\nWHERE release_year = 2018`, "the reply must show the SQL")
				assert.Contains(t, s.ResponseText, "How many games were released in 2018?", "the reply must name the question")
			}
		})
	}
}

// testShowSQLByKeyword picks the query a show-SQL request describes, not the
// latest one.
func testShowSQLByKeyword(t *testing.T, e *testEnv) {
	b := newBot(t, e, script())
	thread := bot.NewThreadID()
	publishers, _ := ask(t, b, thread, "Which publishers released the most games?")
	require.Empty(t, publishers.ErrorKind, "publishers question: %s", publishers.ErrorDetail)
	require.Contains(t, publishers.Query.Text, "analytics.publishers", "publishers sql")
	latest, _ := ask(t, b, thread, "How many games were released in 2018?")
	require.Empty(t, latest.ErrorKind, "2018 question: %s", latest.ErrorDetail)
	callsBefore := len(b.Scripted.Calls())

	s, _ := ask(t, b, thread, "Show the SQL for the publishers query")
	require.Empty(t, s.ErrorKind, "got error %s (%s), want the SQL", s.ErrorKind, s.ErrorDetail)
	assert.Equal(t, publishers.Query.Text, s.Query.Text, "sql")
	assert.Equal(t, publishers.QueryID, s.QueryID, "query id")
	assert.Contains(t, blocksJSON(t, s), "JOIN analytics.publishers", "the reply must show the publishers SQL")
	assert.NotContains(t, blocksJSON(t, s), "release_year = 2018", "the reply must not show the latest SQL")
	assert.Zero(t, s.LLMCalls, "model calls")
	assert.Equal(t, callsBefore, len(b.Scripted.Calls()), "model calls received")
}

// testCommandWordsInQuestions asks questions that use a button's words
// ("export"), alone in a thread and after an answer: each is a question for
// the model, never a press of Export CSV.
func testCommandWordsInQuestions(t *testing.T, e *testEnv) {
	const question = "Which publishers export the most games in 2018?"
	tests := []struct {
		name  string
		first string // a question asked before in the thread; "" for none
	}{
		{name: "new thread"},
		{name: "after an answer", first: "How many games were released in 2018?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBot(t, e, script())
			thread := bot.NewThreadID()
			if tt.first != "" {
				first, _ := ask(t, b, thread, tt.first)
				require.Empty(t, first.ErrorKind, "first question: %s", first.ErrorDetail)
			}
			callsBefore := len(b.Scripted.Calls())

			s, res := ask(t, b, thread, question)

			require.Empty(t, s.ErrorKind, "got error %s (%s): %q", s.ErrorKind, s.ErrorDetail, s.ResponseText)
			var steps []string
			for _, c := range b.Scripted.Calls()[callsBefore:] {
				steps = append(steps, string(c.Step))
			}
			assert.Equal(t, []string{"classify", "generate_sql", "interpret"}, steps, "model calls for the question")
			assert.Contains(t, res.Path(), nodes.NodeGenerateQuery, "path")
			assert.NotContains(t, res.Path(), nodes.NodeExportCSV, "path")
			assert.Contains(t, s.Query.Text, "analytics.publishers", "the query answers the question")
			assert.False(t, s.HasCSV(), "no CSV")
			assert.NotContains(t, s.ResponseText, "couldn't find an earlier result", "reply")
		})
	}
}

// testPressBadInput sends button payloads no button of the bot makes: they
// are refused before the workflow runs.
func testPressBadInput(t *testing.T, e *testEnv) {
	b := newBot(t, e, script())
	thread := bot.NewThreadID()
	answer, _ := ask(t, b, thread, "How many games were released in 2018?")
	require.Empty(t, answer.ErrorKind, "question: %s", answer.ErrorDetail)
	callsBefore := len(b.Scripted.Calls())

	// The reasons are what the web API, the terminal and MCP show: plain
	// sentences that quote at most 40 characters of what was sent.
	const actions = "the actions are export_csv, show_sql, refresh, explain, schedule, schedule_preset, feedback_up, feedback_down, " +
		"verify_example, schedule_save, schedule_cancel, schedule_pause, schedule_resume, schedule_delete"
	huge := strings.Repeat("a", 10<<10)
	clipped := `"` + strings.Repeat("a", 39) + `…"`
	everyMinute := strings.Repeat("1,", 59) + "0 * * * *" // valid, and too often
	tests := []struct {
		name   string
		action string
		value  string
		want   string
	}{
		{name: "unknown action", action: "delete_everything", value: answer.QueryID,
			want: `unknown action "delete_everything"; ` + actions},
		{name: "empty action", action: "", value: answer.QueryID, want: `unknown action ""; ` + actions},
		{name: "long action", action: huge, value: answer.QueryID, want: "unknown action " + clipped + "; " + actions},
		{name: "sql injection", action: string(nodes.IntentExportCSV), value: "'; DROP TABLE x",
			want: `"'; DROP TABLE x" is not a query id (8 hex characters)`},
		{name: "not hex", action: string(nodes.IntentShowSQL), value: "zzzz", want: `"zzzz" is not a query id (8 hex characters)`},
		{name: "too long", action: string(nodes.IntentExportCSV), value: answer.QueryID + "00",
			want: `"` + answer.QueryID + `00" is not a query id (8 hex characters)`},
		{name: "upper case hex", action: string(nodes.IntentExportCSV), value: "ABCDEF12",
			want: `"ABCDEF12" is not a query id (8 hex characters)`},
		{name: "long value", action: string(nodes.IntentExportCSV), value: huge, want: clipped + " is not a query id (8 hex characters)"},
		{name: "long value cut between characters", action: string(nodes.IntentShowSQL), value: strings.Repeat("é", 100),
			want: `"` + strings.Repeat("é", 39) + `…" is not a query id (8 hex characters)`},
		{name: "control characters escaped", action: string(nodes.IntentShowSQL), value: "\x1b[2J",
			want: `"\x1b[2J" is not a query id (8 hex characters)`},
		{name: "long schedule id", action: nodes.ActionSchedulePause, value: huge, want: clipped + " is not a schedule id (8 hex characters)"},
		{name: "preset without a schedule", action: nodes.ActionSchedulePreset, value: answer.QueryID,
			want: `"` + answer.QueryID + `" is not a query id followed by a schedule`},
		{name: "long preset", action: nodes.ActionSchedulePreset, value: huge, want: clipped + " is not a query id followed by a schedule"},
		{name: "preset not cron", action: nodes.ActionSchedulePreset, value: answer.QueryID + " every 5m",
			want: "“every 5m” has 2 fields, but a cron schedule has 5: minute, hour, day of the month, month and day of the week, e.g. “0 9 * * 1”"},
		{name: "preset bad field", action: nodes.ActionSchedulePreset, value: answer.QueryID + " 0 9 * * 8",
			want: "“8” is not a valid day of the week in “0 9 * * 8”: days of the week run from 0 (Sunday) to 6 (Saturday), or sun to sat"},
		{name: "preset long spec", action: nodes.ActionSchedulePreset, value: answer.QueryID + " " + strings.Repeat("0 ", 5000),
			want: `"` + strings.Repeat("0 ", 19) + `0…" is not a cron schedule: give five cron fields (minute, hour, day of the month, month, day of the week), e.g. “0 9 * * 1”`},
		{name: "preset too often", action: nodes.ActionSchedulePreset, value: answer.QueryID + "  * *  * * *",
			want: `schedules run at most once every 5 minutes; "* * * * *" runs more often`},
		{name: "preset long and too often", action: nodes.ActionSchedulePreset, value: answer.QueryID + " " + everyMinute,
			want: `schedules run at most once every 5 minutes; "` + strings.Repeat("1,", 19) + `1…" runs more often`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, err := b.PressState(context.Background(), bot.Message{ThreadID: thread, UserID: "U1"}, tt.action, tt.value)
			require.True(t, errors.Is(err, bot.ErrBadAction), "got error %v, want bot.ErrBadAction", err)
			assert.Nil(t, s, "state")
			assert.Equal(t, tt.want, bot.BadActionReason(err), "reason")
		})
	}
	t.Run("note on a long value", func(t *testing.T) {
		_, err := b.Note(context.Background(), bot.Message{ThreadID: thread, UserID: "U1"}, huge, "wrong year")
		require.True(t, errors.Is(err, bot.ErrBadAction), "got error %v, want bot.ErrBadAction", err)
		assert.Equal(t, clipped+" is not a query id (8 hex characters)", bot.BadActionReason(err), "reason")
	})
	t.Run("long schedule action", func(t *testing.T) {
		_, err := b.ManageSchedule(context.Background(), bot.Message{ThreadID: thread, UserID: "U1"}, huge, "0123abcd")
		require.True(t, errors.Is(err, bot.ErrBadAction), "got error %v, want bot.ErrBadAction", err)
		assert.Equal(t, "unknown schedule action "+clipped, bot.BadActionReason(err), "reason")
	})
	assert.Equal(t, callsBefore, len(b.Scripted.Calls()), "model calls")
	assert.Len(t, recentTurns(t, e, thread), 1, "refused presses must not be saved as turns")
	var n int
	require.NoError(t, e.admin.Pool().QueryRow(context.Background(), "SELECT count(*) FROM analytics.apps").Scan(&n), "apps still there")
	assert.Positive(t, n, "apps rows")
}

// testPressOtherThreadsQuery presses a button with a query id of another
// thread: the bot must not serve that thread's data.
func testPressOtherThreadsQuery(t *testing.T, e *testEnv) {
	b := newBot(t, e, script())
	threadA, threadB := bot.NewThreadID(), bot.NewThreadID()
	a, _ := ask(t, b, threadA, "How many games were released in 2018?")
	require.Empty(t, a.ErrorKind, "thread A question: %s", a.ErrorDetail)
	other, _ := ask(t, b, threadB, "Which publishers released the most games?")
	require.Empty(t, other.ErrorKind, "thread B question: %s", other.ErrorDetail)

	for _, action := range []string{string(nodes.IntentExportCSV), string(nodes.IntentShowSQL)} {
		t.Run(action, func(t *testing.T) {
			s, res := press(t, b, threadB, action, a.QueryID)
			assert.Equal(t, nodes.ErrNoPreviousQuery, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
			assert.Contains(t, s.ResponseText, "couldn't find", "reply")
			assert.Contains(t, res.Path(), nodes.NodeHandleError, "path")
			assert.Empty(t, s.CSVContent, "csv")
			assert.Empty(t, s.Result.Rows, "rows")
			assert.Empty(t, s.Query.Text, "sql")
			shown := s.ResponseText + blocksJSON(t, s)
			assert.NotContains(t, shown, strconv.Itoa(games2018), "thread A's count leaked into %q", shown)
			assert.NotContains(t, shown, "release_year", "thread A's SQL leaked into %q", shown)
			assert.Zero(t, s.LLMCalls, "model calls")
		})
	}
	t.Run("thread without results", func(t *testing.T) {
		s, _ := ask(t, b, bot.NewThreadID(), "export as csv")
		assert.Equal(t, nodes.ErrNoPreviousQuery, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
		assert.Contains(t, s.ResponseText, "couldn't find", "reply")
		assert.Empty(t, s.CSVContent, "csv")
		assert.Zero(t, s.LLMCalls, "model calls")
	})
	// Thread A still gets its own result.
	s, _ := press(t, b, threadA, string(nodes.IntentExportCSV), a.QueryID)
	assert.Equal(t, "games\n"+strconv.Itoa(games2018)+"\n", string(s.CSVContent), "thread A csv")
	assert.Equal(t, pgID(sql2018), s.QueryID, "thread A query id")
}
