package defog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/eval"
	"github.com/analyticsbot/analyticsbot/sqlguard"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// readerRole is the role the gold queries run as, as the bot's would.
const readerRole = "abt_defog_reader"

// The package's database, with all 11 databases loaded once by TestMain.
var (
	testPool *pgxpool.Pool
	// testStats is what TestMain's Load reported.
	testStats Stats
	// unavailable says why there is no database.
	unavailable string
)

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	adminURL := storetest.DefaultAdminURL()
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		unavailable = fmt.Sprintf("postgres not reachable: %v", err)
		return m.Run()
	}
	defer admin.Close(context.Background())
	name := fmt.Sprintf("abt_defog_test_%d", os.Getpid())
	drop := "DROP DATABASE IF EXISTS " + pgx.Identifier{name}.Sanitize() + " WITH (FORCE)"
	if err := setupDatabase(ctx, admin, name, drop); err != nil {
		fmt.Fprintf(os.Stderr, "defog tests: %v\n", err)
		return 1
	}
	defer func() {
		if testPool != nil {
			testPool.Close()
		}
		if _, err := admin.Exec(context.Background(), drop); err != nil {
			fmt.Fprintf(os.Stderr, "defog tests: drop %s: %v\n", name, err)
		}
	}()
	poolCfg, err := pgxpool.ParseConfig(adminURL)
	if err != nil {
		fmt.Fprintf(os.Stderr, "defog tests: %v\n", err)
		return 1
	}
	poolCfg.ConnConfig.Database = name
	if testPool, err = pgxpool.NewWithConfig(ctx, poolCfg); err != nil {
		fmt.Fprintf(os.Stderr, "defog tests: open %s: %v\n", name, err)
		return 1
	}
	if testStats, err = Load(ctx, testPool, Options{ReaderRole: readerRole}); err != nil {
		fmt.Fprintf(os.Stderr, "defog tests: %v\n", err)
		return 1
	}
	return m.Run()
}

