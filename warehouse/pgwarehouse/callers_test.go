package pgwarehouse_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// slowQueries runs n queries that sleep until the test ends, as who, and
// waits until the database runs them all.
func slowQueries(t *testing.T, db *store.DB, exec *pgwarehouse.Executor, who warehouse.Caller, n int) {
	t.Helper()
	ctx, cancel := context.WithCancel(warehouse.WithCaller(context.Background(), who))
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	for range n {
		wg.Go(func() { _, _ = exec.Query(ctx, "SELECT pg_sleep(600)") })
	}
	require.Eventually(t, func() bool {
		var running int
		err := db.Pool().QueryRow(context.Background(),
			`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%pg_sleep(600)%' AND pid <> pg_backend_pid()`).Scan(&running)
		return err == nil && running == n
	}, time.Minute, 20*time.Millisecond, "the %d slow queries run", n)
}

// READER_PER_USER: one person's slow queries leave the others
// connections: their next one waits, then is told the bot is busy, while
// someone else's query runs.
func TestOnePersonCannotTakeEveryConnection(t *testing.T) {
	t.Parallel()
	db, url := newAnalyticsDB(t)
	exec := newExec(t, url, pgwarehouse.ExecConfig{PerUser: 2, Timeout: time.Second, StatementTimeout: 15 * time.Minute})
	alice := warehouse.Caller{UserID: "U0ALICE", Email: "alice@example.com"}
	slowQueries(t, db, exec, alice, 2)

	_, err := exec.Query(warehouse.WithCaller(context.Background(), alice), "SELECT 1")
	assertKind(t, warehouse.Busy, err, "a third query of hers is refused as busy")

	res, err := exec.Query(warehouse.WithCaller(context.Background(), warehouse.Caller{UserID: "U0BOB"}), "SELECT 1 AS one")
	require.NoError(t, err, "someone else's query runs")
	assert.Equal(t, []any{int64(1)}, res.Rows[0])
}

// With every reader connection in use, a query that waited for one past
// DATABASE_TIMEOUT is told the bot is busy, not that the database did not
// answer: it did.
func TestAFullPoolIsBusy(t *testing.T) {
	t.Parallel()
	db, url := newAnalyticsDB(t)
	exec := newExec(t, url, pgwarehouse.ExecConfig{PerUser: 8, Timeout: time.Second, StatementTimeout: 15 * time.Minute})
	slowQueries(t, db, exec, warehouse.Caller{UserID: "U0ALICE"}, 8)

	_, err := exec.Query(warehouse.WithCaller(context.Background(), warehouse.Caller{UserID: "U0BOB"}), "SELECT 1")
	assertKind(t, warehouse.Busy, err)
}
