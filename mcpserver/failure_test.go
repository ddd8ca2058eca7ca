package mcpserver

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// docs/mcp.md: a failure of the bot's own (here its database gone) is a
// tool error saying "something went wrong on the bot's side", with the
// details for the operator's log only; the server keeps answering.
func TestBotFailureIsAToolError(t *testing.T) {
	t.Parallel()
	testDB.Need(t)
	p := storetest.NewProxy(t, testDB.URL)
	cfg := bottest.Config(t, testDB.URL, "")
	cfg.DatabaseURL = p.URL() // the bot's own database and the reader's, both through the proxy
	b := bottest.Start(t, cfg, bottest.Discard())
	cs := connect(t, b, Config{}, DefaultUser)

	res := call(t, cs, "list_verified_queries", map[string]any{})
	require.False(t, res.IsError, text(res))

	p.Stop()
	res = call(t, cs, "list_verified_queries", map[string]any{})
	assert.True(t, res.IsError, "a tool error, not a protocol error: %s", text(res))
	assert.Equal(t, "something went wrong on the bot's side; the operator's log has the details", text(res))

	p.Restart(t)
	res = call(t, cs, "list_verified_queries", map[string]any{})
	assert.False(t, res.IsError, "the server keeps answering once the database is back: %s", text(res))
}

// panicking is the PostgreSQL backend whose Catalog panics while on is
// set: a bug of the bot's own inside a tool.
type panicking struct {
	*pgwarehouse.Backend
	on *atomic.Bool
}

func (p panicking) Catalog(ctx context.Context) (*warehouse.Catalog, error) {
	if p.on.Load() {
		panic("a bug in the catalog")
	}
	return p.Backend.Catalog(ctx)
}

// docs/mcp.md: a panic in a tool is a tool error saying "something went
// wrong on the bot's side", and the server keeps answering.
func TestPanicIsAToolError(t *testing.T) {
	t.Parallel()
	testDB.Need(t)
	cfg := bottest.Config(t, testDB.URL, "")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	db, err := store.Open(ctx, cfg.DatabaseURL, store.WithSchema(cfg.BotSchema))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	exec := cfg.ReaderConfig()
	exec.IdentityKey, err = db.IdentityKey(ctx)
	require.NoError(t, err)
	pg := pgwarehouse.New(pgwarehouse.Config{ExecConfig: exec})
	t.Cleanup(pg.Close)
	var on atomic.Bool
	b, err := bot.NewWithBackend(cfg, db, panicking{pg, &on}, bottest.Discard())
	require.NoError(t, err)
	t.Cleanup(b.Close)
	cs := connect(t, b, Config{}, DefaultUser)

	on.Store(true)
	res := call(t, cs, "describe_table", map[string]any{"table": "analytics.apps"})
	assert.True(t, res.IsError, "a tool error, not a protocol error: %s", text(res))
	assert.Equal(t, "something went wrong on the bot's side; the operator's log has the details", text(res))

	on.Store(false)
	res = call(t, cs, "describe_table", map[string]any{"table": "analytics.apps"})
	assert.False(t, res.IsError, "the server keeps answering after a panic: %s", text(res))
}