// setupDatabase creates the package's database afresh and the reader role
// if missing (roles belong to the server, so it stays).
func setupDatabase(ctx context.Context, admin *pgx.Conn, name, drop string) error {
	if _, err := admin.Exec(ctx, drop); err != nil {
		return fmt.Errorf("drop old %s: %w", name, err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", readerRole).Scan(&exists); err != nil {
		return fmt.Errorf("check role %s: %w", readerRole, err)
	}
	if !exists {
		_, err := admin.Exec(ctx, "CREATE ROLE "+pgx.Identifier{readerRole}.Sanitize()+" NOLOGIN")
		// Another package's test run may have created it meanwhile.
		if pgErr := (*pgconn.PgError)(nil); err != nil && !(errors.As(err, &pgErr) && pgErr.Code == "42710") {
			return fmt.Errorf("create role %s: %w", readerRole, err)
		}
	}
	return nil
}

// needDB returns the package's pool, or skips the test (fails it when
// CI=true) without a server.
func needDB(t *testing.T) *pgxpool.Pool {
	t.Helper()
	if testPool == nil {
		storetest.Unavailable(t, unavailable)
	}
	return testPool
}

func TestLoadCreatesDescribedTables(t *testing.T) {
	t.Parallel()
	pool := needDB(t)
	ctx := context.Background()
	t.Logf("load: %d schemas, %d tables, %d rows, %d comments, %d descriptions of missing columns, %s",
		len(testStats.Schemas), testStats.Tables, testStats.Rows, testStats.Comments, testStats.Missing, testStats.Elapsed)
	require.Len(t, testStats.Schemas, 11, "schemas loaded")
	doc, err := os.ReadFile("../../docs/eval.md")
	require.NoError(t, err)
	assert.Contains(t, string(doc), "110 tables, 1,166 rows, 487 comments", "docs/eval.md states the figures below")
	assert.EqualValues(t, 110, testStats.Tables, "tables")
	assert.EqualValues(t, 1166, testStats.Rows, "rows")
	assert.EqualValues(t, 487, testStats.Comments, "comments")
	for _, ss := range testStats.Schemas {
		if len(ss.Missing) > 0 {
			t.Logf("%s: descriptions of columns the dump lacks: %v", ss.Schema, ss.Missing)
		}
	}
	for _, name := range Databases() {
		db, err := readDatabase(name)
		require.NoError(t, err)
		for _, tb := range db.tables {
			var exists bool
			err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
				WHERE n.nspname = $1 AND c.relname = lower($2) AND c.relkind = 'r')`, name, tb.Name).Scan(&exists)
			require.NoError(t, err)
			assert.True(t, exists, "table %s.%s of %s.json exists", name, tb.Name, name)
		}
	}

	db, err := readDatabase("academic")
	require.NoError(t, err)
	want := describedColumn(t, db, "author", "name")
	var got string
	err = pool.QueryRow(ctx, "SELECT col_description('academic.author'::regclass, attnum) FROM pg_attribute WHERE attrelid = 'academic.author'::regclass AND attname = 'name'").Scan(&got)
	require.NoError(t, err)
	assert.Equal(t, want, got, "comment of academic.author.name")

	var authors int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM academic.author").Scan(&authors))
	assert.Positive(t, authors, "rows of academic.author")
	var publicTables int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname IN ('public', 'consumer_div')").Scan(&publicTables))
	assert.Zero(t, publicTables, "tables left in public or consumer_div")
}

// describedColumn returns the description <db>.json gives a column.
func describedColumn(t *testing.T, db *database, table, col string) string {
	t.Helper()
	for _, tb := range db.tables {
		for _, c := range tb.Columns {
			if tb.Name == table && c.Name == col {
				require.NotEmpty(t, c.Description)
				return c.Description
			}
		}
	}
	t.Fatalf("%s.json describes no column %s.%s", db.name, table, col)
	return ""
}

// TestLoadAgain reloads while nothing else runs (it is not parallel, so it
// finishes before the parallel tests start): twice at once, then the
// counts must match the first load.
func TestLoadAgain(t *testing.T) {
	pool := needDB(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	results := make([]Stats, 2)
	errs := make([]error, 2)
	for i := range results {
		wg.Go(func() { results[i], errs[i] = Load(ctx, pool, Options{ReaderRole: readerRole}) })
	}
	wg.Wait()
	first := testStats
	first.Elapsed = 0
	for i, st := range results {
		require.NoError(t, errs[i], "concurrent load %d", i+1)
		st.Elapsed = 0
		assert.Equal(t, first, st, "stats of concurrent load %d against the first load", i+1)
	}
}

func TestLoadRefusesBadOptions(t *testing.T) {
	t.Parallel()
	pool := needDB(t)
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"missing role", Options{ReaderRole: "abt_defog_no_such_role", Schemas: []string{"academic"}}, `reader role "abt_defog_no_such_role" does not exist`},
		{"unknown database", Options{ReaderRole: readerRole, Schemas: []string{"academic", "spider"}}, `unknown database "spider"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(context.Background(), pool, tt.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestGoldQueriesRun runs every converted gold query as the reader, in a
// read-only transaction with an empty search_path, so an unqualified
// relation fails too.
func TestGoldQueriesRun(t *testing.T) {
	t.Parallel()
	pool := needDB(t)
	f, _, err := Questions()
	require.NoError(t, err)
	var failures, empty []string
	for _, it := range f.Items {
		rows, err := runReadOnly(context.Background(), pool, it.SQL)
		switch {
		case err != nil:
			failures = append(failures, fmt.Sprintf("%s: %v\n    %s", it.ID, err, it.SQL))
		case rows == 0:
			empty = append(empty, it.ID)
		}
	}
	t.Logf("%d gold queries return no rows: %v", len(empty), empty)
	if len(failures) > 0 {
		t.Errorf("%d of %d gold queries fail:\n%s", len(failures), len(f.Items), strings.Join(failures, "\n"))
	}
}

// runReadOnly runs sql as readerRole and returns how many rows it gave.
func runReadOnly(ctx context.Context, pool *pgxpool.Pool, sql string) (int, error) {
	n := 0
	err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		setup := "SET LOCAL ROLE " + pgx.Identifier{readerRole}.Sanitize() +
			"; SET LOCAL statement_timeout = '10s'; SET LOCAL search_path = ''"
		if _, err := tx.Exec(ctx, setup); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, sql)
		if err != nil {
			return err
		}
		for rows.Next() {
			n++
		}
		return rows.Err()
	})
	return n, err
}

// TestGoldQueriesPassGuard checks every gold query with the bot's SQL
// guard, allowing the 11 schemas and exactly the tables loaded into them.
func TestGoldQueriesPassGuard(t *testing.T) {
	t.Parallel()
	f, _, err := Questions()
	require.NoError(t, err)
	policy := sqlguard.Policy{Schemas: Databases()}
	for _, name := range Databases() {
		db, err := readDatabase(name)
		require.NoError(t, err)
		for _, tb := range db.tables {
			policy.Tables = append(policy.Tables, name+"."+strings.ToLower(tb.Name))
		}
	}
	var failures []string
	for _, it := range f.Items {
		if err := sqlguard.Check(it.SQL, policy); err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v\n    %s", it.ID, err, it.SQL))
		}
	}
	if len(failures) > 0 {
		t.Errorf("the guard rejects %d of %d gold queries:\n%s", len(failures), len(f.Items), strings.Join(failures, "\n"))
	}
}

// TestGeneratedFileIsCurrent keeps evals/defog.yaml from going stale and
// checks that the eval package reads back exactly what Questions made.
func TestGeneratedFileIsCurrent(t *testing.T) {
	t.Parallel()
	const path = "../../evals/defog.yaml"
	want, err := GenerateYAML()
	require.NoError(t, err)
	got, err := os.ReadFile(path)
	require.NoError(t, err, "run `go generate ./eval/defog` to write evals/defog.yaml")
	require.Equal(t, string(want), string(got), "evals/defog.yaml is stale: run `go generate ./eval/defog`")

	parsed, err := eval.Parse(got)
	require.NoError(t, err, "eval.Parse(evals/defog.yaml)")
	f, conv, err := Questions()
	require.NoError(t, err)
	assert.Equal(t, f.Items, parsed.Items, "items read back from evals/defog.yaml")
	assert.Equal(t, 314, conv.Total, "rows (SOURCE.txt counts 314)")
	assert.Equal(t, conv.Total, len(f.Items)+len(conv.Dropped), "every row is an item or dropped")
	assert.Equal(t, 42, conv.Expanded+countBraced(conv.Dropped), "rows with {a, b} (SOURCE.txt counts 42)")
	doc, err := os.ReadFile("../../docs/eval.md")
	require.NoError(t, err)
	assert.Contains(t, string(doc), "34 rows with several gold\n  queries keep the first; none is dropped", "docs/eval.md states the figures below")
	assert.Equal(t, 34, conv.FirstOfSeveral, "rows with several gold queries")
	assert.Empty(t, conv.Dropped, "rows dropped")
}

// countBraced counts the rows dropped for their alternative columns.
func countBraced(dropped []Dropped) int {
	n := 0
	for _, d := range dropped {
		if strings.Contains(d.Reason, "alternative columns") {
			n++
		}
	}
	return n
}
