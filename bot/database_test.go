package bot_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
)

// TestNewDatabaseUnreachable starts a bot on a port nothing listens on.
func TestNewDatabaseUnreachable(t *testing.T) {
	t.Parallel()
	cfg := bot.Config{
		DatabaseURL: "postgres://postgres@127.0.0.1:1/analyticsbot?sslmode=disable&connect_timeout=5",
		LLMProvider: "script",
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := bot.New(ctx, cfg, discardLogger())
	require.Error(t, err, "new bot on a closed port")
	assert.Nil(t, b, "bot")
	assert.True(t, errors.Is(err, store.ErrUnavailable), "got %v, want an error wrapping store.ErrUnavailable", err)
	assert.Contains(t, err.Error(), "127.0.0.1:1", "the error must name the server")
}

// testDatabaseDown takes the database away from running bots, through a TCP
// proxy the test controls: connections drop and new ones are refused, as
// when the server goes down.
func testDatabaseDown(t *testing.T, e *testEnv) {
	t.Run("after answering", func(t *testing.T) {
		t.Parallel()
		p := startProxy(t, e.url)
		b := newBot(t, e, script(), func(c *bot.Config) { c.DatabaseURL = p.url })
		thread := bot.NewThreadID()
		first, _ := ask(t, b, thread, "How many games were released in 2018?")
		require.Empty(t, first.ErrorKind, "first question through the proxy: %s", first.ErrorDetail)

		p.stop()
		s, res := ask(t, b, thread, "How many games were released in 2017?")
		// The query fails first: the backend's database is the bot's own.
		assert.Equal(t, nodes.ErrWarehouseDown, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
		assert.Contains(t, s.ResponseText, "I can't reach the database right now", "reply")
		assert.NotContains(t, res.Path(), nodes.NodeInterpret, "path")
		assert.Empty(t, s.Result.Rows, "rows")

		b.Cache().Forget()
		csv, _ := ask(t, b, thread, "export as csv")
		assert.Equal(t, nodes.ErrDatabaseDown, csv.ErrorKind, "export error kind (detail %s)", csv.ErrorDetail)
		assert.Empty(t, csv.CSVContent, "csv")

		p.restart(t)
		again, _ := ask(t, b, thread, "How many games were released in 2017?")
		require.Empty(t, again.ErrorKind, "after the database came back: %s", again.ErrorDetail)
		assert.Equal(t, [][]any{{int64(games2017)}}, again.Result.Rows, "rows after the database came back")
	})

	t.Run("pool closed", func(t *testing.T) {
		t.Parallel()
		b := newBot(t, e, script())
		thread := bot.NewThreadID()
		first, _ := ask(t, b, thread, "How many games were released in 2018?")
		require.Empty(t, first.ErrorKind, "first question: %s", first.ErrorDetail)

		b.Close()
		s, _ := ask(t, b, thread, "How many games were released in 2017?")
		assert.Equal(t, nodes.ErrWarehouseDown, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
		assert.Contains(t, s.ResponseText, "I can't reach the database right now", "reply")
	})

	t.Run("before the schema was read", func(t *testing.T) {
		t.Parallel()
		p := startProxy(t, e.url)
		b := newBot(t, e, script(), func(c *bot.Config) { c.DatabaseURL = p.url })
		p.stop()

		s, res := ask(t, b, bot.NewThreadID(), "How many games were released in 2018?")
		assert.Equal(t, nodes.ErrWarehouseDown, s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
		assert.Contains(t, s.ResponseText, "I can't reach the database right now", "reply")
		assert.Equal(t, []string{
			nodes.NodeRouteIntent, nodes.NodeResolveContext, nodes.NodeGenerateQuery,
			nodes.NodeHandleError, nodes.NodeSaveTurn,
		}, res.Path(), "path")
		assert.Contains(t, strings.Join(s.Notes, "\n"), "saving the turn failed", "notes")
	})
}

// tcpProxy forwards connections to Postgres until it is stopped.
type tcpProxy struct {
	target string
	addr   string
	url    string

	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// startProxy listens on a free local port and forwards to the server of
// databaseURL; url is databaseURL pointed at the proxy.
func startProxy(t *testing.T, databaseURL string) *tcpProxy {
	t.Helper()
	u, err := url.Parse(databaseURL)
	require.NoError(t, err, "parse database url")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err, "proxy listen")
	p := &tcpProxy{target: u.Host, addr: ln.Addr().String()}
	u.Host = p.addr
	p.url = u.String()
	p.serve(ln)
	t.Cleanup(p.stop)
	return p
}

// restart listens again on the same address.
func (p *tcpProxy) restart(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	require.NoError(t, err, "proxy listen again on %s", p.addr)
	p.serve(ln)
}

func (p *tcpProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln, p.conns, p.closed = ln, map[net.Conn]struct{}{}, false
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
			go p.pipe(client, server)
			go p.pipe(server, client)
		}
	}()
}

// track registers a connection pair, or closes it when the proxy stopped
// in the meantime.
func (p *tcpProxy) track(conns ...net.Conn) bool {
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

// pipe copies until either side ends, then closes both.
func (p *tcpProxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
}

// stop closes the listener and every forwarded connection, and waits for
// the proxy's goroutines.
func (p *tcpProxy) stop() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.ln.Close()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
