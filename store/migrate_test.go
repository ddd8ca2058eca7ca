package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/migrations"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

func TestMigrationsUpDownUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t) // already migrated up
	sqlDB := stdlib.OpenDBFromPool(db.Pool())
	defer sqlDB.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations.FS)
	require.NoError(t, err)

	tablesExist := func() map[string]bool {
		got := map[string]bool{}
		for _, name := range []string{"conversation_turns", "query_results"} {
			var exists bool
			require.NoError(t, db.Pool().QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, name).Scan(&exists))
			got[name] = exists
		}
		return got
	}
	readerSetting := func() int {
		var n int
		require.NoError(t, db.Pool().QueryRow(ctx, `
			SELECT count(*) FROM pg_db_role_setting s
			JOIN pg_roles r ON r.oid = s.setrole
			JOIN pg_database d ON d.oid = s.setdatabase
			WHERE r.rolname = 'analyticsbot_reader' AND d.datname = current_database()`).Scan(&n))
		return n
	}

	assert.Equal(t, map[string]bool{"conversation_turns": true, "query_results": true}, tablesExist(), "after first up")
	assert.Equal(t, 1, readerSetting(), "reader settings for this database after up")

	_, err = provider.DownTo(ctx, 0)
	require.NoError(t, err, "down to 0")
	assert.Equal(t, map[string]bool{"conversation_turns": false, "query_results": false}, tablesExist(), "after down")
	assert.Equal(t, 0, readerSetting(), "reader settings for this database after down")
	var roleExists bool
	require.NoError(t, db.Pool().QueryRow(ctx,
		`SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'analyticsbot_reader')`).Scan(&roleExists))
	assert.True(t, roleExists, "down must keep the cluster-wide role other databases use")

	require.NoError(t, db.Migrate(ctx), "second up")
	assert.Equal(t, map[string]bool{"conversation_turns": true, "query_results": true}, tablesExist(), "after second up")
	assert.Equal(t, 1, readerSetting(), "reader settings after second up")

	require.NoError(t, db.Migrate(ctx), "up with nothing pending")
}

// TestReaderRoleAttributes: the reader every database on a server shares,
// which the migrations still create (analyticsbot_reader, 00003 and
// 00005), has the attributes and per-database defaults docs/security.md
// gives every reader, with the migrations' statement_timeout, and a
// search_path of its own besides.
func TestReaderRoleAttributes(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	storetest.AssertDocumentedRole(t, db, url, "analyticsbot_reader", "30s",
		storetest.RoleSetting{Name: "search_path", Stored: "analytics", Shown: "analytics"})
}

