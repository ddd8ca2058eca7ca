package bot_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
)

// testRowScoping: a table whose row-level security policy keeps each
// person to their own rows (the recipe of docs/security.md: the signed
// identity), read through the bot. The query tries to widen itself with
// OR 1 = 1, which the guard must accept (it is valid, read-only SQL): only
// the database can keep the answer to the asker's rows. In a shared
// thread, a second person's Export CSV of the first person's answer is run
// again for them, never served from the first person's cached rows. A
// query that claims to be someone else with set_config is refused by the
// guard, and with the guard off reads the asker's rows at most.
func testRowScoping(t *testing.T, e *testEnv) {
	ctx := context.Background()
	_, err := e.admin.Pool().Exec(ctx, `
		CREATE TABLE IF NOT EXISTS analytics.scoped_orders (order_id int, customer_email text, amount int);
		TRUNCATE analytics.scoped_orders;
		INSERT INTO analytics.scoped_orders VALUES
			(1, 'ana@example.com', 10), (2, 'ana@example.com', 20), (3, 'bob@example.com', 300);
		GRANT SELECT ON analytics.scoped_orders TO analyticsbot_reader;
		ALTER TABLE analytics.scoped_orders ENABLE ROW LEVEL SECURITY;
		DROP POLICY IF EXISTS own_orders ON analytics.scoped_orders;
		CREATE POLICY own_orders ON analytics.scoped_orders FOR SELECT
			USING (customer_email = (SELECT analyticsbot_identity.user_email()))`)
	require.NoError(t, err)
	rules := script(`
  - step: generate_sql
    match: '(?im)^Question: .*my orders'
    reply: '{"sql": "SELECT order_id, customer_email, amount FROM analytics.scoped_orders WHERE amount > 0 OR 1 = 1 ORDER BY order_id", "assumptions": [], "explanation": "Lists orders."}'
`, bottest.ForgeryRules("analytics.scoped_orders", "bob@example.com"))
	b := newBot(t, e, rules)
	ask := func(b *bot.Bot, thread, user, email, text string) *nodes.State {
		t.Helper()
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		s, _, err := b.AskState(ctx, bot.Message{ThreadID: thread, UserID: user, Email: email, ChannelID: "C1", Text: text})
		require.NoError(t, err)
		return s
	}
	askAs := func(thread, user, email string) *nodes.State {
		t.Helper()
		s := ask(b, thread, user, email, "Show my orders")
		require.Empty(t, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
		return s
	}
	ids := func(s *nodes.State) []any {
		var out []any
		for _, r := range s.Result.Rows {
			out = append(out, r[0])
		}
		return out
	}

	thread := bot.NewThreadID()
	ana := askAs(thread, "UANA", "Ana@Example.com")
	assert.Equal(t, []any{int64(1), int64(2)}, ids(ana), "Ana sees her two orders, OR 1 = 1 notwithstanding")
	bob := askAs(bot.NewThreadID(), "UBOB", "bob@example.com")
	assert.Equal(t, []any{int64(3)}, ids(bob), "Bob sees his one")
	nobody := askAs(bot.NewThreadID(), "web", "")
	assert.Empty(t, nobody.Result.Rows, "without an address, the policy matches no row")

	// Bob presses Export CSV under Ana's answer in her thread.
	pctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	s, _, err := b.PressState(pctx, bot.Message{ThreadID: thread, UserID: "UBOB", Email: "bob@example.com", ChannelID: "C1"},
		string(nodes.IntentExportCSV), ana.QueryID)
	require.NoError(t, err)
	require.Empty(t, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
	csv := exportedCSV(t, s)
	assert.Contains(t, csv, "bob@example.com", "Bob's export is run for Bob")
	assert.NotContains(t, csv, "ana@example.com", "Ana's cached rows are never Bob's")

	// Ana's own export may come from her cached result.
	s, _, err = b.PressState(pctx, bot.Message{ThreadID: thread, UserID: "UANA", Email: "ana@example.com", ChannelID: "C1"},
		string(nodes.IntentExportCSV), ana.QueryID)
	require.NoError(t, err)
	csv = exportedCSV(t, s)
	assert.Equal(t, 2, strings.Count(csv, "ana@example.com"), "Ana's export has her two orders:\n%s", csv)

	// Bob asks the same in Ana's thread (the same SQL: the database scopes
	// it), then ten more questions, which push both results out of the
	// thread's cache. Ana exports her answer: it is run again for her and
	// cached. Bob exports his.
	bobs := ask(b, thread, "UBOB", "bob@example.com", "Show my orders")
	require.Equal(t, ana.QueryID, bobs.QueryID, "one query, one id")
	for year := 2008; year < 2018; year++ {
		ask(b, thread, "UBOB", "bob@example.com", "How many games were released in "+strconv.Itoa(year)+"?")
	}
	s, _, err = b.PressState(pctx, bot.Message{ThreadID: thread, UserID: "UANA", Email: "ana@example.com", ChannelID: "C1"},
		string(nodes.IntentExportCSV), ana.QueryID)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(exportedCSV(t, s), "ana@example.com"), "Ana's export has her two orders")
	s, _, err = b.PressState(pctx, bot.Message{ThreadID: thread, UserID: "UBOB", Email: "bob@example.com", ChannelID: "C1"},
		string(nodes.IntentExportCSV), bobs.QueryID)
	require.NoError(t, err)
	csv = exportedCSV(t, s)
	assert.NotContains(t, csv, "ana@example.com", "Bob's export of his own answer never holds Ana's rows:\n%s", csv)

	// Ana's own export of a result run for her comes from her cached
	// rows, without a query.
	fresh := askAs(bot.NewThreadID(), "UANA", "ana@example.com")
	s, _, err = b.PressState(pctx, bot.Message{ThreadID: fresh.ThreadTS, UserID: "UANA", Email: "ana@example.com", ChannelID: "C1"},
		string(nodes.IntentExportCSV), fresh.QueryID)
	require.NoError(t, err)
	assert.Zero(t, s.DBTime, "Ana's own cached rows: no query run")
	assert.Equal(t, 2, strings.Count(exportedCSV(t, s), "ana@example.com"))

	// With RESULT_FRESHNESS, Bob's recent result answers his question in
	// Ana's thread, and is kept there under the query id her answer has.
	// Ana's next question, anywhere, is never answered from those rows.
	rb := newBot(t, e, rules, func(c *bot.Config) { c.ResultFreshness = 10 * time.Minute })
	shared := bot.NewThreadID()
	ask(rb, shared, "UANA", "ana@example.com", "Show my orders")
	ask(rb, bot.NewThreadID(), "UBOB", "bob@example.com", "Show my orders")
	reused := ask(rb, shared, "UBOB", "bob@example.com", "Show my orders")
	require.False(t, reused.DataAsOf.IsZero(), "Bob's question is answered from his recent result")
	require.Equal(t, []any{int64(3)}, ids(reused))
	for _, thread := range []string{bot.NewThreadID(), shared} {
		again := ask(rb, thread, "UANA", "ana@example.com", "Show my orders")
		assert.Equal(t, []any{int64(1), int64(2)}, ids(again), "Ana's answer holds her orders, never Bob's")
	}

	// Ana's queries claim to be Bob.
	for i := range bottest.Forgeries() {
		s := ask(b, bot.NewThreadID(), "UANA", "ana@example.com", bottest.ForgeryQuestion(i))
		assert.Equal(t, nodes.ErrUnsafeQuery, s.ErrorKind, "%s: the guard refuses set_config (detail %s)", bottest.ForgeryQuestion(i), s.ErrorDetail)
		assert.Empty(t, s.Result.Rows)
	}
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte("policies:\n  - name: all\n    tables: [\"analytics.*\"]\ndefault: all\n"), 0o600))
	cfg := testConfig(t, e, rules)
	cfg.AccessFile = path
	alone := bottest.StartWithoutGuard(t, cfg, discardLogger())
	for i := range bottest.Forgeries() {
		s := ask(alone, bot.NewThreadID(), "UANA", "ana@example.com", bottest.ForgeryQuestion(i))
		require.Empty(t, s.ErrorKind, "%s runs without the guard (detail %s)", bottest.ForgeryQuestion(i), s.ErrorDetail)
		assert.Subset(t, []any{int64(1), int64(2)}, ids(s), "%s: Ana's rows at most, never Bob's", bottest.ForgeryQuestion(i))
	}
	assert.Equal(t, []any{int64(1), int64(2)}, ids(ask(alone, bot.NewThreadID(), "UANA", "ana@example.com", "Show my orders")),
		"without the guard, as the policy's role, Ana still reads her orders")
}

// exportedCSV reads the CSV an Export CSV press produced, from memory or
// its file.
func exportedCSV(t *testing.T, s *nodes.State) string {
	t.Helper()
	require.True(t, s.HasCSV(), "the press produced a CSV")
	defer s.RemoveCSVFile()
	f, _, err := s.OpenCSV()
	require.NoError(t, err)
	defer f.Close()
	data, err := io.ReadAll(f)
	require.NoError(t, err)
	return string(data)
}
