package bot_test

import (
	"context"
	"fmt"
	"net/url"
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
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// hangTimeouts are short database deadlines, so a test of a silent
// database waits seconds, not minutes; long enough for a loaded machine
// (-race) to start a bot.
func hangTimeouts(c *bot.Config) {
	c.DatabaseTimeout = time.Second
	c.Postgres.StatementTimeout = 2 * time.Second
}

// readerURL is the package database as the reader role logs in to it,
// through p when p is not nil.
func readerURL(t *testing.T, e *testEnv, p *storetest.Proxy) string {
	t.Helper()
	raw := e.url
	if p != nil {
		raw = p.URL()
	}
	u, err := url.Parse(raw)
	require.NoError(t, err)
	u.User = url.User(pgwarehouse.DefaultReaderRole)
	return u.String()
}

// askWithin asks text and fails the test when the answer takes longer
// than within: a turn held by a connection that never answers.
func askWithin(t *testing.T, b *bot.Bot, thread, text string, within time.Duration, opts ...workflow.RunOption) (*nodes.State, time.Duration) {
	t.Helper()
	type answer struct {
		s   *nodes.State
		err error
	}
	done := make(chan answer, 1)
	start := time.Now()
	go func() {
		s, _, err := b.AskState(context.Background(), bot.Message{ThreadID: thread, UserID: "U1", ChannelID: "C1", Text: text}, opts...)
		done <- answer{s, err}
	}()
	select {
	case a := <-done:
		require.NoError(t, a.err, "ask %q", text)
		took := time.Since(start)
		t.Logf("ask %q answered in %s", text, took.Round(time.Millisecond))
		return a.s, took
	case <-time.After(within):
		t.Fatalf("ask %q: no answer after %s: a round trip to a silent database has no deadline", text, within)
		return nil, 0
	}
}

// testSilentDatabase: a database that stops answering without closing
// anything (a hung proxy, a partition) holds no answer past the bound
// docs/scaling.md gives, and the user reads that the database did not
// answer in time.
func testSilentDatabase(t *testing.T, e *testEnv) {
	t.Run("the reader's connection black-holed", func(t *testing.T) {
		t.Parallel()
		p := storetest.NewProxy(t, e.url)
		b := newBot(t, e, script(), hangTimeouts, func(c *bot.Config) { c.Postgres.ReaderURL = readerURL(t, e, p) })
		thread := bot.NewThreadID()
		first, _ := ask(t, b, thread, "How many games were released in 2018?")
		require.Empty(t, first.ErrorKind, "first question through the proxy: %s", first.ErrorDetail)

		p.BlackHole()
		cfg := b.Config()
		// The context has no deadline: only the bot's own can end the wait.
		s, took := askWithin(t, b, thread, "How many games were released in 2017?", time.Minute)
		assert.Equal(t, nodes.ErrWarehouseNoAnswer, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
		assert.Contains(t, s.ResponseText, "The database did not answer in time, so I stopped waiting.", "reply")
		assert.Contains(t, s.ResponseText, "(Reference "+s.ErrorRef+".)", "reply")
		assert.Empty(t, s.Result.Rows, "rows")
		assert.LessOrEqual(t, took, cfg.SilentWait(), "the wait docs/scaling.md gives for a silent database")

		p.Restore()
		again, _ := ask(t, b, thread, "How many games were released in 2017?")
		require.Empty(t, again.ErrorKind, "after the database answers again: %s", again.ErrorDetail)
		assert.Equal(t, [][]any{{int64(games2017)}}, again.Result.Rows, "rows after the database answers again")
	})

	t.Run("new connections black-holed", func(t *testing.T) {
		t.Parallel()
		p := storetest.NewProxy(t, e.url)
		b := newBot(t, e, script(), hangTimeouts, func(c *bot.Config) { c.Postgres.ReaderURL = readerURL(t, e, p) })
		p.BlackHole() // before the reader's first connection: the connect hangs
		s, took := askWithin(t, b, bot.NewThreadID(), "How many games were released in 2018?", time.Minute)
		assert.Equal(t, nodes.ErrWarehouseNoAnswer, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
		assert.Contains(t, s.ResponseText, "The database did not answer in time", "reply")
		assert.LessOrEqual(t, took, b.Config().SilentWait(), "the wait docs/scaling.md gives for a silent database")
	})

	t.Run("the bot's own database black-holed", func(t *testing.T) {
		t.Parallel()
		p := storetest.NewProxy(t, e.url)
		b := newBot(t, e, script(), hangTimeouts, func(c *bot.Config) {
			c.DatabaseURL, c.Postgres.ReaderURL = p.URL(), readerURL(t, e, nil)
		})
		thread := bot.NewThreadID()
		first, _ := ask(t, b, thread, "How many games were released in 2018?")
		require.Empty(t, first.ErrorKind, "first question: %s", first.ErrorDetail)

		p.BlackHole()
		s, took := askWithin(t, b, thread, "How many games were released in 2017?", time.Minute)
		// Its history and its record are the bot's own; the answer is not.
		require.Empty(t, s.ErrorKind, "the answer: %s", s.ErrorDetail)
		assert.Equal(t, [][]any{{int64(games2017)}}, s.Result.Rows, "the user has the answer")
		assert.LessOrEqual(t, took, b.Config().SilentWait(), "the wait docs/scaling.md gives for a silent database")
	})

	t.Run("both databases black-holed", func(t *testing.T) {
		t.Parallel()
		p := storetest.NewProxy(t, e.url)
		b := newBot(t, e, script(), hangTimeouts, func(c *bot.Config) { c.DatabaseURL = p.URL() })
		thread := bot.NewThreadID()
		first, _ := ask(t, b, thread, "How many games were released in 2018?")
		require.Empty(t, first.ErrorKind, "first question through the proxy: %s", first.ErrorDetail)

		p.BlackHole()
		s, took := askWithin(t, b, thread, "How many games were released in 2017?", 2*time.Minute)
		assert.Equal(t, nodes.ErrWarehouseNoAnswer, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
		assert.Contains(t, s.ResponseText, "The database did not answer in time, so I stopped waiting.", "reply")
		assert.LessOrEqual(t, took, b.Config().SilentWait(), "the wait docs/scaling.md gives for a silent database")
	})

	t.Run("the turn's record black-holed", func(t *testing.T) {
		t.Parallel()
		p := storetest.NewProxy(t, e.url)
		b := newBot(t, e, script(), hangTimeouts, func(c *bot.Config) {
			c.DatabaseURL, c.Postgres.ReaderURL = p.URL(), readerURL(t, e, nil)
		})
		thread := bot.NewThreadID()
		first, _ := ask(t, b, thread, "How many games were released in 2018?")
		require.Empty(t, first.ErrorKind, "first question: %s", first.ErrorDetail)

		// The answer is decided; the database goes silent as it is saved.
		s, took := askWithin(t, b, thread, "How many games were released in 2017?", time.Minute,
			workflow.WithObserver(onNode{node: nodes.NodeSaveTurn, do: p.BlackHole}))
		require.Empty(t, s.ErrorKind, "the answer: %s", s.ErrorDetail)
		assert.Equal(t, [][]any{{int64(games2017)}}, s.Result.Rows, "the user has the answer")
		assert.LessOrEqual(t, took, b.Config().SilentWait(), "the save holds the reply no longer than docs/scaling.md says")

		p.Restore()
		reconnect(t, b)
		ask(t, b, thread, "How many games were released in 2016?")
		turns, err := e.admin.RecentTurns(context.Background(), thread, 10)
		require.NoError(t, err)
		var asked []string
		for _, turn := range turns {
			asked = append(asked, turn.UserMessage)
		}
		assert.Equal(t, []string{"How many games were released in 2018?", "How many games were released in 2017?",
			"How many games were released in 2016?"}, asked, "the turn held back is written once the database answers")
		// docs/observability.md: its query log's time is when the turn
		// ended (its total time, kept in milliseconds, after the message
		// arrived), not when its write gave up, a queryLogTimeout later.
		logs, err := e.admin.QueryLogs(context.Background(), store.QueryLogFilter{ThreadID: thread, Limit: 10})
		require.NoError(t, err)
		var late *store.QueryLog
		for i := range logs {
			if logs[i].Question == "How many games were released in 2017?" {
				late = &logs[i]
			}
		}
		require.NotNil(t, late, "the held-back turn's query log is written")
		assert.WithinDuration(t, s.Started.Add(late.Total), late.CreatedAt, time.Millisecond,
			"the late row's time is the turn's end (arrived %s, total %s)", s.Started, late.Total)
	})
}

// onNode calls do when node starts.
type onNode struct {
	node string
	do   func()
}

func (o onNode) NodeStarted(_ context.Context, n workflow.NodeInfo, _ int) {
	if n.Name == o.node {
		o.do()
	}
}

func (onNode) NodeFinished(context.Context, workflow.Step) {}

// The docs give the wait of a question on a silent database with the
// default settings: the figure the code's bound (Config.SilentWait) makes
// of them, which the tests above hold for short settings.
func TestSilentWaitDocumented(t *testing.T) {
	t.Parallel()
	cfg := bottest.Config(t, "", "")
	require.NoError(t, cfg.Check())
	wait := fmt.Sprintf("at most %d s with the defaults", int(cfg.SilentWait().Seconds()))
	statement := fmt.Sprintf("(%d s)", int(cfg.ReaderConfig().StatementBound().Seconds()))
	for _, doc := range []string{"../README.md", "../docs/scaling.md"} {
		text, err := os.ReadFile(doc)
		require.NoError(t, err)
		flat := strings.Join(strings.Fields(string(text)), " ")
		assert.True(t, strings.Contains(flat, wait), "%s must say %q", doc, wait)
	}
	scaling, err := os.ReadFile("../docs/scaling.md")
	require.NoError(t, err)
	want := "`STATEMENT_TIMEOUT` + `DATABASE_TIMEOUT` " + statement
	assert.True(t, strings.Contains(string(scaling), want), "docs/scaling.md must give the question's query's deadline: %q", want)
}
