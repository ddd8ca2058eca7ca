package slackapp

import (
	"os"
	"testing"

	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// testDB is the package's database, migrated and with the demo data
// loaded once. Tests keep apart by channel id.
var testDB storetest.Shared

func TestMain(m *testing.M) {
	os.Exit(storetest.Main(m, "slackapp", &testDB, bottest.LoadDemo))
}

// needDB skips (or, with CI=true, fails) a test without the database and
// returns its URL.
func needDB(t testing.TB) string {
	t.Helper()
	testDB.Need(t)
	return testDB.URL
}
