package mcpserver

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot/bottest"
)

// docs/mcp.md's limits over stdio: a message within 16 MiB is read, and
// one with an argument longer than its schema allows is a tool error;
// a message past 16 MiB ends the session.
//
// Not parallel: its messages take hundreds of MiB under -race, which the
// package's other tests should not have to share.
func TestStdioMessageLimit(t *testing.T) {
	b := newTestBot(t, "")
	inR, inW := io.Pipe()   // the client's messages to the server
	outR, outW := io.Pipe() // the server's replies
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- New(b, Config{}, "UMCPSTDIO", bottest.Logger(t)).Run(ctx, inR, outW) }()
	t.Cleanup(func() { inW.Close(); outR.Close() })

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	require.NoError(t, err, "client connect")

	// 15 MiB in one message: read, and refused as a tool error.
	long := strings.Repeat("x", 15<<20)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": long}})
	require.NoError(t, err, "a 15 MiB message is within the bound")
	assert.True(t, res.IsError, "a question longer than the schema allows is a tool error")
	assert.Less(t, len(text(res)), 300, "the error quotes the start of the question, not 15 MiB of it")
	res = call(t, cs, "run_query", map[string]any{"query": sql2018})
	require.False(t, res.IsError, "the session goes on: %s", text(res))

	// Past 16 MiB: the session ends.
	go func() {
		_, _ = fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"ask","arguments":{"question":"%s"}}}`+"\n",
			strings.Repeat("x", 17<<20))
	}()
	select {
	case <-served:
	case <-time.After(testTimeout):
		t.Fatal("a message past 16 MiB did not end the session")
	}
}
