package storetest

import (
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy is a TCP proxy on the loopback in front of a server (Postgres, or
// any other URL's host), for tests of what the bot does when the network
// fails: it can refuse connections (Stop), cut the open ones (Cut), or
// black-hole them, holding every byte without closing anything (BlackHole),
// as a hung proxy or a network partition does.
type Proxy struct {
	target string
	addr   string
	url    string

	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]struct{}
	closed bool
	// open is closed while bytes flow; BlackHole replaces it.
	open chan struct{}
	// quit is closed by Stop, releasing the pipes held by a black hole.
	quit chan struct{}
	// tap, when set, sees every chunk before it is forwarded.
	tap func(toServer bool, b []byte)
	wg  sync.WaitGroup
}

// NewProxy listens on a free port of 127.0.0.1 and forwards to the host of
// rawURL; URL is rawURL pointed at the proxy. Cleanup stops it.
func NewProxy(t testing.TB, rawURL string) *Proxy {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatalf("proxy: parse the url: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy: listen: %v", err)
	}
	open := make(chan struct{})
	close(open)
	p := &Proxy{target: u.Host, addr: ln.Addr().String(), open: open}
	u.Host = p.addr
	p.url = u.String()
	p.serve(ln)
	t.Cleanup(p.Stop)
	return p
}

// URL is the URL the proxy was made from, pointed at the proxy.
func (p *Proxy) URL() string { return p.url }

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.addr }

// BlackHole stops forwarding bytes, both ways, on open connections and
// new ones alike, closing nothing: a client waits for an answer that never
// comes, and a new connection is accepted and never greeted.
func (p *Proxy) BlackHole() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.open:
		p.open = make(chan struct{})
	default: // already
	}
}

// Tap calls fn with every chunk of bytes the proxy reads, before it
// forwards them: toServer says the client sent it. fn may change the bytes
// in place (not their number), as a faulty network or middlebox would; it
// is called from one connection's pipe at a time, each direction in order.
// Tap(nil) removes it.
func (p *Proxy) Tap(fn func(toServer bool, b []byte)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tap = fn
}

// Restore forwards again, the bytes held meanwhile first.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.open:
	default:
		close(p.open)
	}
}

// Cut closes every open connection, as a server restart or a reset does;
// new ones are forwarded.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
	p.conns = map[net.Conn]struct{}{}
}

// Restart listens again on the same address after Stop.
func (p *Proxy) Restart(t testing.TB) {
	t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		t.Fatalf("proxy: listen again on %s: %v", p.addr, err)
	}
	p.serve(ln)
}

func (p *Proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln, p.conns, p.closed, p.quit = ln, map[net.Conn]struct{}{}, false, make(chan struct{})
	quit := p.quit
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", p.target)
			if err != nil {
				client.Close()
				continue
			}
			if !p.track(client, server) {
				return
			}
			p.wg.Add(2)
			go p.pipe(server, client, true, quit)
			go p.pipe(client, server, false, quit)
		}
	}()
}

// track registers a connection pair, or closes it when the proxy stopped
// in the meantime.
func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

// pipe copies from src to dst, holding what it read while black-holed,
// until either side ends or the proxy stops; then it closes both. toServer
// says src is the client.
func (p *Proxy) pipe(dst, src net.Conn, toServer bool, quit <-chan struct{}) {
	defer p.wg.Done()
	defer src.Close()
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			open, tap := p.open, p.tap
			if tap != nil {
				// Under the lock: the tap sees one chunk at a time.
				tap(toServer, buf[:n])
			}
			p.mu.Unlock()
			select {
			case <-open:
			case <-quit:
				return
			}
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Stop closes the listener and every forwarded connection, so new
// connections are refused, and waits for the proxy's goroutines.
func (p *Proxy) Stop() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.ln.Close()
	close(p.quit)
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
