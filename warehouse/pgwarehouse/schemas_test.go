package pgwarehouse_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// TestSeveralSchemas answers from two schemas at once (ANALYTICS_SCHEMA=
// marts,finance): the catalog qualifies every table, a query joins tables
// of both, and a third schema stays out: the guard rejects it, and with
// the guard off the database does.
func TestSeveralSchemas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(ctx, `
		CREATE SCHEMA marts;
		CREATE TABLE marts.games (id int PRIMARY KEY, name text NOT NULL);
		INSERT INTO marts.games VALUES (1, 'Portal'), (2, 'Dota 2');
		CREATE SCHEMA finance;
		CREATE TABLE finance.revenue (game_id int REFERENCES marts.games (id), usd numeric(12,2));
		INSERT INTO finance.revenue VALUES (1, 100.50), (2, 7.25), (2, 2.75);
		CREATE SCHEMA private;
		CREATE TABLE private.salaries (name text, usd int);
		INSERT INTO private.salaries VALUES ('ceo', 1000000);`)
	require.NoError(t, err)
	require.NoError(t, pgwarehouse.Grant(ctx, db.Pool(), "", []string{"marts", "finance"}))
	_, err = db.Pool().Exec(ctx, `CREATE TABLE finance.later (x int)`)
	require.NoError(t, err)

	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{DatabaseURL: url, Schemas: []string{"marts", "finance"}}})
	t.Cleanup(b.Close)
	cat, err := b.Catalog(ctx)
	require.NoError(t, err)
	var names []string
	for _, tb := range cat.Tables {
		names = append(names, tb.QualifiedName())
	}
	assert.Equal(t, []string{"marts.games", "finance.later", "finance.revenue"}, names,
		"both schemas, in the order given; a table created after the grant is readable too")
	assert.Equal(t, []string{"marts", "finance"}, cat.Schemas())
	rev, _ := cat.Table("finance", "revenue")
	assert.Equal(t, []warehouse.ForeignKey{{Columns: []string{"game_id"}, RefSchema: "marts", RefTable: "games", RefColumns: []string{"id"}}},
		rev.ForeignKeys, "a foreign key across schemas")
	assert.Contains(t, b.Dialect().Describe(cat.Tables), "TABLE finance.revenue\n", "the prompt qualifies tables with their schema")
	assert.Equal(t, `the "marts", "finance" schemas`, b.Dialect().Scope)

	for _, sql := range []string{
		"SELECT g.name, sum(r.usd) AS usd FROM marts.games g JOIN finance.revenue r ON r.game_id = g.id GROUP BY 1 ORDER BY 1",
		"SELECT g.name, sum(r.usd) AS usd FROM games g JOIN revenue r ON r.game_id = g.id GROUP BY 1 ORDER BY 1",
	} {
		q, err := b.Check(ctx, sql, 0)
		require.NoError(t, err, sql)
		res, err := b.Run(ctx, q)
		require.NoError(t, err, sql)
		assert.Equal(t, [][]any{{"Dota 2", "10.00"}, {"Portal", "100.50"}}, res.Rows, sql)
	}

	for _, sql := range []string{"SELECT * FROM private.salaries", "SELECT * FROM salaries", "SELECT * FROM finance.salaries"} {
		_, err := b.Check(ctx, sql, 0)
		assertKind(t, warehouse.Invalid, err, sql)
		if e, ok := err.(*warehouse.Error); assert.True(t, ok, "%s: %v", sql, err) {
			assert.Equal(t, "relation_not_allowed", e.Class, sql)
		}
	}
	_, err = b.Executor().Query(ctx, "SELECT * FROM private.salaries")
	pgErr, ok := errorsAsPg(err)
	require.True(t, ok, "with the guard off the database refuses: %v", err)
	assert.Equal(t, "42501", pgErr.Code, "permission denied: %s", pgErr.Message)
}

// TestBotTablesStayHidden: with ANALYTICS_SCHEMA=public, where most
// databases keep their data, and the README's grant on it, the bot's own
// tables (another schema) are neither in the catalog nor readable by the
// reader, with the guard on and off.
func TestBotTablesStayHidden(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(ctx, `
		INSERT INTO analyticsbot.query_results (thread_id, query_id, sql, question) VALUES ('T-other', 'q1', 'SELECT 1', 'a private question');
		CREATE TABLE public.orders (id int, amount numeric);
		INSERT INTO public.orders VALUES (1, 9.99);
		GRANT USAGE ON SCHEMA public TO analyticsbot_reader;
		GRANT SELECT ON ALL TABLES IN SCHEMA public TO analyticsbot_reader;`)
	require.NoError(t, err)
	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{DatabaseURL: url, Schemas: []string{"public"}}})
	t.Cleanup(b.Close)

	cat, err := b.Catalog(ctx)
	require.NoError(t, err)
	require.Len(t, cat.Tables, 1)
	assert.Equal(t, "public.orders", cat.Tables[0].QualifiedName(), "the catalog the model sees")

	for _, sql := range []string{
		"SELECT thread_id, question, sql FROM query_results",
		"SELECT thread_id, question, sql FROM analyticsbot.query_results",
		"SELECT * FROM conversation_turns",
	} {
		_, err := b.Check(ctx, sql, 0)
		assertKind(t, warehouse.Invalid, err, "the guard: %s", sql)
		assert.ErrorContains(t, err, "relation_not_allowed", sql)
	}
	for _, tt := range []struct{ sql, code string }{
		{"SELECT thread_id, question, sql FROM analyticsbot.query_results", "42501"}, // permission denied for schema
		{"SELECT thread_id, question, sql FROM query_results", "42P01"},              // not on the search path
	} {
		_, err := b.Executor().Query(ctx, tt.sql)
		pgErr, ok := errorsAsPg(err)
		require.True(t, ok, "with the guard off the database refuses %s: %v", tt.sql, err)
		assert.Equal(t, tt.code, pgErr.Code, "%s: %s", tt.sql, pgErr.Message)
	}
}

func errorsAsPg(err error) (*pgconn.PgError, bool) {
	return errors.AsType[*pgconn.PgError](err)
}
