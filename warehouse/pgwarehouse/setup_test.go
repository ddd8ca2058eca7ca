package pgwarehouse_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// analyticsSetup builds what a deployment provides: an analytics schema
// readable by the reader role, plus a private schema and the bot's own tables
// in public that the role must not read.
const analyticsSetup = `
CREATE SCHEMA analytics;
CREATE TYPE analytics.mood AS ENUM ('happy', 'sad');
CREATE TABLE analytics.orders (
    id       int PRIMARY KEY,
    customer text NOT NULL,
    amount   numeric(10,2) NOT NULL
);
INSERT INTO analytics.orders VALUES (1, 'acme', 19.99), (2, 'globex', 5.00);
GRANT USAGE ON SCHEMA analytics TO analyticsbot_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA analytics TO analyticsbot_reader;

CREATE SCHEMA private;
CREATE TABLE private.salaries (name text, salary int);
INSERT INTO private.salaries VALUES ('ceo', 1000000);
`

// newAnalyticsDB returns a migrated test database holding analyticsSetup,
// and its URL.
func newAnalyticsDB(t testing.TB) (*store.DB, string) {
	t.Helper()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(context.Background(), analyticsSetup)
	require.NoError(t, err, "analytics setup")
	return db, url
}

// newExec returns an executor on the database of url, closed when the test
// ends; zero fields of cfg take the defaults.
func newExec(t testing.TB, url string, cfg pgwarehouse.ExecConfig) *pgwarehouse.Executor {
	t.Helper()
	if cfg.DatabaseURL == "" && cfg.URL == "" {
		cfg.DatabaseURL = url
	}
	exec := pgwarehouse.NewExecutor(cfg)
	t.Cleanup(exec.Close)
	return exec
}

// assertKind checks that err is a *warehouse.Error of kind want.
func assertKind(t testing.TB, want warehouse.ErrorKind, err error, msgAndArgs ...any) bool {
	t.Helper()
	return assert.Equal(t, want, warehouse.KindOf(err), append(msgAndArgs, err)...)
}

// idleHeap is the heap in use once garbage is collected: twice, as a
// buffer given back to a sync.Pool goes with the second.
func idleHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
