package demo

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadAnswersMatchCSV(t *testing.T) {
	t.Parallel()
	pool, _ := loadedPool(t)
	fc := facts(t)

	tests := []struct {
		name   string
		sql    string
		want   int64
		source int64 // figure stated in data/SOURCE.txt, 0 if it states none
	}{
		{name: "apps", sql: "SELECT count(*) FROM analytics.apps", want: fc.apps, source: 27075},
		{name: "released in 2018", sql: "SELECT count(*) FROM analytics.apps WHERE release_year = 2018", want: fc.byYear["2018"], source: 8160},
		{name: "released in 2017", sql: "SELECT count(*) FROM analytics.apps WHERE release_year = 2017", want: fc.byYear["2017"], source: 6357},
		{name: "released in 2024", sql: "SELECT count(*) FROM analytics.apps WHERE release_year = 2024", want: 0},
		{name: "free", sql: "SELECT count(*) FROM analytics.apps WHERE is_free", want: fc.free, source: 2560},
		{name: "free by price", sql: "SELECT count(*) FROM analytics.apps WHERE price = 0", want: fc.free, source: 2560},
		{
			name: "developed by Valve",
			sql: `SELECT count(DISTINCT a.app_id) FROM analytics.apps a
				JOIN analytics.app_developers USING (app_id) JOIN analytics.developers d USING (developer_id)
				WHERE d.name = 'Valve'`,
			want: fc.valve,
		},
		{
			name: "on all three platforms",
			sql:  "SELECT count(*) FROM (SELECT app_id FROM analytics.app_platforms GROUP BY app_id HAVING count(*) = 3) t",
			want: fc.allPlatform,
		},
		{name: "app_developers rows", sql: "SELECT count(*) FROM analytics.app_developers", want: fc.links["developer"]},
		{name: "app_publishers rows", sql: "SELECT count(*) FROM analytics.app_publishers", want: fc.links["publisher"]},
		{name: "app_genres rows", sql: "SELECT count(*) FROM analytics.app_genres", want: fc.links["genres"]},
		{name: "app_tags rows", sql: "SELECT count(*) FROM analytics.app_tags", want: fc.links["steamspy_tags"]},
		{name: "app_categories rows", sql: "SELECT count(*) FROM analytics.app_categories", want: fc.links["categories"]},
		{name: "app_platforms rows", sql: "SELECT count(*) FROM analytics.app_platforms", want: fc.links["platforms"]},
		{name: "apps without ratings have no positive_pct", sql: "SELECT count(*) FROM analytics.apps WHERE (total_ratings = 0) <> (positive_pct IS NULL)", want: 0},
		{name: "owners midpoint inside range", sql: "SELECT count(*) FROM analytics.apps WHERE owners_midpoint NOT BETWEEN owners_min AND owners_max", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.source != 0 {
				assert.Equal(t, tt.source, tt.want, "CSV count disagrees with SOURCE.txt")
			}
			got := queryInt(t, pool, tt.sql)
			assert.Equal(t, tt.want, got, "got %d want %d for %s", got, tt.want, tt.sql)
		})
	}
}

func TestStatsCountLoadedRows(t *testing.T) {
	t.Parallel()
	_, st := loadedPool(t)
	fc := facts(t)

	got := st
	got.Elapsed = 0
	want := Stats{
		Apps:       int(fc.apps),
		Developers: int(fc.distinct["developer"]),
		Publishers: int(fc.distinct["publisher"]),
		Genres:     int(fc.distinct["genres"]),
		Tags:       int(fc.distinct["steamspy_tags"]),
		Categories: int(fc.distinct["categories"]),
		Platforms:  3,
	}
	assert.Equal(t, want, got)
	assert.Positive(t, st.Elapsed, "Elapsed")
}

