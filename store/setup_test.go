package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
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
