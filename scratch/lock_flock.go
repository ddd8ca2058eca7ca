//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package scratch

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// canLock says this system has flock, which Sweep needs to tell a live
// process's directory.
const canLock = true

// tryLock takes f's exclusive lock without waiting, and reports whether it
// did (false: another open of the file holds it, in this process or
// another). The lock lasts until f is closed or the process ends.
func tryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return false, nil
	}
	return false, fmt.Errorf("flock %s: %w", f.Name(), err)
}