func TestCounterStrikeRow(t *testing.T) {
	t.Parallel()
	pool, _ := loadedPool(t)
	csvRow := facts(t).byID["10"]
	require.Equal(t, "Counter-Strike", csvRow["name"], "CSV row for app 10")

	var (
		name, price, pct                   string
		year                               int
		ownersMin, ownersMax, ownersMid    int64
		avgPlaytime, positive, negative    int
		isFree                             bool
		platforms, genres, developers, tag []string
	)
	err := pool.QueryRow(context.Background(), `
		SELECT a.name, a.price::text, a.positive_pct::text, a.release_year,
			a.owners_min, a.owners_max, a.owners_midpoint, a.average_playtime_minutes,
			a.positive_ratings, a.negative_ratings, a.is_free,
			ARRAY(SELECT p.name FROM analytics.app_platforms JOIN analytics.platforms p USING (platform_id) WHERE app_id = a.app_id ORDER BY p.name),
			ARRAY(SELECT g.name FROM analytics.app_genres JOIN analytics.genres g USING (genre_id) WHERE app_id = a.app_id ORDER BY g.name),
			ARRAY(SELECT d.name FROM analytics.app_developers JOIN analytics.developers d USING (developer_id) WHERE app_id = a.app_id ORDER BY d.name),
			ARRAY(SELECT t.name FROM analytics.app_tags JOIN analytics.tags t USING (tag_id) WHERE app_id = a.app_id ORDER BY rank)
		FROM analytics.apps a WHERE a.app_id = 10`).Scan(
		&name, &price, &pct, &year, &ownersMin, &ownersMax, &ownersMid, &avgPlaytime,
		&positive, &negative, &isFree, &platforms, &genres, &developers, &tag)
	require.NoError(t, err)

	assert.Equal(t, csvRow["name"], name)
	assert.Equal(t, "7.19", price)
	assert.Equal(t, csvRow["price"], price, "price as in the CSV")
	assert.Equal(t, "10000000-20000000", csvRow["owners"])
	assert.Equal(t, int64(10_000_000), ownersMin)
	assert.Equal(t, int64(20_000_000), ownersMax)
	assert.Equal(t, int64(15_000_000), ownersMid)
	assert.Equal(t, 2000, year)
	assert.Equal(t, csvRow["average_playtime"], strconv.Itoa(avgPlaytime))
	assert.Equal(t, csvRow["positive_ratings"], strconv.Itoa(positive))
	assert.Equal(t, csvRow["negative_ratings"], strconv.Itoa(negative))
	assert.Equal(t, "97.39", pct, "100*124534/(124534+3339) rounded to 2 decimals")
	assert.False(t, isFree)
	assert.Equal(t, []string{"linux", "mac", "windows"}, platforms)
	assert.Equal(t, []string{"Action"}, genres)
	assert.Equal(t, []string{"Valve"}, developers)
	assert.Equal(t, strings.Split(csvRow["steamspy_tags"], ";"), tag, "tags in SteamSpy rank order")
}

// fingerprint summarizes the full content of every demo table in schema.
func fingerprint(t *testing.T, pool *pgxpool.Pool, schema string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, table := range demoTables() {
		var n int64
		var sum string
		q := "SELECT count(*), coalesce(md5(string_agg(x::text, '|' ORDER BY x::text)), '') FROM " +
			pgx.Identifier{schema, table}.Sanitize() + " x"
		require.NoError(t, pool.QueryRow(context.Background(), q).Scan(&n, &sum), table)
		out[table] = strconv.Itoa(int(n)) + " " + sum
	}
	return out
}

func demoTables() []string {
	tables := []string{"apps"}
	for _, d := range dimensions {
		tables = append(tables, d.table, d.linkTable)
	}
	return tables
}

