// Package storetest gives tests a real, freshly migrated Postgres database of
// their own, dropped when the test ends, so tests run in parallel without
// seeing each other's rows. Without a reachable server a test is skipped, or
// fails when CI=true.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/analyticsbot/analyticsbot/pgpool"
	"github.com/analyticsbot/analyticsbot/store"
)

// defaultAdminURL is the local development server (trust authentication).
const defaultAdminURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// setupTimeout bounds creating, migrating and dropping a test database.
const setupTimeout = 60 * time.Second

// DefaultAdminURL returns the maintenance database "postgres" on the
// server of DATABASE_URL (with its user and options), or on the local
// server when DATABASE_URL is unset. Test databases are created through
// it. It is not DATABASE_URL itself: that database (the bot's own, which
// `make run` creates) need not exist on a fresh machine.
func DefaultAdminURL() string {
	u := os.Getenv("DATABASE_URL")
	if u == "" {
		return defaultAdminURL
	}
	admin, err := withDatabase(u, "postgres")
	if err != nil {
		return u // Create reports the malformed URL
	}
	return admin
}

// New returns a pool on a new migrated database; see NewWithURL.
func New(t testing.TB) *store.DB {
	t.Helper()
	db, _ := NewWithURL(t)
	return db
}

// NewWithURL creates a database named abt_test_<random> on the server of
// DefaultAdminURL, migrates it and returns a pool on it with its URL. Cleanup
// closes the pool and drops the database, forcibly disconnecting leftovers.
func NewWithURL(t testing.TB) (*store.DB, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	db, dbURL, drop, err := Create(ctx)
	if errors.Is(err, ErrUnreachable) {
		Unavailable(t, err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Error(err)
		}
	})
	return db, dbURL
}

// ErrUnreachable means no Postgres server answered at DefaultAdminURL.
var ErrUnreachable = errors.New("postgres not reachable")

// Create makes a database named abt_test_<random> like NewWithURL, for
// callers without a test, such as TestMain. drop closes the pool and drops
// the database. An unreachable server gives an error wrapping ErrUnreachable.
func Create(ctx context.Context) (db *store.DB, dbURL string, drop func() error, err error) {
	adminURL := DefaultAdminURL()
	admin, err := connect(ctx, adminURL)
	if err != nil {
		return nil, "", nil, fmt.Errorf("%w at %s: %v", ErrUnreachable, redact(adminURL), err)
	}
	name := newName()
	_, err = admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	admin.Close(ctx)
	if err != nil {
		return nil, "", nil, fmt.Errorf("create test database %s: %w", name, err)
	}
	drop = func() error {
		if db != nil {
			db.Close()
		}
		return dropDatabase(adminURL, name)
	}
	if dbURL, err = withDatabase(adminURL, name); err != nil {
		return nil, "", nil, errors.Join(err, drop())
	}
	if db, err = store.Open(ctx, dbURL); err != nil {
		return nil, "", nil, errors.Join(fmt.Errorf("open test database %s: %w", name, err), drop())
	}
	if err := db.Migrate(ctx); err != nil {
		return nil, "", nil, errors.Join(fmt.Errorf("migrate test database %s: %w", name, err), drop())
	}
	return db, dbURL, drop, nil
}

// MissingURL returns the URL of a database that does not exist yet, named
// abt_test_<random> on the server of DefaultAdminURL, for tests of what
// creates it (`migrate` on a fresh machine). Cleanup drops it, if it was
// created, with the readers set up in it alone, like NewWithURL's.
func MissingURL(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	adminURL := DefaultAdminURL()
	admin, err := connect(ctx, adminURL)
	if err != nil {
		Unavailable(t, fmt.Sprintf("%v at %s: %v", ErrUnreachable, redact(adminURL), err))
	}
	admin.Close(ctx)
	name := newName()
	dbURL, err := withDatabase(adminURL, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := dropDatabase(adminURL, name); err != nil {
			t.Error(err)
		}
	})
	return dbURL
}

// newName is a fresh name for a test database.
func newName() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on Linux
	return "abt_test_" + hex.EncodeToString(b[:])
}

// Unavailable skips the test because Postgres is missing, or fails it when
// CI=true, where a missing database must never pass silently.
func Unavailable(t testing.TB, reason string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true but %s", reason)
	}
	t.Skipf("skipping: %s", reason)
}

func dropDatabase(adminURL, name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	admin, err := connect(ctx, adminURL)
	if err != nil {
		return fmt.Errorf("drop test database %s: %w", name, err)
	}
	defer admin.Close(ctx)
	// The database's own reader and its policy roles (the CLI's `migrate`
	// and `access apply` make them) belong to the server: the readers set
	// up in this database alone go with it.
	rows, err := admin.Query(ctx, `
		SELECT quote_ident(r.rolname) FROM pg_roles r
		WHERE starts_with(r.rolname, 'analyticsbot_reader_')
		  AND EXISTS (SELECT 1 FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
		              WHERE s.setrole = r.oid AND d.datname = $1)
		  AND NOT EXISTS (SELECT 1 FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
		                  WHERE s.setrole = r.oid AND d.datname <> $1)`, name)
	if err != nil {
		return fmt.Errorf("find the roles of test database %s: %w", name, err)
	}
	roles, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("find the roles of test database %s: %w", name, err)
	}
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop test database %s: %w", name, err)
	}
	for _, r := range roles {
		if _, err := admin.Exec(ctx, "DROP ROLE IF EXISTS "+r); err != nil {
			return fmt.Errorf("drop role %s of test database %s: %w", r, name, err)
		}
	}
	return nil
}

// withDatabase returns rawURL with its database replaced by name.
func withDatabase(rawURL, name string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", fmt.Errorf("DATABASE_URL must be a postgres:// URL, got %s", redact(rawURL))
	}
	u.Path = "/" + name
	u.RawPath = ""
	return u.String(), nil
}

// redact hides the password of a URL for messages.
func redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparsable database URL)"
	}
	return u.Redacted()
}

// connect opens one connection to url, without the settings only a pool
// takes (DATABASE_URL's pool_max_conns, …), which the server would refuse.
func connect(ctx context.Context, url string) (*pgx.Conn, error) {
	cfg, err := pgpool.ConnConfig(url)
	if err != nil {
		return nil, err
	}
	return pgx.ConnectConfig(ctx, cfg)
}
