package main

import (
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/prompts"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// testCLIFeedbackAndExamples is the data team's loop from the command
// line: a 👍 proposes an answer, `examples` lists, verifies, shows,
// exports and rejects it, answers carry the badge exactly while it is
// verified, and `logs --feedback` reports the 👎 with its note.
func testCLIFeedbackAndExamples(t *testing.T, first turnOut) {
	got := runCLI(t, "", "press", "--thread", first.ThreadID, "--action", "feedback_up", "--value", first.QueryID, "--user", "UCLI0001")
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	assert.Contains(t, got.stdout, "Thanks for the 👍")

	var list []exampleJSON
	got = runCLI(t, "", "examples", "list", "--status", "candidate", "--json")
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	require.NoError(t, json.Unmarshal([]byte(got.stdout), &list), got.stdout)
	require.Len(t, list, 1, "the 👍 proposed one candidate")
	e := list[0]
	assert.Equal(t, q2018, e.Question)
	assert.Equal(t, sql2018, e.Query)
	assert.Equal(t, "feedback", e.Source)
	assert.Equal(t, "UCLI0001", e.ProposedBy)
	id := strconv.FormatInt(e.ID, 10)

	// The next such question's prompt shows it, as `context` prints.
	var ctxOut struct {
		Retrieved []struct {
			ID     int64  `json:"id"`
			Status string `json:"status"`
		} `json:"retrieved_examples"`
	}
	got = runCLI(t, "", "context", "--json", "How many games came out in 2018?")
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	require.NoError(t, json.Unmarshal([]byte(got.stdout), &ctxOut), got.stdout)
	var shown []int64
	for _, r := range ctxOut.Retrieved {
		shown = append(shown, r.ID)
	}
	assert.Contains(t, shown, e.ID, "the candidate is retrieved for a similar question")
	got = runCLI(t, "", "context", "How many games came out in 2018?")
	require.NoError(t, got.err)
	assert.Regexp(t, `(?m)^examples \(retrieved\):\n(  #\d+ .*\n)*  #`+id+` +candidate `, got.stdout)

	got = runCLI(t, "", "examples", "list")
	require.NoError(t, got.err)
	assert.Regexp(t, `(?m)^ID +STATUS +SOURCE +USED +BY +QUESTION$`, got.stdout)
	assert.Contains(t, got.stdout, "file", "the examples file's examples are listed too")

	noBadge := decodeTurn(t, runCLI(t, "", "ask", "--json", q2018).stdout)
	assert.NotContains(t, noBadge.Text+string(noBadge.Blocks), "Verified query", "a candidate has no badge")

	got = runCLI(t, "", "examples", "verify", "--by", "ana", id)
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	assert.Equal(t, "example "+id+" is verified: "+q2018+"\n", got.stdout)
	badge := decodeTurn(t, runCLI(t, "", "ask", "--json", q2018).stdout)
	assert.Contains(t, string(badge.Blocks), "✓ Verified query (by ana)")

	got = runCLI(t, "", "examples", "show", id)
	require.NoError(t, got.err)
	assert.Contains(t, got.stdout, "Verified by: ana")
	assert.Contains(t, got.stdout, sql2018)

	got = runCLI(t, "", "examples", "export")
	require.NoError(t, got.err)
	exported, err := prompts.ParseExamples([]byte(got.stdout))
	require.NoError(t, err, "the export is an examples file:\n%s", got.stdout)
	assert.Contains(t, exported, prompts.Example{Question: q2018, SQL: sql2018, Assumptions: []string{}})

	got = runCLI(t, "SELECT count(*) AS apps FROM analytics.apps\n", "examples", "add", "--question", "How many apps are there?",
		"--assumption", "Every row is an app.")
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	assert.Regexp(t, `^added example \d+ \(verified\)\n$`, got.stdout)
	got = runCLI(t, "DELETE FROM analytics.apps", "examples", "add", "--question", "Remove the apps")
	require.Error(t, got.err, "a query the bot would not run")
	assert.Contains(t, got.err.Error(), "not accepted")

	got = runCLI(t, "", "examples", "reject", id)
	require.NoError(t, got.err)
	after := decodeTurn(t, runCLI(t, "", "ask", "--json", q2018).stdout)
	assert.NotContains(t, string(after.Blocks), "Verified query", "a rejected example's badge is gone")

	// The flags may come after the ids too, as docs/examples.md writes
	// `examples verify 42 43 --by ana`.
	got = runCLI(t, "", "examples", "verify", id, "--by", "bo")
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	assert.Equal(t, "example "+id+" is verified: "+q2018+"\n", got.stdout)
	got = runCLI(t, "", "examples", "show", id, "--json")
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	var shownJSON exampleJSON
	require.NoError(t, json.Unmarshal([]byte(got.stdout), &shownJSON), got.stdout)
	assert.Equal(t, "bo", shownJSON.VerifiedBy, "--by after the id")
	got = runCLI(t, "", "examples", "reject", id, "--by", "bo")
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	assert.Equal(t, "example "+id+" is rejected: "+q2018+"\n", got.stdout)

	// Without --by, whoever runs the command is named: $USER, else cli
	// (docs/examples.md).
	t.Setenv("USER", "carol")
	got = runCLI(t, "SELECT count(*) AS free_apps FROM analytics.apps WHERE is_free\n", "examples", "add", "--candidate",
		"--question", "How many free apps are there?")
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	m := regexp.MustCompile(`^added example (\d+) \(candidate\)\n$`).FindStringSubmatch(got.stdout)
	require.NotNil(t, m, got.stdout)
	freeID := m[1]
	got = runCLI(t, "", "examples", "show", freeID)
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	assert.Contains(t, got.stdout, "Proposed by: carol", "USER names who adds")
	t.Setenv("USER", "")
	got = runCLI(t, "", "examples", "verify", freeID)
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	got = runCLI(t, "", "examples", "show", freeID)
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	assert.Contains(t, got.stdout, "Verified by: cli", "without USER, cli")
	got = runCLI(t, "", "examples", "reject", freeID)
	require.NoError(t, got.err, "stderr: %s", got.stderr)

	for _, args := range [][]string{{"examples"}, {"examples", "frobnicate"}, {"examples", "verify"}, {"examples", "verify", "abc"},
		{"examples", "show", "1", "2"}, {"examples", "show", "1", "--json", "2"}, {"examples", "list", "extra"}, {"examples", "list", "--json", "extra"},
		{"examples", "verify", "1", "--by"}, {"examples", "verify", "1", "--no-such-flag"}, {"examples", "verify", "--", "--by"}, {"examples", "add", "--question", " "}} {
		got := runCLI(t, "", args...)
		assert.True(t, errors.Is(got.err, errUsage), "%v: got %v, want a usage error", args, got.err)
	}
	got = runCLI(t, "", "examples", "show", "999999")
	assert.ErrorContains(t, got.err, "not found")

	// A 👎 with a note from the chat, then the report.
	t.Chdir(t.TempDir())
	got = runCLI(t, q2018+"\n:bad it should exclude DLC\n:quit\n", "chat")
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	assert.Contains(t, got.stdout, "added your note")
	got = runCLI(t, "", "logs", "--feedback")
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	assert.Contains(t, got.stdout, "Most 👎")
	assert.Regexp(t, `(?m)^ +note: +"it should exclude DLC"$`, got.stdout)
	assert.True(t, strings.Contains(got.stdout, strconv.Quote(q2018)), got.stdout)
}

// `examples list` and `export` refuse a --status or --source no example
// has, as a usage error naming the values it takes: `--source fedback`
// listed "No examples." and exited 0, as if the team had none.
func TestCLIExamplesFilterValues(t *testing.T) {
	_, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)
	require.NoError(t, runCLI(t, "", "demo", "load").err, "demo load")

	got := runCLI(t, "", "examples", "list", "--source", "file")
	require.NoError(t, got.err)
	assert.Regexp(t, `(?m)^ID +STATUS +SOURCE`, got.stdout, "the examples file's examples")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"examples", "list", "--source", "fedback"}, `usage: --source is file, feedback, admin, not "fedback"`},
		{[]string{"examples", "list", "--status", "aproved"}, `usage: --status is candidate, verified, rejected, not "aproved"`},
		{[]string{"examples", "export", "--status", "everything"}, `usage: --status is candidate, verified, rejected, all, not "everything"`},
	} {
		got := runCLI(t, "", tt.args...)
		require.ErrorIs(t, got.err, errUsage, "%v; stdout: %s", tt.args, got.stdout)
		assert.ErrorContains(t, got.err, tt.want, "%v", tt.args)
		assert.Empty(t, got.stdout, "%v", tt.args)
	}
}
