package bot_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// testTurnRecords: a turn and its query-log row are one unit, and a
// failure's reference reaches the query log even when the failure was the
// bot's own database.
func testTurnRecords(t *testing.T, e *testEnv) {
	t.Run("the second write fails", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		// The write of the query log fails after the turn's, as when the
		// process dies between them: a trigger of this test's own refuses
		// the log of one question.
		const question = "How many games were released in 2015? (the log write fails)"
		_, err := e.admin.Pool().Exec(ctx, `
			CREATE FUNCTION analyticsbot.fail_log_write() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN
				IF NEW.question = '`+question+`' THEN
					RAISE EXCEPTION 'the query log write fails';
				END IF;
				RETURN NEW;
			END $$;
			CREATE TRIGGER fail_log_write BEFORE INSERT ON analyticsbot.chat_query_logs
				FOR EACH ROW EXECUTE FUNCTION analyticsbot.fail_log_write()`)
		require.NoError(t, err)
		t.Cleanup(func() {
			_, err := e.admin.Pool().Exec(context.Background(), `
				DROP TRIGGER fail_log_write ON analyticsbot.chat_query_logs;
				DROP FUNCTION analyticsbot.fail_log_write()`)
			assert.NoError(t, err, "drop the trigger")
		})
		b := newBot(t, e, script(`  - step: generate_sql
    match: '(?im)^Question: how many games were released in 2015'
    reply: '{"sql": "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2015", "explanation": "Counts."}'
`))
		thread := bot.NewThreadID()
		s, _ := ask(t, b, thread, question)
		require.Empty(t, s.ErrorKind, "the answer does not depend on its record: %s", s.ErrorDetail)
		assert.Contains(t, s.Notes, "saving the turn failed: record a turn of thread \""+thread+
			"\": add query log of thread \""+thread+"\": ERROR: the query log write fails (SQLSTATE P0001)", "notes")

		turns, err := e.admin.RecentTurns(ctx, thread, 10)
		require.NoError(t, err)
		logs, err := e.admin.QueryLogs(ctx, store.QueryLogFilter{ThreadID: thread, Limit: 10})
		require.NoError(t, err)
		assert.Empty(t, turns, "no turn kept without its query log")
		assert.Empty(t, logs, "and no query log")
	})

	t.Run("the database refused", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		p := storetest.NewProxy(t, e.url)
		watch := bottest.NewLogWatch(recordedLater)
		cfg := testConfig(t, e, script())
		cfg.DatabaseURL = p.URL()
		b := bottest.Start(t, cfg, slog.New(watch))
		thread := bot.NewThreadID()
		first, _ := ask(t, b, thread, "How many games were released in 2018?")
		require.Empty(t, first.ErrorKind, "first question through the proxy: %s", first.ErrorDetail)

		p.Stop()
		// Postgres keeps microseconds.
		askedAt := time.Now().Truncate(time.Microsecond)
		down, _ := ask(t, b, thread, "How many games were released in 2017?")
		answeredAt := time.Now()
		require.Equal(t, nodes.ErrWarehouseDown, down.ErrorKind, "error kind (detail %s)", down.ErrorDetail)
		require.NotEmpty(t, down.ErrorRef, "the user is given a reference")
		assert.Contains(t, down.ResponseText, "(Reference "+down.ErrorRef+".)", "reply")

		p.Restart(t)
		reconnect(t, b)
		ask(t, b, thread, "How many games were released in 2016?")
		assert.Equal(t, []string{down.ErrorRef}, recordedRefs(watch), "the log says the record was written, with its reference")

		// `analyticsbot logs --ref` reads this.
		logs, err := e.admin.QueryLogs(ctx, store.QueryLogFilter{ErrorRef: down.ErrorRef, Limit: 10})
		require.NoError(t, err)
		require.Len(t, logs, 1, "the failure's reference is in the query log once the database is back")
		assert.Equal(t, string(nodes.ErrWarehouseDown), logs[0].ErrorKind)
		assert.Equal(t, "How many games were released in 2017?", logs[0].Question)
		// docs/observability.md: written once the database is back, "at
		// their original time", not the time of the write: when the turn
		// ended, its total time (kept in milliseconds) after the message
		// arrived, not when its first write failed.
		assert.False(t, logs[0].CreatedAt.Before(askedAt) || logs[0].CreatedAt.After(answeredAt),
			"the row's time %s is the turn's, between %s and %s", logs[0].CreatedAt, askedAt, answeredAt)
		ended := down.Started.Add(logs[0].Total)
		assert.WithinDuration(t, ended, logs[0].CreatedAt, time.Millisecond,
			"the row's time is the turn's end (arrived %s, total %s)", down.Started, logs[0].Total)
		turns, err := e.admin.RecentTurns(ctx, thread, 10)
		require.NoError(t, err)
		var asked []string
		for _, turn := range turns {
			asked = append(asked, turn.UserMessage)
		}
		assert.Equal(t, []string{"How many games were released in 2018?", "How many games were released in 2017?",
			"How many games were released in 2016?"}, asked, "its turn too, in its place in the thread")
	})

	t.Run("no turn follows", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		p := storetest.NewProxy(t, e.url)
		watch := bottest.NewLogWatch(recordedLater)
		cfg := testConfig(t, e, script())
		cfg.DatabaseURL = p.URL()
		b := bottest.Start(t, cfg, slog.New(watch))
		thread := bot.NewThreadID()
		first, _ := ask(t, b, thread, "How many games were released in 2018?")
		require.Empty(t, first.ErrorKind, "first question through the proxy: %s", first.ErrorDetail)

		p.Stop()
		down, _ := ask(t, b, thread, "How many games were released in 2017?")
		require.NotEmpty(t, down.ErrorRef, "the user is given a reference")
		p.Restart(t)
		reconnect(t, b)
		// No one asks anything more: the retry in the background writes it.
		select {
		case <-watch.Seen():
		case <-time.After(time.Minute):
			t.Fatalf("the record was not written once the database was back: the log said %q", watch.Messages())
		}
		assert.Equal(t, []string{down.ErrorRef}, recordedRefs(watch), "with the reference the user was given")
		logs, err := e.admin.QueryLogs(ctx, store.QueryLogFilter{ErrorRef: down.ErrorRef, Limit: 10})
		require.NoError(t, err)
		require.Len(t, logs, 1, "the failure's reference is in the query log")
		turns, err := e.admin.RecentTurns(ctx, thread, 10)
		require.NoError(t, err)
		var asked []string
		for _, turn := range turns {
			asked = append(asked, turn.UserMessage)
		}
		assert.Equal(t, []string{"How many games were released in 2018?", "How many games were released in 2017?"}, asked,
			"and its turn")
	})

	t.Run("the bot stops before the database is back", func(t *testing.T) {
		t.Parallel()
		p := storetest.NewProxy(t, e.url)
		watch := bottest.NewLogWatch("turn record lost")
		cfg := testConfig(t, e, script())
		cfg.DatabaseURL = p.URL()
		b := bottest.Start(t, cfg, slog.New(watch))
		thread := bot.NewThreadID()
		first, _ := ask(t, b, thread, "How many games were released in 2018?")
		require.Empty(t, first.ErrorKind, "first question through the proxy: %s", first.ErrorDetail)

		p.Stop()
		down, _ := ask(t, b, thread, "How many games were released in 2017?")
		require.NotEmpty(t, down.ErrorRef, "the user is given a reference")
		b.Close()
		// Only the log on stderr has it now: it says so, with the reference.
		var lost []slog.Record
		for _, r := range watch.Records() {
			if strings.Contains(r.Message, "turn record lost") {
				lost = append(lost, r)
			}
		}
		require.Len(t, lost, 1, "the log says the record was lost: %q", watch.Messages())
		assert.Equal(t, "turn record lost: the database was still away when the bot stopped", lost[0].Message)
		assert.Equal(t, down.ErrorRef, attr(lost[0], "ref"), "with the reference the user was given")
	})
}

// recordedLater is what the log says of a turn record written once the
// bot's database was back (docs/observability.md).
const recordedLater = "turn recorded once the database was back"

// recordedRefs are the references of the records w saw written once the
// database was back.
func recordedRefs(w *bottest.LogWatch) []string {
	var refs []string
	for _, r := range w.Records() {
		if r.Message == recordedLater {
			refs = append(refs, attr(r, "ref"))
		}
	}
	return refs
}

// attr is the value of r's attribute key, as text.
func attr(r slog.Record, key string) string {
	var v string
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == key {
			v = a.Value.String()
			return false
		}
		return true
	})
	return v
}

// reconnect has the bot's pool drop the connections a proxy cut, so that
// its next write reaches the database: each failed ping discards one.
func reconnect(t *testing.T, b *bot.Bot) {
	t.Helper()
	var err error
	for range 20 {
		if err = b.DB().Pool().Ping(context.Background()); err == nil {
			return
		}
	}
	t.Fatalf("the database did not come back: %v", err)
}
