package demo

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// defaultAdminURL is the local test server; ANALYTICSBOT_TEST_ADMIN_URL overrides it.
const defaultAdminURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// createReaderRole mirrors the migration that really owns the role. Tests of other packages
// run it concurrently against the same cluster, hence both error codes are tolerated.
const createReaderRole = `DO $$
BEGIN
	CREATE ROLE analyticsbot_reader NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
	NULL;
END $$`

// testDB is the package's own database, created by TestMain and dropped after the run.
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
	adminURL := os.Getenv("ANALYTICSBOT_TEST_ADMIN_URL")
	if adminURL == "" {
		adminURL = defaultAdminURL
	}
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		testDB.unavailable = fmt.Sprintf("postgres unreachable at %s: %v", adminURL, err)
		return m.Run()
	}
	defer admin.Close(context.Background())

	name := fmt.Sprintf("demo_test_%d_%d", os.Getpid(), time.Now().UnixNano()%1_000_000)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		fmt.Fprintf(os.Stderr, "create test database: %v\n", err)
		return 1
	}
	defer func() {
		_, err := admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		if err != nil {
			fmt.Fprintf(os.Stderr, "drop test database %s: %v\n", name, err)
		}
	}()
	if _, err := admin.Exec(ctx, createReaderRole); err != nil {
		fmt.Fprintf(os.Stderr, "create reader role: %v\n", err)
		return 1
	}

	u, err := url.Parse(adminURL)
	if err != nil {
		fmt.Fprintf(os.Stderr, "parse admin url: %v\n", err)
		return 1
	}
	u.Path = "/" + name
	testDB.pool, err = pgxpool.New(ctx, u.String())
	if err != nil {
		fmt.Fprintf(os.Stderr, "connect test database: %v\n", err)
		return 1
	}
	defer testDB.pool.Close()
	testDB.loaded, testDB.loadErr = Load(ctx, testDB.pool, Options{})
	return m.Run()
}

// requirePool returns the test database pool, or skips (fails when CI=true) without Postgres.
func requirePool(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	if testDB.pool == nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("CI=true but %s", testDB.unavailable)
		}
		tb.Skipf("skipping: %s", testDB.unavailable)
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
