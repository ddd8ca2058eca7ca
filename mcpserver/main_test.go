package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// The package's tests share one database, migrated and with the demo data
// (and the access matrix's hr schema) loaded once; they keep apart by
// thread id.

// Facts of the demo data, checked against the Steam dataset.
const (
	q2018     = "How many games were released in 2018?"
	sql2018   = "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018"
	games2018 = "8160"
	// sqlFree is the demo's query for "How many games are free?", which
	// the examples file verifies.
	sqlFree = "SELECT count(*) AS free_games FROM analytics.apps WHERE is_free"
)

// testTimeout bounds one call of a test.
const testTimeout = time.Minute

var testDB storetest.Shared

func TestMain(m *testing.M) {
	os.Exit(storetest.Main(m, "mcpserver", &testDB, bottest.LoadDemo))
}

// newTestBot builds a bot on the package database playing script ("" for
// the demo's), with adjust applied to its configuration.
func newTestBot(t testing.TB, script string, adjust ...func(*bot.Config)) *bot.Bot {
	t.Helper()
	testDB.Need(t)
	return bottest.New(t, testDB.URL, script, adjust...)
}

// connect serves b's tools as user to the SDK's own client over an
// in-memory transport, until the test ends.
func connect(t testing.TB, b *bot.Bot, cfg Config, user string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(b, cfg, user, bottest.Logger(t)).MCP().Connect(ctx, st, nil)
	require.NoError(t, err, "server connect")
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err, "client connect")
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call calls a tool and fails the test on a protocol error.
func call(t testing.TB, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err, "call %s", tool)
	return res
}

// decode reads a result's structured content into out.
func decode(t testing.TB, res *mcp.CallToolResult, out any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, out), "structured content %s", b)
}

// text is a result's text content, joined.
func text(res *mcp.CallToolResult) string {
	var s string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			s += tc.Text
		}
	}
	return s
}

// askAnswer calls a tool that returns an Answer and decodes it.
func askAnswer(t testing.TB, cs *mcp.ClientSession, tool string, args any) (*mcp.CallToolResult, Answer) {
	t.Helper()
	res := call(t, cs, tool, args)
	var a Answer
	decode(t, res, &a)
	return res, a
}
