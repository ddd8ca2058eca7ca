package demo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// testDB is the package's own database, created and migrated (the migration
// creates the reader role) by TestMain and dropped after the run.
var testDB struct {
	pool        *pgxpool.Pool
	unavailable string // why there is no pool; tests skip (or fail in CI) with it
	// The default schema is loaded before any test runs, so that pg_trgm lands in it as in
	// production and not in whichever test schema a parallel test happens to load first.
	loaded  Stats
	loadErr error
}

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, _, drop, err := storetest.Create(ctx)
	switch {
	case errors.Is(err, storetest.ErrUnreachable):
		testDB.unavailable = err.Error()
		return m.Run()
	case err != nil:
		fmt.Fprintln(os.Stderr, "demo tests: set up the database:", err)
		return 1
	}
	defer func() {
		if err := drop(); err != nil {
			fmt.Fprintln(os.Stderr, "demo tests:", err)
		}
	}()
	testDB.pool = db.Pool()
	testDB.loaded, testDB.loadErr = Load(ctx, testDB.pool, Options{})
	return m.Run()
}

// requirePool returns the test database pool, or skips (fails when CI=true) without Postgres.
func requirePool(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	if testDB.pool == nil {
		storetest.Unavailable(tb, testDB.unavailable)
	}
	return testDB.pool
}

// loadedPool returns the pool with the demo data loaded into the default schema.
func loadedPool(tb testing.TB) (*pgxpool.Pool, Stats) {
	tb.Helper()
	pool := requirePool(tb)
	if testDB.loadErr != nil {
		tb.Fatalf("load demo data: %v", testDB.loadErr)
	}
	return pool, testDB.loaded
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
