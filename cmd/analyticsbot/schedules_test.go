package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testCLISchedules makes a schedule in words in an answer's thread, saves
// it with the command the reply prints, and manages it with `schedules`:
// list, run it now (here: a terminal schedule posts in its thread), its
// runs, pause, resume, delete.
func testCLISchedules(t *testing.T, first turnOut) {
	asked := runCLI(t, "", "ask", "--thread", first.ThreadID, "send this every weekday at 8:30 as CSV")
	require.NoError(t, asked.err, "stderr: %s", asked.stderr)
	// The thread's latest answer is the follow-up's.
	assert.Contains(t, asked.stdout, "I'll post the CSV of “"+q2017+"” in this conversation every weekday (Monday to Friday) at 08:30 (UTC)")
	m := regexp.MustCompile(`(?m)^Save schedule: analyticsbot (press .*--value ([0-9a-f]{8}) .*)$`).FindStringSubmatch(asked.stdout)
	require.NotNil(t, m, "a Save command in %s", asked.stdout)
	id := m[2]
	saved := runCLI(t, "", strings.Fields(m[1])...)
	require.NoError(t, saved.err, "stderr: %s", saved.stderr)
	assert.Contains(t, saved.stdout, "Saved: I'll post the CSV of")

	list := runCLI(t, "", "schedules", "list")
	require.NoError(t, list.err, "stderr: %s", list.stderr)
	assert.Regexp(t, id+`\s+active\s+cli\s+every weekday \(Monday to Friday\) at 08:30 \(UTC\)\s+thread `+first.ThreadID, list.stdout)

	ran := runCLI(t, "", "schedules", "run-now", id)
	require.NoError(t, ran.err, "stderr: %s", ran.stderr)
	assert.Equal(t, "ran "+id+" ("+q2017+"): posted\n", ran.stdout)
	runs := runCLI(t, "", "schedules", "runs", id, "--limit", "5")
	require.NoError(t, runs.err, "stderr: %s", runs.stderr)
	assert.Regexp(t, `\s1\s+cli-run-now\s+posted\s+1\s+6357\s`, runs.stdout, "flags after the id too")
	thread := runCLI(t, "", "ask", "--thread", first.ThreadID, "show the sql")
	require.NoError(t, thread.err, "stderr: %s", thread.stderr)
	assert.Contains(t, thread.stdout, "SQL for: "+q2017+"\n\n    SELECT count(*) AS games\n    FROM analytics.apps\n    WHERE release_year = 2017",
		"the run is a turn of the thread")

	for _, step := range []struct{ args, want string }{
		{"pause " + id, "paused " + id},
		{"pause " + id, "is paused: nothing to pause"},
		{"run-now " + id, "is paused: resume it first"},
		{"resume " + id, "resumed " + id},
		{"delete " + id, "deleted " + id},
	} {
		got := runCLI(t, "", append([]string{"schedules"}, strings.Fields(step.args)...)...)
		assert.Contains(t, got.stdout+errText(got.err), step.want, "schedules %s", step.args)
	}
	gone := runCLI(t, "", "schedules", "list")
	require.NoError(t, gone.err)
	assert.NotContains(t, gone.stdout, id)
	noRuns := runCLI(t, "", "schedules", "runs", id)
	assert.ErrorContains(t, noRuns.err, `schedule "`+id+`": not found`, "a deleted schedule has no runs yet: %s", noRuns.stdout)
	bad := runCLI(t, "", "schedules", "pause", "nope")
	assert.ErrorIs(t, bad.err, errUsage)
}

const q2017 = "How many games were released in 2017?"

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// `schedules list --state` takes the states the usage names; another is a
// bad command line, not an empty list ("no schedules"). The database is
// down: the state is refused before anything is opened.
func TestCLISchedulesUnknownState(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	got := runCLI(t, "", "schedules", "list", "--state", "bogus")
	require.ErrorIs(t, got.err, errUsage)
	assert.Contains(t, got.err.Error(), `--state must be active, paused, stopped or pending, got "bogus"`)
}
