package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot/bottest"
)

// testCLIInert asks a question whose result and answer hold escape
// sequences (a warehouse value that clears the screen and retitles the
// window, a model that does the same): `ask` and `chat` print them inert,
// as �, and never the escape character itself.
func testCLIInert(t *testing.T) {
	const (
		question = "Which name is odd?"
		rule     = `
  - step: generate_sql
    match: '(?im)^Question: Which name is odd'
    reply: '{"sql": "SELECT chr(27) || ''[2J'' || chr(27) || '']0;pwned'' || chr(7) AS name, count(*) AS games FROM analytics.apps"}'
  - step: interpret
    match: '(?s)Question: Which name is odd'
    reply: '{"answer": "It is \u001b[2Jodd\u001b]0;model\u0007.", "follow_ups": ["Again\u001b[1A?"]}'
`
	)
	script := filepath.Join(t.TempDir(), "script.yaml")
	require.NoError(t, os.WriteFile(script, []byte(bottest.DemoScript(rule)), 0o600))
	t.Setenv("LLM_PROVIDER", "script")
	t.Setenv("LLM_SCRIPT", script)

	got := runCLI(t, "", "ask", question)
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	assert.NotContains(t, got.stdout, "\x1b", "ask prints no escape character:\n%q", got.stdout)
	assert.NotContains(t, got.stdout, "\a", "nor a bell")
	assert.Contains(t, got.stdout, "It is �[2Jodd�]0;model�.", "the model's prose, inert")
	assert.Contains(t, got.stdout, "\n�[2J�]0;pwned�  27,075\n", "the warehouse's cell, inert and aligned")

	got = runCLI(t, question+"\n1\n", "chat")
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	assert.NotContains(t, got.stdout, "\x1b", "chat prints no escape character:\n%q", got.stdout)
	assert.Contains(t, got.stdout, "> Again�[1A?\n", "the follow-up chosen by number, echoed inert")
	assert.True(t, strings.Contains(got.stdout, "1. Again�[1A?"), "the follow-up listed inert")
}
