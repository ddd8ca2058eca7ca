package slackapp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// testDB is the package's database, migrated and with the demo data
// loaded once. Tests keep apart by channel id.
var testDB struct {
	url         string
	unavailable string
}

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, url, drop, err := storetest.Create(ctx)
	switch {
	case errors.Is(err, storetest.ErrUnreachable):
		testDB.unavailable = err.Error()
		return m.Run()
	case err != nil:
		fmt.Fprintln(os.Stderr, "slackapp tests: set up the database:", err)
		return 1
	}
	defer func() {
		if err := drop(); err != nil {
			fmt.Fprintln(os.Stderr, "slackapp tests:", err)
		}
	}()
	if _, err := demo.Load(ctx, db.Pool(), demo.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, "slackapp tests: load demo data:", err)
		return 1
	}
	testDB.url = url
	return m.Run()
}

// needDB skips (or, with CI=true, fails) a test without the database.
func needDB(t testing.TB) string {
	t.Helper()
	if testDB.unavailable != "" {
		storetest.Unavailable(t, testDB.unavailable)
	}
	return testDB.url
}
