package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
)

// testCLIFailedQuestionText asks a question whose query never runs: `ask
// --json`'s text, which scripts show alone, reads whole, with the questions
// to try in the reply; the terminal shows the text, then the questions
// under their own heading.
func testCLIFailedQuestionText(t *testing.T) {
	const (
		question = "How many gmes are there?"
		rule     = `
  - step: generate_sql
    match: '(?im)^Question: How many gmes are there'
    reply: '{"sql": "SELECT count(nme) AS games FROM analytics.apps"}'
`
		want = "I couldn't write a query that works for this question, even after 3 attempts. " +
			"Try rephrasing it with the exact names of what you're looking for."
	)
	script := filepath.Join(t.TempDir(), "script.yaml")
	require.NoError(t, os.WriteFile(script, []byte(bottest.DemoScript(rule)), 0o600))
	t.Setenv("LLM_PROVIDER", "script")
	t.Setenv("LLM_SCRIPT", script)

	got := runCLI(t, "", "ask", "--json", question)
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	var out struct {
		Text      string         `json:"text"`
		Error     string         `json:"error"`
		ErrorKind string         `json:"error_kind"`
		Reply     *answer.Answer `json:"reply"`
	}
	decodeOne(t, got.stdout, &out)
	assert.Equal(t, string(nodes.ErrInvalidQuery), out.ErrorKind, "error_kind")
	assert.Equal(t, want, out.Text, "text")
	assert.Equal(t, want, out.Error, "error")
	require.NotNil(t, out.Reply, "reply")
	assert.Contains(t, out.Reply.Questions, "How many games are free to play?", "reply.questions")

	got = runCLI(t, "", "ask", question)
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	assert.True(t, strings.HasPrefix(got.stdout, "⚠ "+want+"\n\nYou could try:\n"), "the terminal shows:\n%s", got.stdout)
	assert.Contains(t, got.stdout, "How many games are free to play?", "a question to try")
}
