package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// `demo load` drops and recreates its tables in the first schema of
// ANALYTICS_SCHEMA. A user's table of one of their names (a shop's tags)
// is not the demo's: the load refuses, names it, says how to go on, and
// changes nothing. A schema the demo loaded before reloads.
func TestCLIDemoLoadKeepsUserTables(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, `CREATE SCHEMA shop;
		CREATE TABLE shop.tags (customer_email text, tag text);
		INSERT INTO shop.tags VALUES ('ana@example.com', 'vip'), ('bo@example.com', 'churned');
		CREATE VIEW shop.genres AS SELECT DISTINCT tag AS name FROM shop.tags`)
	require.NoError(t, err)

	t.Setenv("ANALYTICS_SCHEMA", "shop")
	got := runCLI(t, "", "demo", "load")
	require.Error(t, got.err, "stdout: %s", got.stdout)
	assert.NotErrorIs(t, got.err, errUsage, "exit 1: the command line was right")
	assert.EqualError(t, got.err, "demo load changed nothing: it would drop and replace shop.genres, shop.tags, which it did not create. "+
		"Load the demo into a schema of its own, named first in ANALYTICS_SCHEMA (e.g. ANALYTICS_SCHEMA=steam,shop), "+
		"or drop or rename those tables yourself first")
	assert.NotContains(t, got.stdout, "demo data loaded")
	assertShopTags(t, db)
	var apps bool
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT to_regclass('shop.apps') IS NOT NULL`).Scan(&apps))
	assert.False(t, apps, "no demo table was created in shop")

	// As the error says: a schema of its own, first. Twice: the second
	// load replaces the first's tables, which it recognises.
	t.Setenv("ANALYTICS_SCHEMA", "steam,shop")
	for _, run := range []string{"first load", "reload"} {
		got = runCLI(t, "", "demo", "load")
		require.NoError(t, got.err, "%s; stderr: %s", run, got.stderr)
		assert.Contains(t, got.stdout, `demo data loaded into "steam"`, run)
	}
	assertShopTags(t, db)
}

// assertShopTags checks that the shop's two tags rows are still there.
func assertShopTags(t *testing.T, db *store.DB) {
	t.Helper()
	var n int
	require.NoError(t, db.Pool().QueryRow(context.Background(), `SELECT count(*) FROM shop.tags WHERE customer_email LIKE '%@example.com'`).Scan(&n))
	assert.Equal(t, 2, n, "the shop's tags rows")
}

// `demo load defog` drops and recreates a schema per benchmark database
// (geography, yelp, …). One that holds anything no load created, a user's
// own yelp schema or a table added to a loaded one, stops it before it
// changes anything; a schema it loaded itself reloads.
func TestCLIDemoLoadDefogKeepsUserSchemas(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, `CREATE SCHEMA yelp;
		CREATE TABLE yelp.customers (email text);
		INSERT INTO yelp.customers VALUES ('ana@example.com'), ('bo@example.com')`)
	require.NoError(t, err)

	got := runCLI(t, "", "demo", "load", "defog")
	require.Error(t, got.err, "stdout: %s", got.stdout)
	assert.NotErrorIs(t, got.err, errUsage)
	assert.ErrorContains(t, got.err, "demo load defog changed nothing: it drops and recreates the schemas academic, advising, ")
	assert.ErrorContains(t, got.err, "and the schemas it would drop hold yelp.customers, which no benchmark load created. "+
		"Load the benchmark into a database of its own")
	var n int
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT count(*) FROM yelp.customers`).Scan(&n))
	assert.Equal(t, 2, n, "the user's yelp rows")
	var academic bool
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_namespace WHERE nspname = 'academic')`).Scan(&academic))
	assert.False(t, academic, "no benchmark schema was created")

	_, err = db.Pool().Exec(ctx, `DROP SCHEMA yelp CASCADE`)
	require.NoError(t, err)
	for _, run := range []string{"first load", "reload"} {
		got = runCLI(t, "", "demo", "load", "defog")
		require.NoError(t, got.err, "%s; stderr: %s", run, got.stderr)
		assert.Contains(t, got.stdout, "defog benchmark loaded in ", run)
	}

	_, err = db.Pool().Exec(ctx, `CREATE TABLE geography.my_notes (note text)`)
	require.NoError(t, err)
	got = runCLI(t, "", "demo", "load", "defog")
	assert.ErrorContains(t, got.err, "the schemas it would drop hold geography.my_notes, which no benchmark load created")
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT count(*) FROM geography.my_notes`).Scan(&n), "the table is still there")
}
