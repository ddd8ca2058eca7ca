package bot_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
)

// testExportDirectory exports an answer cut at MAX_ROWS, which streams
// every row into a file: the file is in the bot's own directory under
// TMPDIR (named for its process), never loose in TMPDIR, and closing the
// bot removes the directory with whatever is still in it.
//
// Starting, it removes what a process that is gone left there.
func testExportDirectory(t *testing.T, e *testEnv) {
	// A directory as a process killed mid-export leaves it: its lock file
	// held by nobody, and part of an export.
	dead, err := os.MkdirTemp("", "analyticsbot-scratch-1-*")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dead) })
	require.NoError(t, os.WriteFile(filepath.Join(dead, ".lock"), nil, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dead, "analyticsbot-export-1.csv"), []byte("games\n1\n"), 0o600))

	cfg := bottest.Config(t, e.url, script())
	cfg.MaxRows = 1
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := bot.New(ctx, cfg, bottest.Logger(t))
	require.NoError(t, err, "new bot")
	assert.NoDirExists(t, dead, "a dead process's directory, once a bot has started")
	closed := false
	t.Cleanup(func() {
		if !closed {
			b.Close()
		}
	})

	thread := bot.NewThreadID()
	answer, _ := ask(t, b, thread, "Which publishers released the most games?")
	require.Empty(t, answer.ErrorKind, "question: %s", answer.ErrorDetail)
	require.True(t, answer.Result.Truncated, "the answer shows 1 row of 5")
	s, _ := press(t, b, thread, string(nodes.IntentExportCSV), answer.QueryID)
	require.Empty(t, s.ErrorKind, "export: %s", s.ErrorDetail)
	require.NotEmpty(t, s.CSVFile, "a full export goes to a file")

	dir := filepath.Dir(s.CSVFile)
	assert.Equal(t, filepath.Clean(os.TempDir()), filepath.Dir(dir), "under TMPDIR")
	assert.True(t, strings.HasPrefix(filepath.Base(dir), "analyticsbot-scratch-"+strconv.Itoa(os.Getpid())+"-"),
		"got the directory %s, want the process's own", dir)
	data, err := os.ReadFile(s.CSVFile)
	require.NoError(t, err)
	assert.Equal(t, 6, strings.Count(string(data), "\n"), "the header and every row:\n%s", data)

	// Not delivered (RemoveCSVFile not called): Close removes it all.
	b.Close()
	closed = true
	assert.NoDirExists(t, dir, "the bot's directory after Close")
}
