package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
)

// Calls in flight share the bot's bound (MAX_TURNS): with every place
// taken, a call waits TURN_WAIT and is told the bot is busy; once a place
// is free it is answered.
func TestCallsInFlight(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "", func(c *bot.Config) { c.MaxTurns, c.TurnQueue, c.TurnWait = 1, 1, 200*time.Millisecond })
	cs := connect(t, b, Config{}, DefaultUser)
	release, err := b.Turns().Admit(t.Context(), nil) // the one place, as a turn of another surface
	require.NoError(t, err)
	res := call(t, cs, "run_query", map[string]any{"query": sql2018})
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), "as many questions as it may at once")
	release()
	_, a := askAnswer(t, cs, "run_query", map[string]any{"query": sql2018})
	require.Len(t, a.Rows, 1, "answered once the place is free")
}

// MCP_TIMEOUT covers the wait for a place (docs/mcp.md): with every
// place taken and TURN_WAIT far longer, a call is told at MCP_TIMEOUT that
// it found no place, and the bot is busy.
func TestCallTimeoutWaitingForPlace(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "", func(c *bot.Config) { c.MaxTurns, c.TurnQueue, c.TurnWait = 1, 1, time.Hour })
	cs := connect(t, b, Config{Timeout: 300 * time.Millisecond}, DefaultUser)
	release, err := b.Turns().Admit(t.Context(), nil) // the one place, as a turn of another surface
	require.NoError(t, err)
	res := call(t, cs, "run_query", map[string]any{"query": sql2018})
	assert.True(t, res.IsError)
	assert.Equal(t, "no place to answer within MCP_TIMEOUT (300ms): the bot is answering as many questions as it may at once: try again in a minute", text(res))
	release()
	// The call that gave up holds no place: the next is answered.
	_, a := askAnswer(t, connect(t, b, Config{}, DefaultUser), "run_query", map[string]any{"query": sql2018})
	require.Len(t, a.Rows, 1, "answered once the place is free")
}

// A call that runs past MCP_TIMEOUT is stopped and says so; the server
// answers the next one.
func TestCallTimeout(t *testing.T) {
	t.Parallel()
	script := `
rules:
  - step: classify
    match: '(?im)^Question: slow\b'
    delay: 1m
    reply: '{"intent": "analytics_query", "confidence": 0.9}'
  - step: classify
    reply: '{"intent": "analytics_query", "confidence": 0.9}'
`
	b := newTestBot(t, script)
	// The bound is long enough for the run_query after it to finish on a
	// loaded machine: it holds every call of the session, not only the slow
	// one, and the model's minute still stands far beyond it.
	cs := connect(t, b, Config{Timeout: 5 * time.Second}, DefaultUser)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	start := time.Now()
	res := call(t, cs, "ask", map[string]any{"question": "slow question"})
	assert.Less(t, time.Since(start), 30*time.Second, "stopped long before the model's minute")
	assert.True(t, res.IsError, text(res))
	assert.Equal(t, "the call took longer than MCP_TIMEOUT (5s) and was stopped", text(res))
	require.NoError(t, ctx.Err())
	_, a := askAnswer(t, cs, "run_query", map[string]any{"query": sql2018})
	require.Len(t, a.Rows, 1, "still answering")
}

// The MCP_* bounds are read from the environment; one that is not above 0
// stops the server at start with the variable and what it accepts, rather
// than turning silently into its default.
func TestConfigFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    Config
		wantErr string
	}{
		{name: "defaults", want: Config{MaxRows: 100, MaxBytes: 262144, Timeout: 2 * time.Minute}},
		{name: "set", env: map[string]string{"MCP_MAX_ROWS": "5", "MCP_MAX_BYTES": "1024", "MCP_TIMEOUT": "10s"},
			want: Config{MaxRows: 5, MaxBytes: 1024, Timeout: 10 * time.Second}},
		{name: "no rows", env: map[string]string{"MCP_MAX_ROWS": "0"}, wantErr: "MCP_MAX_ROWS must be a number of rows above 0, such as 100, got 0"},
		{name: "negative bytes", env: map[string]string{"MCP_MAX_BYTES": "-1"}, wantErr: "MCP_MAX_BYTES must be a number of bytes above 0, such as 262144, got -1"},
		{name: "no time", env: map[string]string{"MCP_TIMEOUT": "0s"}, wantErr: "MCP_TIMEOUT must be a duration above 0, such as 2m, got 0s"},
		{name: "not a duration", env: map[string]string{"MCP_TIMEOUT": "soon"}, wantErr: `MCP configuration: MCP_TIMEOUT must be a duration such as 30s, 10m or 24h (its default is 2m); got "soon"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{"MCP_MAX_ROWS", "MCP_MAX_BYTES", "MCP_TIMEOUT"} {
				t.Setenv(k, tt.env[k])
			}
			got, err := ConfigFromEnv()
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
