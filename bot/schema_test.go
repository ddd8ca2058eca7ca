package bot_test

import (
	"strings"
	"testing"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
)

// testMissingSchema: a misspelt ANALYTICS_SCHEMA is a setup problem; the
// user is told so instead of being asked to rephrase.
func testMissingSchema(t *testing.T, e *testEnv) {
	b := newBot(t, e, script(), func(c *bot.Config) { c.Postgres.Schemas = []string{"analytcs"} })
	s, _ := ask(t, b, "missing-schema", "How many games were released in 2018?")
	if s.ErrorKind != nodes.ErrNoData {
		t.Fatalf("error kind = %q, want %q (detail %q)", s.ErrorKind, nodes.ErrNoData, s.ErrorDetail)
	}
	if !strings.Contains(s.ResponseText, `"analytcs"`) || !strings.Contains(s.ResponseText, "ANALYTICS_SCHEMA") {
		t.Errorf("reply = %q, want it to name the schema and the setting", s.ResponseText)
	}
	if got := b.Scripted.CallCount("generate_sql"); got != 0 {
		t.Errorf("generate_sql calls = %d, want 0: nothing to write SQL against", got)
	}
}
