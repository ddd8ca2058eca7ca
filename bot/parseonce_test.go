package bot_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/warehousetest"
)

// A new question's query is read once, by the guard in Check: the id its
// result is cached and answered under, the dataset key that finds a recent
// result and the fingerprint that finds its verified example come with
// the checked query, so nothing after Check parses it again.
func TestNewQuestionParsesItsQueryOnce(t *testing.T) {
	e := newEnv(t)
	cfg := bottest.Config(t, e.url, "")
	cfg.ResultFreshness = time.Hour // the dataset key is looked up too
	ctx := context.Background()
	db, err := store.Open(ctx, cfg.DatabaseURL, store.WithSchema(cfg.BotSchema))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	pg := pgwarehouse.New(pgwarehouse.Config{ExecConfig: cfg.ReaderConfig()})
	t.Cleanup(pg.Close)
	counting := &warehousetest.Counting{Backend: pg}
	bt, err := bot.NewWithBackend(cfg, db, counting, bottest.Discard())
	require.NoError(t, err)
	t.Cleanup(bt.Close)

	for _, question := range demo.Questions()[:3] {
		counting.Checks.Store(0)
		counting.Fingerprints.Store(0)
		s, _, err := bt.AskState(ctx, bot.Message{UserID: "U1", ChannelID: "C1", Text: question})
		require.NoError(t, err)
		require.Equal(t, nodes.IntentAnalytics, s.Intent, question)
		require.Empty(t, s.ErrorKind, question)
		require.NotEmpty(t, s.QueryID, "%s: the answer has buttons", question)

		assert.Equal(t, int64(1), counting.Checks.Load(), "%s: the query is checked once", question)
		assert.Zero(t, counting.Fingerprints.Load(), "%s: and not parsed again for its fingerprint", question)
		assert.Equal(t, warehouse.IDOf(pg, s.Query), s.QueryID, "%s: its id is the fingerprint's", question)
	}
}
