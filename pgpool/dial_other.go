//go:build !linux

package pgpool

import (
	"syscall"
	"time"
)

// userTimeoutControl does nothing where TCP_USER_TIMEOUT is Linux's alone:
// the keepalives and the round trips' deadlines still hold.
func userTimeoutControl(time.Duration) func(network, address string, c syscall.RawConn) error {
	return nil
}