// TestMigrateMovesTablesOutOfPublic: an installation migrated before the
// bot had a schema of its own kept its tables in public, where
// ANALYTICS_SCHEMA=public would answer questions from them. Migrate moves
// them, rows, sequences and migration history included, runs no migration
// twice, and names the backend of every stored query.
func TestMigrateMovesTablesOutOfPublic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, url := storetest.NewWithURL(t) // migrated into the bot's schema: start over in public
	old, err := store.Open(ctx, url, store.WithSchema("public"))
	require.NoError(t, err)
	t.Cleanup(old.Close)
	_, err = old.Pool().Exec(ctx, `DROP SCHEMA analyticsbot CASCADE`)
	require.NoError(t, err)
	// The old layout: everything in public, migrated up to the last
	// version before stored queries named their backend.
	sqlDB := stdlib.OpenDBFromPool(old.Pool())
	t.Cleanup(func() { sqlDB.Close() })
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations.FS)
	require.NoError(t, err)
	_, err = provider.UpTo(ctx, 7)
	require.NoError(t, err)
	_, err = old.Pool().Exec(ctx, `INSERT INTO conversation_turns (thread_id, user_message, sql, query_id)
		VALUES ('T1', 'sql?', 'SELECT 1', '00000001'), ('T1', 'cube?', '  {"measures": ["Apps.count"]}', '00000002'),
		       ('T1', 'thanks', '', '')`)
	require.NoError(t, err)

	db, err := store.Open(ctx, url)
	require.NoError(t, err)
	t.Cleanup(db.Close)
	require.NoError(t, db.Migrate(ctx), "migrate an old installation")

	var inPublic, inOwn []string
	require.NoError(t, db.Pool().QueryRow(ctx, `
		SELECT coalesce(array_agg(tablename::text ORDER BY tablename) FILTER (WHERE schemaname = 'public'), '{}'),
		       coalesce(array_agg(tablename::text ORDER BY tablename) FILTER (WHERE schemaname = 'analyticsbot'), '{}')
		FROM pg_tables WHERE schemaname IN ('public', 'analyticsbot')`).Scan(&inPublic, &inOwn))
	assert.Empty(t, inPublic, "nothing of the bot's left in public")
	assert.Equal(t, []string{"chat_query_logs", "conversation_turns", "examples", "feedback", "goose_db_version", "identity_key", "query_results", "result_datasets", "schedule_runs", "schedules", "slack_deliveries", "threads",
		"value_index", "value_index_columns"}, inOwn)

	turns, err := db.RecentTurns(ctx, "T1", 5)
	require.NoError(t, err)
	require.Len(t, turns, 3, "the old turns moved with their table")
	assert.Equal(t, pgQuery("SELECT 1"), turns[0].Query, "SQL is the postgres backend's")
	assert.Equal(t, warehouse.Query{Backend: "cube", Text: `  {"measures": ["Apps.count"]}`}, turns[1].Query, "JSON is Cube's")
	assert.Equal(t, warehouse.Query{}, turns[2].Query, "no query, no backend")
	var versions, distinct int
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT count(*), count(DISTINCT version_id) FROM goose_db_version WHERE version_id > 0`).
		Scan(&versions, &distinct))
	assert.Equal(t, distinct, versions, "no migration ran twice")
	_, err = db.AddTurn(ctx, store.Turn{ThreadID: "T1", UserMessage: "and new ones?"})
	require.NoError(t, err, "the moved sequence still numbers new turns")
	require.NoError(t, db.Migrate(ctx), "migrating again changes nothing")
}

// Migration 00017 stores rows compressed in bytea: results stored as jsonb
// before it still read back, and going down keeps them and drops only the
// compressed ones.
func TestMigrationCompressedRowsKeepsOlderResults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	sqlDB := stdlib.OpenDBFromPool(db.Pool())
	defer sqlDB.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations.FS)
	require.NoError(t, err)
	_, err = provider.DownTo(ctx, 16)
	require.NoError(t, err, "down to 16")

	// A result as the bot stored it before: jsonb.
	_, err = db.Pool().Exec(ctx, `
		INSERT INTO query_results (thread_id, query_id, backend, sql, columns, rows, row_count)
		VALUES ('OLD', '0123abcd', 'postgres', 'SELECT 1', '[{"name": "n", "type": "int4"}, {"name": "s", "type": "text"}, {"name": "f", "type": "float8"}]',
		        '[[1, "a", 2.5], [2, null, 3.0]]', 2)`)
	require.NoError(t, err)
	require.NoError(t, db.Migrate(ctx), "up")

	cache := newCache(t, db)
	old, err := cache.Get(ctx, "OLD", "0123abcd")
	require.NoError(t, err, "a result stored as jsonb")
	assert.Equal(t, [][]any{{int64(1), "a", 2.5}, {int64(2), nil, 3.0}}, old.Result.Rows)
	require.NoError(t, cache.Put(ctx, cachedResult("NEW", 1)))

	_, err = provider.DownTo(ctx, 16)
	require.NoError(t, err, "down to 16 again")
	var kept []string
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT array_agg(thread_id || ': ' || rows::text) FROM query_results`).Scan(&kept))
	assert.Equal(t, []string{"OLD: [[1, \"a\", 2.5], [2, null, 3.0]]"}, kept, "down keeps the JSON rows, drops the compressed")
	require.NoError(t, db.Migrate(ctx), "up again")
}

