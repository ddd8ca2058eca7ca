package pgpool

import (
	"net"
	"time"
)

// keepAlive is when an idle connection's socket starts probing the server,
// and how often, and how many probes go unanswered before it gives up.
var keepAlive = net.KeepAliveConfig{Enable: true, Idle: 15 * time.Second, Interval: 5 * time.Second, Count: 3}

// dialer connects within connectTimeout, with TCP keepalives, and (on
// Linux) a TCP user timeout of userTimeout: data the server has not
// acknowledged that long, a keepalive probe included, ends the connection,
// where the kernel would otherwise retransmit for some fifteen minutes.
func dialer(connectTimeout, userTimeout time.Duration) *net.Dialer {
	return &net.Dialer{Timeout: connectTimeout, KeepAliveConfig: keepAlive, Control: userTimeoutControl(userTimeout)}
}
