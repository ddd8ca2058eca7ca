package pgwarehouse_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

func TestReaderRoleFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		dsn, want string
	}{
		{"postgres://postgres@127.0.0.1:5432/analyticsbot", "analyticsbot_reader_analyticsbot"},
		{"postgres://bot:secret@db.internal/sales?sslmode=disable", "analyticsbot_reader_sales"},
		{"host=127.0.0.1 user=postgres dbname=shop", "analyticsbot_reader_shop"},
		{"postgres://postgres@127.0.0.1/abt_test_0123456789ab", "analyticsbot_reader_abt_test_0123456789ab"},
		// Characters a plain role name has not, or a long name: the start
		// and the first 4 bytes of the name's SHA-256 (as sha256sum prints), so
		// databases whose names reduce alike differ.
		{"postgres://postgres@127.0.0.1/Sales", "analyticsbot_reader_sales_8de4e0ea"},
		{"postgres://postgres@127.0.0.1/sales-eu", "analyticsbot_reader_sales_eu_d47ed7b0"},
		{"postgres://postgres@127.0.0.1/a_database_with_a_very_long_name", "analyticsbot_reader_a_database_with_a1e5377a"},
	}
	for _, tt := range tests {
		got, err := pgwarehouse.ReaderRoleFor(tt.dsn)
		require.NoError(t, err, tt.dsn)
		assert.Equal(t, tt.want, got, tt.dsn)
		assert.LessOrEqual(t, len(got), 44, "room for a policy's name in PostgreSQL's 63 bytes")
	}
	_, err := pgwarehouse.ReaderRoleFor("postgres://bot:hunter2@[::1")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "hunter2", "the password never shows")
}

// Two deployments on one server, each with its own reader (as `migrate`
// makes them): neither reader may read the other's tables, even logged in
// to the other's database, and neither is found set up elsewhere; the
// shared reader the migrations create is.
func TestReaderPerDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	type deployment struct {
		url, reader string
	}
	var deps []deployment
	for range 2 {
		db, url := storetest.NewWithURL(t)
		reader, err := pgwarehouse.ReaderRoleFor(url)
		require.NoError(t, err)
		require.NoError(t, pgwarehouse.EnsureReaderRole(ctx, db.Pool(), reader))
		_, err = db.Pool().Exec(ctx, `CREATE SCHEMA sales; CREATE TABLE sales.deals (id int); INSERT INTO sales.deals VALUES (1)`)
		require.NoError(t, err)
		require.NoError(t, pgwarehouse.Grant(ctx, db.Pool(), reader, []string{"sales"}))
		others, err := pgwarehouse.OtherDatabases(ctx, db.Pool(), reader)
		require.NoError(t, err)
		assert.Empty(t, others, "the own reader is set up in its database only")
		shared, err := pgwarehouse.OtherDatabases(ctx, db.Pool(), pgwarehouse.DefaultReaderRole)
		require.NoError(t, err)
		assert.NotEmpty(t, shared, "the migrations' reader is set up in every migrated database")
		deps = append(deps, deployment{url, reader})
	}
	for i, d := range deps {
		own := newExec(t, d.url, pgwarehouse.ExecConfig{Role: d.reader, Schemas: []string{"sales"}})
		res, err := own.Query(ctx, "SELECT count(*) FROM sales.deals")
		require.NoError(t, err)
		assert.Equal(t, [][]any{{int64(1)}}, res.Rows, "a reader reads its own database")

		other := deps[1-i]
		intruder := newExec(t, other.url, pgwarehouse.ExecConfig{Role: d.reader, Schemas: []string{"sales"}})
		_, err = intruder.Query(ctx, "SELECT count(*) FROM sales.deals")
		var pgErr *pgconn.PgError
		require.True(t, errors.As(err, &pgErr), "another deployment's reader is refused: %v", err)
		assert.Equal(t, "42501", pgErr.Code, "permission denied: %v", err)
		assert.True(t, strings.Contains(pgErr.Message, "sales"), pgErr.Message)
	}
}