func TestLoadTwiceGivesSameDataAndKeepsOtherObjects(t *testing.T) {
	t.Parallel()
	pool := requirePool(t)
	ctx := context.Background()
	const schema = "demo_idempotent"
	_, err := pool.Exec(ctx, `CREATE SCHEMA `+schema+`;
		CREATE TABLE `+schema+`.user_notes (note text); INSERT INTO `+schema+`.user_notes VALUES ('keep me')`)
	require.NoError(t, err)

	first, err := Load(ctx, pool, Options{Schema: schema})
	require.NoError(t, err)
	before := fingerprint(t, pool, schema)
	second, err := Load(ctx, pool, Options{Schema: schema})
	require.NoError(t, err)
	after := fingerprint(t, pool, schema)

	first.Elapsed, second.Elapsed = 0, 0
	assert.Equal(t, first, second, "stats of second load")
	assert.Equal(t, before, after, "table contents after second load")
	assert.Equal(t, int64(27075), queryInt(t, pool, "SELECT count(*) FROM "+schema+".apps"))
	assert.Equal(t, int64(1), queryInt(t, pool, "SELECT count(*) FROM "+schema+".user_notes WHERE note = 'keep me'"),
		"a table the loader does not own survives reloads")
	assert.Equal(t, int64(2), queryInt(t, pool, "SELECT nextval(pg_get_serial_sequence('"+schema+".platforms', 'platform_id')) - 2"),
		"serial sequence continues after the loaded ids (3 platforms)")
}

func TestConcurrentLoads(t *testing.T) {
	t.Parallel()
	pool := requirePool(t)
	const schema = "demo_concurrent"

	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = Load(context.Background(), pool, Options{Schema: schema})
		})
	}
	wg.Wait()
	for i, err := range errs {
		assert.NoError(t, err, "load %d", i)
	}
	assert.Equal(t, facts(t).apps, queryInt(t, pool, "SELECT count(*) FROM "+schema+".apps"))
	assert.Equal(t, facts(t).links["steamspy_tags"], queryInt(t, pool, "SELECT count(*) FROM "+schema+".app_tags"))
}

func TestEveryTableAndColumnHasComment(t *testing.T) {
	t.Parallel()
	pool, _ := loadedPool(t)

	var tables int64
	var missing []string
	rows, err := pool.Query(context.Background(), `
		SELECT c.relname, a.attname,
			coalesce(obj_description(c.oid, 'pg_class'), ''),
			coalesce(col_description(c.oid, a.attnum), '')
		FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
		WHERE n.nspname = 'analytics' AND c.relkind = 'r'
		ORDER BY 1, a.attnum`)
	require.NoError(t, err)
	seen := map[string]bool{}
	for rows.Next() {
		var table, column, tableComment, columnComment string
		require.NoError(t, rows.Scan(&table, &column, &tableComment, &columnComment))
		if !seen[table] {
			seen[table] = true
			tables++
			if strings.TrimSpace(tableComment) == "" {
				missing = append(missing, table)
			}
		}
		if strings.TrimSpace(columnComment) == "" {
			missing = append(missing, table+"."+column)
		}
	}
	require.NoError(t, rows.Err())
	assert.Equal(t, int64(len(demoTables())), tables, "tables in schema analytics")
	assert.Empty(t, missing, "tables and columns without a comment")
}

func TestReaderRoleCanOnlyRead(t *testing.T) {
	t.Parallel()
	pool, _ := loadedPool(t)
	ctx := context.Background()

	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	// As the bot's executor runs generated SQL: reader role, search_path = the schema only.
	_, err = tx.Exec(ctx, "SET LOCAL ROLE "+DefaultReaderRole+"; SET LOCAL search_path = analytics")
	require.NoError(t, err)

	var apps int64
	require.NoError(t, tx.QueryRow(ctx, "SELECT count(*) FROM apps").Scan(&apps))
	assert.Equal(t, facts(t).apps, apps, "reader sees every app")

	var similar string
	err = tx.QueryRow(ctx, `SELECT name FROM apps WHERE name % 'Counter Strike'
		ORDER BY similarity(name, 'Counter Strike') DESC, app_id LIMIT 1`).Scan(&similar)
	require.NoError(t, err, "reader can use pg_trgm unqualified")
	assert.Equal(t, "Counter-Strike", similar)

	_, err = tx.Exec(ctx, "INSERT INTO genres (name) VALUES ('Not a genre')")
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr, "insert as reader")
	assert.Equal(t, "42501", pgErr.Code, "insufficient_privilege, got %s", pgErr.Message)
}

