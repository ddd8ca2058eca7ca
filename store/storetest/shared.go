package storetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/analyticsbot/analyticsbot/store"
)

// Shared is a database all tests of a package share, set up once by Main
// (loading demo data takes seconds). Tests keep apart by thread or channel.
type Shared struct {
	// DB and URL are the database; nil and "" without a server.
	DB  *store.DB
	URL string
	// unavailable says why there is no database.
	unavailable string
}

// Main is a package's TestMain body: it creates a migrated database, runs
// setup on it (nil for none), runs the tests and drops the database. It
// returns the exit code for os.Exit. Without a reachable server the tests
// still run, and Need skips them (fails them when CI=true); a failing
// setup fails the package. name prefixes error messages.
func Main(m *testing.M, name string, shared *Shared, setup func(context.Context, *store.DB) error) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, url, drop, err := Create(ctx)
	switch {
	case errors.Is(err, ErrUnreachable):
		shared.unavailable = err.Error()
		return m.Run()
	case err != nil:
		fmt.Fprintf(os.Stderr, "%s tests: set up the database: %v\n", name, err)
		return 1
	}
	defer func() {
		if err := drop(); err != nil {
			fmt.Fprintf(os.Stderr, "%s tests: %v\n", name, err)
		}
	}()
	if setup != nil {
		if err := setup(ctx, db); err != nil {
			fmt.Fprintf(os.Stderr, "%s tests: set up the data: %v\n", name, err)
			return 1
		}
	}
	shared.DB, shared.URL = db, url
	return m.Run()
}

// Need returns the shared database, or skips the test (fails it when
// CI=true) when there is none.
func (s *Shared) Need(t testing.TB) *store.DB {
	t.Helper()
	if s.DB == nil {
		Unavailable(t, s.unavailable)
	}
	return s.DB
}
