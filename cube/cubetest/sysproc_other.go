//go:build !linux

package cubetest

import (
	"os"
	"syscall"
)

// sysProcAttr leaves the defaults: process groups and parent-death signals are set up on Linux
// only, where the project's tests and CI run.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// signalGroup signals the server process alone; where a signal cannot be sent (Windows cannot
// send SIGTERM) it kills the process.
func signalGroup(p *os.Process, sig syscall.Signal) error {
	if err := p.Signal(sig); err != nil {
		return p.Kill()
	}
	return nil
}
