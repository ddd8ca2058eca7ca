package store_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/migrations"
	"github.com/analyticsbot/analyticsbot/store/storetest"
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

func TestReaderRoleAttributes(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	var super, createDB, createRole, inherit, login, replication, bypassRLS, memberOfAny bool
	var settings []string
	err := db.Pool().QueryRow(context.Background(), `
		SELECT rolsuper, rolcreatedb, rolcreaterole, rolinherit, rolcanlogin, rolreplication, rolbypassrls,
		       EXISTS (SELECT 1 FROM pg_auth_members m WHERE m.member = r.oid),
		       coalesce((SELECT s.setconfig FROM pg_db_role_setting s
		                 WHERE s.setrole = r.oid AND s.setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())), '{}')
		FROM pg_roles r WHERE rolname = 'analyticsbot_reader'`).
		Scan(&super, &createDB, &createRole, &inherit, &login, &replication, &bypassRLS, &memberOfAny, &settings)
	require.NoError(t, err)
	assert.False(t, super, "superuser")
	assert.False(t, createDB, "createdb")
	assert.False(t, createRole, "createrole")
	assert.False(t, inherit, "inherit")
	assert.False(t, replication, "replication")
	assert.False(t, bypassRLS, "bypassrls")
	assert.True(t, login, "the executor logs in as the reader")
	assert.False(t, memberOfAny, "the reader is a member of no role, so it has no role to switch to")
	for _, want := range []string{"default_transaction_read_only=on", "statement_timeout=30s", "lock_timeout=2s",
		"idle_in_transaction_session_timeout=60s", "search_path=analytics"} {
		assert.Contains(t, settings, want, "per-database default of the reader")
	}
}
