package mcpserver

import (
	"testing"
)

// What one call costs through the SDK's client and server in memory, on
// the demo data: the protocol, the bot's checks and the query log's write
// included.
func BenchmarkCall(b *testing.B) {
	bt := newTestBot(b, "")
	cs := connect(b, bt, Config{}, DefaultUser)
	for _, c := range []struct {
		name, tool string
		args       map[string]any
	}{
		{"run_query", "run_query", map[string]any{"query": sql2018}},
		{"ask", "ask", map[string]any{"question": q2018}},
		{"list_tables", "list_tables", map[string]any{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if res := call(b, cs, c.tool, c.args); res.IsError {
					b.Fatal(text(res))
				}
			}
		})
	}
}
