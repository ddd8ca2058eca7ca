package cubetest

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStopKillsWhatIgnoresSIGTERM stands in for a Cube that hangs on shutdown: a shell that
// ignores SIGTERM, with a child in its process group. stop must SIGKILL both after the grace.
func TestStopKillsWhatIgnoresSIGTERM(t *testing.T) {
	t.Parallel()
	workDir, err := os.MkdirTemp("", "cubetest-stop-")
	require.NoError(t, err)
	cmd := exec.Command("sh", "-c", `trap '' TERM; echo ready; while :; do sleep 1; done`)
	p, err := startProcess(cmd, workDir)
	require.NoError(t, err)

	// SIGTERM must arrive after the trap is set, or the shell just dies of it.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(p.log.String(), "ready") {
		select {
		case <-ctx.Done():
			t.Fatalf("shell never printed ready; output %q", p.log.String())
		case <-tick.C:
		}
	}

	require.NoError(t, p.stop())
	select {
	case <-p.exited:
	default:
		t.Fatal("process still running after stop")
	}
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	require.True(t, ok)
	assert.True(t, ws.Signaled() && ws.Signal() == syscall.SIGKILL, "exit status: got %v, want killed by SIGKILL", ws)
	_, err = os.Stat(workDir)
	assert.ErrorIs(t, err, os.ErrNotExist, "work dir after stop")
	assert.NoError(t, p.stop(), "second stop")
}
