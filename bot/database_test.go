package bot_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
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

// TestNewDatabaseUnreachable starts a bot on a port nothing listens on.
func TestNewDatabaseUnreachable(t *testing.T) {
	t.Parallel()
	cfg := bottest.Config(t, "postgres://postgres@127.0.0.1:1/analyticsbot?sslmode=disable&connect_timeout=5", "")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := bot.New(ctx, cfg, discardLogger())
	require.Error(t, err, "new bot on a closed port")
	assert.Nil(t, b, "bot")
	assert.True(t, errors.Is(err, store.ErrUnavailable), "got %v, want an error wrapping store.ErrUnavailable", err)
	assert.Contains(t, err.Error(), "127.0.0.1:1", "the error must name the server")
}

// testDatabaseDown takes the database away from running bots, through a TCP
// proxy the test controls: connections drop and new ones are refused, as
// when the server goes down.
func testDatabaseDown(t *testing.T, e *testEnv) {
	t.Run("after answering", func(t *testing.T) {
		t.Parallel()
		p := storetest.NewProxy(t, e.url)
		b := newBot(t, e, script(), func(c *bot.Config) { c.DatabaseURL = p.URL() })
		thread := bot.NewThreadID()
		first, _ := ask(t, b, thread, "How many games were released in 2018?")
		require.Empty(t, first.ErrorKind, "first question through the proxy: %s", first.ErrorDetail)

		p.Stop()
		s, res := ask(t, b, thread, "How many games were released in 2017?")
		// The query fails first: the backend's database is the bot's own.
		assert.Equal(t, nodes.ErrWarehouseDown, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
		assert.Contains(t, s.ResponseText, "I can't reach the database right now", "reply")
		assert.NotContains(t, res.Path(), nodes.NodeInterpret, "path")
		assert.Empty(t, s.Result.Rows, "rows")

		b.Cache().Forget()
		csv, _ := ask(t, b, thread, "export as csv")
		assert.Equal(t, nodes.ErrDatabaseDown, csv.ErrorKind, "export error kind (detail %s)", csv.ErrorDetail)
		assert.Empty(t, csv.CSVContent, "csv")

		p.Restart(t)
		again, _ := ask(t, b, thread, "How many games were released in 2017?")
		require.Empty(t, again.ErrorKind, "after the database came back: %s", again.ErrorDetail)
		assert.Equal(t, [][]any{{int64(games2017)}}, again.Result.Rows, "rows after the database came back")
	})

	t.Run("pool closed", func(t *testing.T) {
		t.Parallel()
		b := newBot(t, e, script())
		thread := bot.NewThreadID()
		first, _ := ask(t, b, thread, "How many games were released in 2018?")
		require.Empty(t, first.ErrorKind, "first question: %s", first.ErrorDetail)

		b.Close()
		s, _ := ask(t, b, thread, "How many games were released in 2017?")
		assert.Equal(t, nodes.ErrWarehouseDown, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
		assert.Contains(t, s.ResponseText, "I can't reach the database right now", "reply")
	})

	t.Run("before the schema was read", func(t *testing.T) {
		t.Parallel()
		p := storetest.NewProxy(t, e.url)
		// No examples: the start checks an examples file's queries,
		// which reads the schema.
		b := newBot(t, e, script(), func(c *bot.Config) { c.DatabaseURL, c.SQLExamples = p.URL(), os.DevNull })
		p.Stop()

		s, res := ask(t, b, bot.NewThreadID(), "How many games were released in 2018?")
		assert.Equal(t, nodes.ErrWarehouseDown, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
		assert.Contains(t, s.ResponseText, "I can't reach the database right now", "reply")
		assert.Equal(t, []string{
			nodes.NodeRouteIntent, nodes.NodeResolveContext, nodes.NodeGenerateQuery,
			nodes.NodeHandleError, nodes.NodeSaveTurn,
		}, res.Path(), "path")
		assert.Contains(t, strings.Join(s.Notes, "\n"), "saving the turn failed", "notes")
	})
}

// A bot started on a database a migration behind (a deploy that skipped
// `analyticsbot migrate`) says so at start, naming the command; on a
// database migrated whole it says nothing of it.
func TestNewWarnsOfPendingMigrations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	start := func() string {
		t.Helper()
		var logs syncBuffer
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		b, err := bot.New(ctx, bottest.Config(t, e.url, script()), slog.New(slog.NewTextHandler(&logs, nil)))
		require.NoError(t, err, "a bot starts all the same")
		b.Close()
		return logs.String()
	}
	assert.NotContains(t, start(), "lacks migrations", "migrated whole")

	_, err := e.admin.Pool().Exec(t.Context(), `DELETE FROM goose_db_version WHERE version_id = (SELECT max(version_id) FROM goose_db_version)`)
	require.NoError(t, err)
	logs := start()
	assert.Contains(t, logs, "run `analyticsbot migrate`")
	assert.Contains(t, logs, "pending=1")
}
