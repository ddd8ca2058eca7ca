package slackapp

import (
	"context"
	"os"
	"testing"

	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// testDB is the package's database, migrated and with the demo data
// loaded once. Tests keep apart by channel id.
var testDB storetest.Shared

func TestMain(m *testing.M) {
	os.Exit(storetest.Main(m, "slackapp", &testDB, func(ctx context.Context, db *store.DB) error {
		_, err := demo.Load(ctx, db.Pool(), demo.Options{})
		return err
	}))
}

// needDB skips (or, with CI=true, fails) a test without the database and
// returns its URL.
func needDB(t testing.TB) string {
	t.Helper()
	testDB.Need(t)
	return testDB.URL
}
