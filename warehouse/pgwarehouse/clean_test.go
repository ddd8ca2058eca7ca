package pgwarehouse_test

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// What docs/security.md says of a query's connection, seen on the wire by
// a proxy between the executor and PostgreSQL: three round trips, a
// statement that never runs unsigned, and a connection that cannot be
// cleaned closed rather than pooled.

// tappedExec is an executor that signs who it runs for and reaches the
// database of db through a proxy, warmed up: its one connection is open.
func tappedExec(t *testing.T) (*pgwarehouse.Executor, *storetest.Proxy, *store.DB) {
	t.Helper()
	db, url := newAnalyticsDB(t)
	p := storetest.NewProxy(t, url)
	exec := newExec(t, "", pgwarehouse.ExecConfig{DatabaseURL: p.URL(), IdentityKey: bytes.Repeat([]byte{7}, 64)})
	_, err := exec.Query(context.Background(), "SELECT 1")
	require.NoError(t, err, "through the proxy")
	return exec, p, db
}

// backendPID is the server process a query of exec ran on.
func backendPID(t *testing.T, exec *pgwarehouse.Executor) int {
	t.Helper()
	res, err := exec.Query(context.Background(), "SELECT pg_backend_pid()")
	require.NoError(t, err)
	require.Len(t, res.Rows, 1)
	pid, ok := res.Rows[0][0].(int64)
	require.True(t, ok, "pg_backend_pid() is %T", res.Rows[0][0])
	return int(pid)
}

// A query takes three round trips: BEGIN with the settings, the signature
// with the statement, and the ROLLBACK with DISCARD ALL.
func TestExecutorQueryTakesThreeRoundTrips(t *testing.T) {
	t.Parallel()
	exec, p, _ := tappedExec(t)

	var mu sync.Mutex
	trips, clientSpokeLast, begun := 0, false, false
	p.Tap(func(toServer bool, b []byte) {
		mu.Lock()
		defer mu.Unlock()
		// From the BEGIN on: the pool pings a connection idle for a
		// second before handing it out, which is not the query's.
		if begun = begun || toServer && bytes.Contains(bytes.ToLower(b), []byte("begin")); !begun {
			return
		}
		if toServer && !clientSpokeLast {
			trips++ // the client speaks after the server answered: a new round trip
		}
		clientSpokeLast = toServer
	})
	_, err := exec.Query(context.Background(), "SELECT 1")
	require.NoError(t, err)
	p.Tap(nil)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 3, trips, "round trips of one query on an open connection")
}

// When the statement signing who the query runs for fails, the server
// skips the query's statement (one pipeline, one Sync): nothing runs
// unsigned, and the connection is clean for the next query.
func TestExecutorSkipsTheStatementWhenTheSignatureFails(t *testing.T) {
	t.Parallel()
	exec, p, _ := tappedExec(t)

	var mu sync.Mutex
	ran := false
	p.Tap(func(toServer bool, b []byte) {
		mu.Lock()
		defer mu.Unlock()
		if toServer {
			// An invalid setting name, the same number of bytes: the
			// signature fails on the server.
			if i := bytes.Index(b, []byte("'analyticsbot.signature'")); i >= 0 {
				copy(b[i:], "'analyticsbot.signatur!'")
			}
			return
		}
		ran = ran || bytes.Contains(b, []byte("the statement ran"))
	})
	_, err := exec.Query(context.Background(), "SELECT 'the statement ran'")
	p.Tap(nil)
	require.Error(t, err, "a query whose signature failed")
	assert.Contains(t, err.Error(), "invalid configuration parameter name", "the signature's error")
	mu.Lock()
	assert.False(t, ran, "the server ran the statement after its signature failed")
	mu.Unlock()

	res, err := exec.Query(context.Background(), "SELECT 'next'")
	require.NoError(t, err, "the next query, on the cleaned connection")
	assert.Equal(t, [][]any{{"next"}}, res.Rows)
}

// A connection whose cleaning fails (here DISCARD ALL, garbled on the way)
// is closed, not returned to the pool: the answer stands, and the next
// query runs on another server process.
func TestExecutorClosesAConnectionItCannotClean(t *testing.T) {
	t.Parallel()
	exec, p, db := tappedExec(t)

	p.Tap(func(toServer bool, b []byte) {
		if i := bytes.Index(b, []byte("DISCARD ALL")); toServer && i >= 0 {
			copy(b[i:], "DISCARD AXX") // a syntax error on the server
		}
	})
	first := backendPID(t, exec)
	p.Tap(nil)

	assert.NotEqual(t, first, backendPID(t, exec), "the connection that could not be cleaned served the next query")
	assert.Eventually(t, func() bool {
		var n int
		err := db.Pool().QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE pid = $1", first).Scan(&n)
		return err == nil && n == 0
	}, 10*time.Second, 50*time.Millisecond, "the server process of the closed connection ended")
}
