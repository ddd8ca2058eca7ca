package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// TestCLIGrant: `analyticsbot grant` lets the reader role read every schema
// of ANALYTICS_SCHEMA, tables made later included, and nothing else.
func TestCLIGrant(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, `CREATE SCHEMA marts; CREATE TABLE marts.games (id int);
		CREATE SCHEMA finance; CREATE TABLE finance.revenue (usd int);
		CREATE SCHEMA private; CREATE TABLE private.salaries (usd int);`)
	require.NoError(t, err)
	setDemoEnv(t, dbURL)
	t.Setenv("ANALYTICS_SCHEMA", "marts, finance")

	got := runCLI(t, "", "grant")
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	assert.Equal(t, "analyticsbot_reader may now read every table of marts, finance, and the tables created there later\n", got.stdout)

	_, err = db.Pool().Exec(ctx, `CREATE TABLE finance.later (x int)`)
	require.NoError(t, err)
	for table, want := range map[string]bool{
		"marts.games": true, "finance.revenue": true, "finance.later": true, "private.salaries": false,
	} {
		var ok bool
		require.NoError(t, db.Pool().QueryRow(ctx,
			`SELECT has_table_privilege('analyticsbot_reader', $1, 'SELECT')
			    AND has_schema_privilege('analyticsbot_reader', split_part($1, '.', 1), 'USAGE')`, table).Scan(&ok))
		assert.Equal(t, want, ok, "the reader reads %s", table)
	}
}
