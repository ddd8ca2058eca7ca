package scratch

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// childEnv, when set, makes the test binary a child process that exports
// into a directory of its own in the directory the variable names (see
// exportChild).
const childEnv = "SCRATCH_TEST_CHILD_PARENT"

func TestMain(m *testing.M) {
	if parent := os.Getenv(childEnv); parent != "" {
		os.Exit(exportChild(parent))
	}
	os.Exit(m.Run())
}

// exportChild stands for a process in the middle of an export: it opens its
// directory, writes part of a CSV into it and, the file still open, prints
// the directory and waits for its standard input to close; then it ends
// cleanly.
func exportChild(parent string) int {
	d, err := Open(parent)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	f, err := os.CreateTemp(d.Path(), "analyticsbot-export-*.csv")
	if err == nil {
		_, err = f.WriteString("games\n" + strings.Repeat("8160\n", 1000))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(d.Path())
	_, _ = io.Copy(io.Discard, os.Stdin)
	f.Close()
	if err := d.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// child is a running exportChild.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	dir   string
}

// startChild starts the test binary as an exportChild in parent and waits
// until it has written into its directory.
func startChild(t *testing.T, parent string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+parent)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "the child's directory")
	return &child{cmd: cmd, stdin: stdin, dir: strings.TrimSpace(line)}
}

// A process killed with SIGKILL in the middle of an export leaves its
// directory, which the next process to start removes; a live process's
// directory stays, and goes when that process closes it.
func TestSweepAfterKill(t *testing.T) {
	t.Parallel()
	if !canLock {
		t.Skip("no file locks here: Sweep removes no directory")
	}
	parent := t.TempDir()
	killed, live := startChild(t, parent), startChild(t, parent)
	require.NoError(t, killed.cmd.Process.Kill(), "SIGKILL")
	require.Error(t, killed.cmd.Wait(), "killed")
	left := csvFiles(t, killed.dir)
	require.Len(t, left, 1, "the killed process left its export behind")

	swept, err := Sweep(parent)
	require.NoError(t, err)
	assert.Equal(t, Swept{Dirs: 1, Bytes: int64(len("games\n") + 5*1000)}, swept, "swept")
	assert.NoDirExists(t, killed.dir, "the killed process's directory")
	assert.Len(t, csvFiles(t, live.dir), 1, "the live process's export stays")

	require.NoError(t, live.stdin.Close())
	require.NoError(t, live.cmd.Wait(), "the live process ends cleanly")
	assert.NoDirExists(t, live.dir, "a process that ends cleanly removes its directory")
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing is left behind")
}

// csvFiles lists the CSV files in dir.
func csvFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	require.NoError(t, err)
	return files
}

// Sweep tells what it may remove by the lock alone: a directory whose lock
// no process holds goes, this process's own stays, and so does what is not
// the bot's. Export files of earlier versions go once they are old.
func TestSweep(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	write := func(path string, size int) {
		t.Helper()
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
		require.NoError(t, os.WriteFile(path, make([]byte, size), 0o600))
	}
	// A directory whose process is gone: its lock file, held by nobody.
	dead := filepath.Join(parent, prefix+"1-dead")
	write(filepath.Join(dead, lockName), 0)
	write(filepath.Join(dead, "analyticsbot-export-1.csv"), 100)
	// An empty directory being made, or emptied by a Close cut short.
	empty := filepath.Join(parent, prefix+"2-empty")
	require.NoError(t, os.Mkdir(empty, 0o700))
	// A directory without a lock file that holds something: not the bot's
	// making, left alone.
	stray := filepath.Join(parent, prefix+"3-stray")
	write(filepath.Join(stray, "notes.txt"), 10)
	// This process's own.
	own, err := Open(parent)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, own.Close()) })
	write(filepath.Join(own.Path(), "analyticsbot-export-2.csv"), 50)
	// Export files of earlier versions: an old one and one being written.
	old := filepath.Join(parent, "analyticsbot-export-111.csv")
	write(old, 1000)
	long := time.Now().Add(-2 * LegacyAge)
	require.NoError(t, os.Chtimes(old, long, long))
	fresh := filepath.Join(parent, "analyticsbot-export-222.csv")
	write(fresh, 1000)
	// Not the bot's.
	other := filepath.Join(parent, "other-export.csv")
	write(other, 10)
	require.NoError(t, os.Chtimes(other, long, long))

	swept, err := Sweep(parent)
	require.NoError(t, err)

	want := Swept{Files: 1, Bytes: 1000}
	if canLock {
		want = Swept{Dirs: 2, Files: 1, Bytes: 1100}
		assert.NoDirExists(t, dead, "a dead process's directory")
		assert.NoDirExists(t, empty, "an empty directory")
	}
	assert.Equal(t, want, swept, "swept")
	assert.DirExists(t, stray, "a directory the bot did not make")
	assert.FileExists(t, filepath.Join(own.Path(), "analyticsbot-export-2.csv"), "this process's own")
	assert.NoFileExists(t, old, "an old export of an earlier version")
	assert.FileExists(t, fresh, "an export of an earlier version that may be in use")
	assert.FileExists(t, other, "not the bot's")

	require.NoError(t, own.Close())
	assert.NoDirExists(t, own.Path(), "Close removes the directory")
	require.NoError(t, own.Close(), "twice")
}
