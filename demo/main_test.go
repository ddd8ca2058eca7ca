package demo

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// testDB is the package's own database, created and migrated (the migration
// creates the reader role) by TestMain and dropped after the run.
var testDB storetest.Shared

// The default schema is loaded before any test runs, so that pg_trgm lands
// in it as in production and not in whichever test schema a parallel test
// happens to load first. A failed load fails only the tests that need it.
var demoLoad struct {
	stats Stats
	err   error
}

func TestMain(m *testing.M) {
	os.Exit(storetest.Main(m, "demo", &testDB, func(ctx context.Context, db *store.DB) error {
		demoLoad.stats, demoLoad.err = Load(ctx, db.Pool(), Options{})
		return nil
	}))
}

// requirePool returns the test database pool, or skips (fails when CI=true) without Postgres.
func requirePool(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	return testDB.Need(tb).Pool()
}

// loadedPool returns the pool with the demo data loaded into the default schema.
func loadedPool(tb testing.TB) (*pgxpool.Pool, Stats) {
	tb.Helper()
	pool := requirePool(tb)
	if demoLoad.err != nil {
		tb.Fatalf("load demo data: %v", demoLoad.err)
	}
	return pool, demoLoad.stats
}

// queryInt runs a query returning one integer.
func queryInt(tb testing.TB, pool *pgxpool.Pool, sql string, args ...any) int64 {
	tb.Helper()
	var n int64
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		tb.Fatalf("query %q: %v", sql, err)
	}
	return n
}
