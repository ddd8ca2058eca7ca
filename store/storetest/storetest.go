// Package storetest gives tests a real, freshly migrated Postgres database of
// their own, dropped when the test ends, so tests run in parallel without
// seeing each other's rows. Without a reachable server a test is skipped, or
// fails when CI=true.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/analyticsbot/analyticsbot/store"
)

// defaultAdminURL is the local development server (trust authentication).
const defaultAdminURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// setupTimeout bounds creating, migrating and dropping a test database.
const setupTimeout = 60 * time.Second

// DefaultAdminURL returns DATABASE_URL, or the local server's postgres
// database when it is unset. Test databases are created through it.
func DefaultAdminURL() string {
	if u := os.Getenv("DATABASE_URL"); u != "" {
		return u
	}
	return defaultAdminURL
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
	adminURL := DefaultAdminURL()
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()

	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		unreachable(t, adminURL, err)
	}
	name := "abt_test_" + randomSuffix(t)
	_, err = admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	admin.Close(ctx)
	if err != nil {
		t.Fatalf("create test database %s: %v", name, err)
	}

	dbURL, err := withDatabase(adminURL, name)
	if err != nil {
		t.Fatalf("test database url: %v", err)
	}
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		dropDatabase(t, adminURL, name)
		t.Fatalf("open test database %s: %v", name, err)
	}
	t.Cleanup(func() {
		db.Close()
		dropDatabase(t, adminURL, name)
	})
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate test database %s: %v", name, err)
	}
	return db, dbURL
}

// unreachable skips the test, or fails it in CI where a missing database
// must never pass silently.
func unreachable(t testing.TB, adminURL string, err error) {
	t.Helper()
	msg := fmt.Sprintf("postgres not reachable at %s: %v", redact(adminURL), err)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

func dropDatabase(t testing.TB, adminURL, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Errorf("drop test database %s: %v", name, err)
		return
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		t.Errorf("drop test database %s: %v", name, err)
	}
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

func randomSuffix(t testing.TB) string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatalf("random database name: %v", err)
	}
	return hex.EncodeToString(b[:])
}
