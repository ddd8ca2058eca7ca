package pgpool_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/analyticsbot/analyticsbot/pgpool"
)

// A pool's sockets send TCP keepalives and give up on data the server has
// not acknowledged within the round-trip timeout: a server gone silent is
// noticed on connections no call is waiting on, and by the kernel where
// no deadline runs.
func TestDialerSocketOptions(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			defer c.Close()
			_, _ = c.Read(make([]byte, 1)) // until the client closes
		}
	}()
	for _, tt := range []struct {
		name    string
		timeout time.Duration
		wantMS  int
	}{
		{"DATABASE_TIMEOUT", 3 * time.Second, 3000},
		{"unbounded tools", 0, int(pgpool.DefaultTimeout.Milliseconds())},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := pgxpool.ParseConfig("postgres://postgres@" + ln.Addr().String() + "/postgres")
			require.NoError(t, err)
			pgpool.Configure(cfg, tt.timeout)
			conn, err := cfg.ConnConfig.DialFunc(context.Background(), "tcp", ln.Addr().String())
			require.NoError(t, err)
			defer conn.Close()
			raw, err := conn.(*net.TCPConn).SyscallConn()
			require.NoError(t, err)
			var userTimeout, keepAlive, idle, interval, count int
			require.NoError(t, raw.Control(func(fd uintptr) {
				userTimeout, _ = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT)
				keepAlive, _ = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_KEEPALIVE)
				idle, _ = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_KEEPIDLE)
				interval, _ = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_KEEPINTVL)
				count, _ = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_KEEPCNT)
			}))
			assert.Equal(t, tt.wantMS, userTimeout, "TCP_USER_TIMEOUT (ms)")
			assert.Equal(t, 1, keepAlive, "SO_KEEPALIVE")
			// docs/scaling.md: "TCP keepalives after 15 s idle".
			assert.Equal(t, 15, idle, "TCP_KEEPIDLE (s)")
			assert.Equal(t, 5, interval, "TCP_KEEPINTVL (s)")
			assert.Equal(t, 3, count, "TCP_KEEPCNT")
		})
	}
}
