package cubetest

import (
	"os"
	"syscall"
)

// sysProcAttr puts the server in its own process group, so stop reaches any child it starts,
// and has the kernel kill it if the test binary dies first (a test timeout panics without
// running cleanups). Pdeathsig fires when the spawning OS thread exits, which Go only does for
// goroutines that exit while locked to their thread; test code does not.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// signalGroup sends sig to the server's whole process group.
func signalGroup(p *os.Process, sig syscall.Signal) error {
	return syscall.Kill(-p.Pid, sig)
}