func TestIndexes(t *testing.T) {
	t.Parallel()
	pool, _ := loadedPool(t)
	want := []string{
		"apps_name_trgm_idx", "developers_name_trgm_idx", "publishers_name_trgm_idx",
		"apps_release_year_idx", "apps_price_idx",
		"app_developers_developer_id_idx", "app_publishers_publisher_id_idx", "app_genres_genre_id_idx",
		"app_tags_tag_id_idx", "app_categories_category_id_idx", "app_platforms_platform_id_idx",
	}
	for _, name := range want {
		got := queryInt(t, pool, "SELECT count(*) FROM pg_indexes WHERE schemaname = 'analytics' AND indexname = $1", name)
		assert.Equal(t, int64(1), got, "index %s", name)
	}
	// By the catalog's rows, not pg_indexes' indexdef: pg_get_indexdef
	// opens each index and fails on one a parallel test's load drops
	// meanwhile ("could not open relation with OID").
	got := queryInt(t, pool, `SELECT count(DISTINCT i.indexrelid) FROM pg_index i
		JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_opclass o ON o.oid = ANY (i.indclass::oid[])
		WHERE n.nspname = 'analytics' AND o.opcname = 'gin_trgm_ops'`)
	assert.Equal(t, int64(3), got, "trigram indexes")
	got = queryInt(t, pool, "SELECT count(*) FROM pg_stats WHERE schemaname = 'analytics' AND tablename = 'apps'")
	assert.Positive(t, got, "apps analyzed")
}

func TestLoadRejectsBadOptions(t *testing.T) {
	t.Parallel()
	pool := requirePool(t)
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{name: "missing role", opts: Options{Schema: "demo_never", ReaderRole: "demo_no_such_role"},
			wantErr: "role demo_no_such_role does not exist: run `analyticsbot migrate` first"},
		{name: "upper case schema", opts: Options{Schema: "Analytics"}, wantErr: `schema name "Analytics"`},
		{name: "injection", opts: Options{Schema: `x"; DROP SCHEMA public; --`}, wantErr: "schema name"},
		{name: "system schema", opts: Options{Schema: "pg_catalog"}, wantErr: "schema name"},
		{name: "information_schema", opts: Options{Schema: "information_schema"}, wantErr: "schema name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(context.Background(), pool, tt.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
	assert.Equal(t, int64(0), queryInt(t, pool, "SELECT count(*) FROM pg_namespace WHERE nspname = 'demo_never'"),
		"failed load leaves no schema")
}

func TestLoadHonoursCancelledContext(t *testing.T) {
	t.Parallel()
	pool := requirePool(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Load(ctx, pool, Options{Schema: "demo_cancelled"})
	assert.True(t, errors.Is(err, context.Canceled), "got %v want context.Canceled", err)
}

func BenchmarkLoad(b *testing.B) {
	pool := requirePool(b)
	for b.Loop() {
		if _, err := Load(context.Background(), pool, Options{Schema: "demo_bench"}); err != nil {
			b.Fatal(err)
		}
	}
}

// docs/demo-data.md: the derived columns are generated by PostgreSQL from
// the stored ones, and the link tables' keys are foreign keys.
func TestGeneratedColumnsAndForeignKeys(t *testing.T) {
	t.Parallel()
	pool, _ := loadedPool(t)
	for _, col := range []string{"release_year", "total_ratings", "positive_pct", "owners_midpoint", "is_free"} {
		got := queryInt(t, pool, `SELECT count(*) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
			JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = 'analytics' AND c.relname = 'apps' AND a.attname = $1 AND a.attgenerated = 's'`, col)
		assert.Equal(t, int64(1), got, "apps.%s is a generated column", col)
	}
	for _, link := range []string{"app_developers", "app_publishers", "app_genres", "app_tags", "app_categories", "app_platforms"} {
		got := queryInt(t, pool, `SELECT count(*) FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid
			JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = 'analytics' AND c.relname = $1 AND con.contype = 'f'`, link)
		assert.Equal(t, int64(2), got, "%s refers to apps and to what it links them to", link)
	}
}