// Down from 25, an alert on a percentage compared as a fraction keeps the
// fraction it was compared with as its threshold, which an earlier binary
// compares as written: "above 5%" on error_rate stays above 0.05.
func TestMigrationConditionUnitDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	sch, err := db.AddSchedule(ctx, store.Schedule{OwnerID: "U1", Surface: "slack", SourceThread: "T1", SourceChannel: "C1",
		Query: warehouse.Query{Backend: "postgres", Text: "SELECT 1"}, Question: "Errors?", Spec: "0 9 * * 1", TimeZone: "UTC",
		DestKind: "thread", DestChannel: "C1", DestThread: "T1", Format: "answer",
		CondKind: "above", CondThreshold: 5, CondColumn: "error_rate", CondUnit: "fraction"})
	require.NoError(t, err)
	sqlDB := stdlib.OpenDBFromPool(db.Pool())
	defer sqlDB.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations.FS)
	require.NoError(t, err)
	_, err = provider.DownTo(ctx, 24)
	require.NoError(t, err, "down to 24")
	var threshold float64
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT cond_threshold FROM schedules WHERE id = $1`, sch.ID).Scan(&threshold))
	assert.Equal(t, 0.05, threshold)
	require.NoError(t, db.Migrate(ctx), "up again")
}

// A migration that changes what every database of the server shares (the
// reader role, a database's grants) can meet another transaction changing
// the same catalog row, such as a twin migrating another database; the
// advisory lock holds in one database only, and PostgreSQL fails the one
// that waited with "tuple concurrently updated". Migrate runs it again
// instead of failing the start.
func TestMigrateGoesOnPastAConcurrentChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := storetest.MissingURL(t)
	cfg, err := pgx.ParseConfig(url)
	require.NoError(t, err)
	name := cfg.Database
	admin, err := pgx.Connect(ctx, storetest.DefaultAdminURL())
	require.NoError(t, err)
	t.Cleanup(func() { admin.Close(ctx) })
	_, err = admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	require.NoError(t, err)

	// Another transaction changes the database's row and holds it.
	other, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	t.Cleanup(func() { other.Close(ctx) })
	tx, err := other.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, "GRANT CONNECT ON DATABASE "+pgx.Identifier{name}.Sanitize()+" TO PUBLIC")
	require.NoError(t, err)

	db, err := store.Open(ctx, url)
	require.NoError(t, err)
	t.Cleanup(db.Close)
	done := make(chan error, 1)
	go func() { done <- db.Migrate(ctx) }()
	require.Eventually(t, func() bool {
		var waiting int
		err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = $1 AND wait_event_type = 'Lock'`, name).Scan(&waiting)
		return err == nil && waiting > 0
	}, time.Minute, 20*time.Millisecond, "a migration waits for the other transaction's row")
	require.NoError(t, tx.Commit(ctx))

	require.NoError(t, <-done, "the migration that met the change ran again")
	pending, err := db.PendingMigrations(ctx)
	require.NoError(t, err)
	assert.Zero(t, pending)
}

// Up to 28, the questions of examples stored before are folded onto one
// line as AddExample stores them now, so the same question with the same
// query, added again after the upgrade, finds its example instead of
// making a second; two examples whose questions fold to one line stay
// apart, the second as it was.
func TestMigrationFoldsExampleQuestions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	sqlDB := stdlib.OpenDBFromPool(db.Pool())
	defer sqlDB.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations.FS)
	require.NoError(t, err)
	_, err = provider.DownTo(ctx, 27)
	require.NoError(t, err, "down to 27")
	_, err = db.Pool().Exec(ctx, `
		INSERT INTO examples (backend, question, query, fingerprint, source, status) VALUES
			('postgres', E'How many games\nby year?', 'SELECT 1', 'fp-1', 'feedback', 'candidate'),
			('postgres', E'  How many  games by\tyear? ', 'SELECT 1', 'fp-1', 'feedback', 'candidate'),
			('postgres', E'Top\r\npublishers', 'SELECT 2', 'fp-2', 'file', 'verified'),
			('postgres', 'Top publishers', 'SELECT 3', 'fp-3', 'file', 'verified'),
			('postgres', E'Ventes par mois\u202f?', 'SELECT 4', 'fp-4', 'feedback', 'candidate'),
			('postgres', E'Revenue\u00a0by\u3000month', 'SELECT 5', 'fp-5', 'feedback', 'candidate')`)
	require.NoError(t, err)
	require.NoError(t, db.Migrate(ctx), "up")

	var questions []string
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT array_agg(question ORDER BY id) FROM examples`).Scan(&questions))
	assert.Equal(t, []string{"How many games by year?", "  How many  games by\tyear? ", "Top publishers", "Top publishers",
		"Ventes par mois ?", "Revenue by month"}, questions, "folded as Go's strings.Fields folds, no-break spaces too")

	_, added, err := db.AddExample(ctx, store.Example{Backend: "postgres", Question: "How many games\r\nby year?",
		Query: "SELECT 1", Fingerprint: "fp-1", Source: store.SourceFeedback, Status: store.StatusCandidate})
	require.NoError(t, err)
	assert.False(t, added, "the example stored before is found")
	_, added, err = db.AddExample(ctx, store.Example{Backend: "postgres", Question: "Top publishers",
		Query: "SELECT 2", Fingerprint: "fp-2", Source: store.SourceFile, Status: store.StatusVerified})
	require.NoError(t, err)
	assert.False(t, added)
	_, added, err = db.AddExample(ctx, store.Example{Backend: "postgres", Question: "Ventes par mois\u202f?",
		Query: "SELECT 4", Fingerprint: "fp-4", Source: store.SourceFeedback, Status: store.StatusCandidate})
	require.NoError(t, err)
	assert.False(t, added, "a question with a narrow no-break space")
}
