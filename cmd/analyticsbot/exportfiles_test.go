package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

// TestCLIExportFilesAfterKill runs two `serve` processes sharing TMPDIR,
// each in the middle of delivering an export (Slack holds the uploads),
// and kills one with SIGKILL: its file stays behind until the next process
// to start removes it, and the other's file, still being delivered, stays.
// Once delivered and stopped, a process leaves nothing (docs/scaling.md).
func TestCLIExportFilesAfterKill(t *testing.T) {
	serveEnv(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	// Every answer of more than one row is cut: its export runs the query
	// again and streams every row into a file.
	t.Setenv("MAX_ROWS", "1")
	slack := fakeslack.New(t)
	t.Setenv("SLACK_BOT_TOKEN", fakeslack.BotToken)
	t.Setenv("SLACK_APP_TOKEN", fakeslack.AppToken)
	t.Setenv("SLACK_API_URL", slack.APIURL())
	release := slack.HoldUploads()

	const (
		ch, user = "CEXPORTKILL", "UALICE01"
		question = "Which publishers released the most games?"
	)
	procs := make([]*process, 2)
	dirs := make([]string, 2)
	for i := range procs {
		conn := i + 1
		procs[i] = startProcess(t, fmt.Sprintf("serve %d", conn), "serve")
		procs[i].out.waitFor(t, regexp.MustCompile(`in Slack over Socket Mode`), procs[i].exited)
		slack.WaitConnects(t, conn)

		ts := fmt.Sprintf("1700000500.00010%d", conn)
		mention := fakeslack.EventCallback("Ev"+strings.ReplaceAll(ts, ".", ""),
			fakeslack.AppMention(ch, user, "<@"+fakeslack.BotUserID+"> "+question, ts, ""))
		slack.WaitAck(t, slack.SendTo(t, conn, fakeslack.Envelope{Type: "events_api", Payload: mention}))
		answer := slack.WaitMessage(t, "the answer of process "+strconv.Itoa(conn), func(m fakeslack.Message) bool {
			return m.Channel == ch && m.ThreadTS == ts && !m.Streaming && strings.Contains(string(m.Blocks), "export_csv")
		})
		slack.WaitAck(t, slack.SendTo(t, conn, fakeslack.Envelope{Type: "interactive",
			Payload: slack.BlockAction(user, ch, answer.TS, ts, "export_csv", exportQueryID(t, answer))}))
		// Asked for an upload URL: the export is written, its file open
		// for the upload, which Slack holds.
		slack.WaitCalls(t, "files.getUploadURLExternal", conn)

		dirs[i] = exportDir(t, tmp, procs[i].cmd.Process.Pid)
		require.Len(t, csvIn(t, dirs[i]), 1, "process %d's export", conn)
	}
	killed, live := procs[0], procs[1]

	require.NoError(t, killed.cmd.Process.Kill(), "SIGKILL")
	<-killed.exited
	assert.Len(t, csvIn(t, dirs[0]), 1, "the killed process's export is left behind")

	// The next command to start removes it, and leaves the live one's.
	got := runCLI(t, "", "ask", "--json", q2018)
	require.NoError(t, got.err, "ask; stderr: %s", got.stderr)
	assert.NoDirExists(t, dirs[0], "the killed process's directory, after the next start")
	assert.Len(t, csvIn(t, dirs[1]), 1, "the live process's export, still being delivered")

	release()
	f := slack.WaitFile(t, func(f fakeslack.File) bool { return f.Channel == ch })
	assert.Equal(t, 11, strings.Count(string(f.Content), "\n"), "the live process delivers every row (the header and 10):\n%s", f.Content)
	live.stop(t)
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, names(entries), "nothing is left in TMPDIR")
}

// exportDir is the directory of the process pid in tmp.
func exportDir(t *testing.T, tmp string, pid int) string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(tmp, "analyticsbot-scratch-"+strconv.Itoa(pid)+"-*"))
	require.NoError(t, err)
	require.Len(t, dirs, 1, "process %d's directory", pid)
	return dirs[0]
}

// csvIn lists the CSV files in dir.
func csvIn(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	require.NoError(t, err)
	return files
}

// names are the names of entries.
func names(entries []os.DirEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
