package mcpserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/store/storetest"
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
