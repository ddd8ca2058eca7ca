package pgwarehouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

func TestExecutorResultShape(t *testing.T) {
	t.Parallel()
	_, url := newAnalyticsDB(t)
	exec := newExec(t, url, pgwarehouse.ExecConfig{})
	res, err := exec.Query(context.Background(), "SELECT id, customer AS who, amount FROM orders ORDER BY id")
	require.NoError(t, err)
	want := warehouse.Result{
		Columns: []warehouse.Column{{Name: "id", Kind: warehouse.KindNumber, Type: "int4"},
			{Name: "who", Kind: warehouse.KindText, Type: "text"}, {Name: "amount", Kind: warehouse.KindNumber, Type: "numeric"}},
		Rows:     [][]any{{int64(1), "acme", "19.99"}, {int64(2), "globex", "5.00"}},
		RowCount: 2,
	}
	assert.Equal(t, want, res)

	empty, err := exec.Query(context.Background(), "SELECT id FROM orders WHERE false")
	require.NoError(t, err)
	got, err := json.Marshal(empty)
	require.NoError(t, err)
	assert.JSONEq(t, `{"columns":[{"name":"id","kind":"number","type":"int4"}],"rows":[],"row_count":0,"truncated":false}`, string(got))
}

func TestExecutorTruncatesAtMaxRows(t *testing.T) {
	t.Parallel()
	_, url := newAnalyticsDB(t)
	exec := newExec(t, url, pgwarehouse.ExecConfig{MaxRows: 5})

	tests := []struct {
		name          string
		sql           string
		wantRows      int
		wantTruncated bool
	}{
		{name: "fewer rows", sql: "SELECT g FROM generate_series(1, 4) g", wantRows: 4},
		{name: "exactly max", sql: "SELECT g FROM generate_series(1, 5) g", wantRows: 5},
		{name: "one more", sql: "SELECT g FROM generate_series(1, 6) g", wantRows: 5, wantTruncated: true},
		{name: "ten million", sql: "SELECT generate_series(1, 10000000)", wantRows: 5, wantTruncated: true},
		{name: "after a canceled statement", sql: "SELECT g FROM generate_series(1, 3) g", wantRows: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := exec.Query(context.Background(), tt.sql)
			require.NoError(t, err)
			assert.Equal(t, tt.wantRows, res.RowCount, "RowCount")
			assert.Len(t, res.Rows, tt.wantRows, "rows")
			assert.Equal(t, tt.wantTruncated, res.Truncated, "Truncated")
			if tt.wantRows > 0 {
				assert.Equal(t, int64(1), res.Rows[0][0], "first row")
				assert.Equal(t, int64(tt.wantRows), res.Rows[tt.wantRows-1][0], "last row")
			}
		})
	}
}

func TestExecutorCapsResultBytes(t *testing.T) {
	t.Parallel()
	_, url := newAnalyticsDB(t)
	exec := newExec(t, url, pgwarehouse.ExecConfig{MaxBytes: 10_000})
	// 100 rows of 1,000 characters: the tenth row crosses 10,000 bytes.
	res, err := exec.Query(context.Background(), "SELECT repeat('x', 1000) AS filler FROM generate_series(1, 100)")
	require.NoError(t, err)
	assert.True(t, res.Truncated, "Truncated")
	assert.Equal(t, "bytes", res.LimitedBy, "LimitedBy")
	assert.Equal(t, 10, res.RowCount, "rows kept under the byte cap")

	res, err = exec.Query(context.Background(), "SELECT g FROM generate_series(1, 3) g")
	require.NoError(t, err)
	assert.False(t, res.Truncated, "a small result is whole")
	assert.Empty(t, res.LimitedBy)
}

func TestExecutorStatementTimeout(t *testing.T) {
	t.Parallel()
	_, url := newAnalyticsDB(t)
	exec := newExec(t, url, pgwarehouse.ExecConfig{StatementTimeout: 100 * time.Millisecond})
	_, err := exec.Query(context.Background(), "SELECT pg_sleep(5)")
	require.Error(t, err)
	assertKind(t, warehouse.Timeout, err)
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	assert.Equal(t, "57014", pgErr.Code)

	// The timeout lasted only for that transaction.
	res, err := exec.Query(context.Background(), "SELECT 1")
	require.NoError(t, err)
	assert.Equal(t, int64(1), res.Rows[0][0])
}

func TestExecutorCallerCancelIsNotATimeout(t *testing.T) {
	t.Parallel()
	_, url := newAnalyticsDB(t)
	exec := newExec(t, url, pgwarehouse.ExecConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := exec.Query(ctx, "SELECT 1")
	assert.ErrorIs(t, err, context.Canceled)
	assert.NotEqual(t, warehouse.Timeout, warehouse.KindOf(err))
}

func TestExecutorRefusesWritesAndForeignTables(t *testing.T) {
	t.Parallel()
	db, url := newAnalyticsDB(t)
	exec := newExec(t, url, pgwarehouse.ExecConfig{})
	tests := []struct {
		name     string
		sql      string
		wantCode string
		wantMsg  string
	}{
		{name: "create table", sql: "CREATE TABLE analytics.evil (a int)", wantCode: "25006", wantMsg: "read-only transaction"},
		{name: "insert", sql: "INSERT INTO analytics.orders VALUES (3, 'x', 1)", wantCode: "25006", wantMsg: "read-only transaction"},
		{name: "delete via CTE", sql: "WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d", wantCode: "25006", wantMsg: "read-only transaction"},
		{name: "second statement", sql: "SELECT 1; DROP TABLE analytics.orders", wantCode: "42601", wantMsg: "multiple commands"},
		{name: "bot's own tables", sql: "SELECT * FROM analyticsbot.conversation_turns", wantCode: "42501", wantMsg: "permission denied"},
		{name: "ungranted schema", sql: "SELECT * FROM private.salaries", wantCode: "42501", wantMsg: "permission denied"},
		{name: "the bot's schema is off the search path", sql: "SELECT * FROM query_results", wantCode: "42P01", wantMsg: `relation "query_results" does not exist`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := exec.Query(context.Background(), tt.sql)
			require.Error(t, err, tt.sql)
			var pgErr *pgconn.PgError
			require.ErrorAs(t, err, &pgErr, "error %v", err)
			assert.Equal(t, tt.wantCode, pgErr.Code, "SQLSTATE of %v", err)
			assert.Contains(t, err.Error(), tt.wantMsg)
			assert.NotEqual(t, warehouse.Unavailable, warehouse.KindOf(err))
			assert.NotEqual(t, warehouse.Timeout, warehouse.KindOf(err))
		})
	}

	// Nothing was written, and the orders are intact.
	var n int
	require.NoError(t, db.Pool().QueryRow(context.Background(), "SELECT count(*) FROM analytics.orders").Scan(&n))
	assert.Equal(t, 2, n, "orders after the attempts")

	res, err := exec.Query(context.Background(), "SELECT current_user, current_setting('search_path'), current_setting('transaction_read_only')")
	require.NoError(t, err)
	assert.Equal(t, []any{"analyticsbot_reader", `"analytics"`, "on"}, res.Rows[0], "session of a query")

	var role string
	require.NoError(t, db.Pool().QueryRow(context.Background(), "SELECT current_user").Scan(&role))
	assert.NotEqual(t, "analyticsbot_reader", role, "the role must not leak into pooled connections")
}

func TestExecutorExplain(t *testing.T) {
	t.Parallel()
	_, url := newAnalyticsDB(t)
	exec := newExec(t, url, pgwarehouse.ExecConfig{})
	tests := []struct {
		name     string
		sql      string
		wantCode string // "" means no error
		wantMsg  string
	}{
		{name: "valid", sql: "SELECT customer, sum(amount) FROM orders GROUP BY 1"},
		{name: "trailing semicolon", sql: "SELECT 1;"},
		{name: "unknown column", sql: "SELECT foo FROM orders", wantCode: "42703", wantMsg: `column "foo" does not exist`},
		{name: "unknown table", sql: "SELECT * FROM invoices", wantCode: "42P01", wantMsg: `relation "invoices" does not exist`},
		{name: "syntax", sql: "SELEC 1", wantCode: "42601", wantMsg: `syntax error at or near "SELEC"`},
		{name: "ungranted table", sql: "SELECT * FROM private.salaries", wantCode: "42501", wantMsg: "permission denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := exec.Explain(context.Background(), tt.sql)
			if tt.wantCode == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			var pgErr *pgconn.PgError
			require.ErrorAs(t, err, &pgErr, "error %v", err)
			assert.Equal(t, tt.wantCode, pgErr.Code, "SQLSTATE of %v", err)
			assert.Contains(t, pgErr.Message, tt.wantMsg, "Postgres' own message")
			assert.Contains(t, err.Error(), tt.wantMsg, "message reaches the caller")
		})
	}
}

func TestExecutorEmptyQuery(t *testing.T) {
	t.Parallel()
	_, url := newAnalyticsDB(t)
	exec := newExec(t, url, pgwarehouse.ExecConfig{})
	_, err := exec.Query(context.Background(), "  \n")
	assertKind(t, warehouse.Invalid, err)
	assertKind(t, warehouse.Invalid, exec.Explain(context.Background(), ""))
}

func TestDatabaseUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	exec := newExec(t, "", pgwarehouse.ExecConfig{URL: "postgres://analyticsbot_reader:s3cret@127.0.0.1:1/analytics?sslmode=disable&connect_timeout=2"})
	_, err := exec.Query(ctx, "SELECT 1")
	assert.NotContains(t, err.Error(), "s3cret", "never shows the password")
	assertKind(t, warehouse.Unavailable, err, "query with the server down")
	assertKind(t, warehouse.Unavailable, exec.Explain(ctx, "SELECT 1"), "explain with the server down")
}

func TestExecutorCannotLogIn(t *testing.T) {
	t.Parallel()
	_, url := newAnalyticsDB(t)
	exec := newExec(t, url, pgwarehouse.ExecConfig{Role: "no_such_reader_role"})
	_, err := exec.Query(context.Background(), "SELECT 1")
	assertKind(t, warehouse.Unauthorized, err, "the server refused the role")
	assert.ErrorContains(t, err, `cannot log in as the reader role "no_such_reader_role"`)
	assert.ErrorContains(t, err, "READER_DATABASE_URL", "says how to fix it")
	assert.ErrorContains(t, exec.Ping(context.Background()), "cannot log in")
}

func TestExecutorDefaults(t *testing.T) {
	t.Parallel()
	got := pgwarehouse.NewExecutor(pgwarehouse.ExecConfig{}).Config()
	want := pgwarehouse.ExecConfig{Role: "analyticsbot_reader", Schemas: []string{"analytics"}, StatementTimeout: 30 * time.Second, MaxRows: 1000,
		MaxBytes: 8 << 20, PerUser: pgwarehouse.DefaultPerUser, LockTimeout: 2 * time.Second, Timeout: 10 * time.Second}
	assert.Equal(t, want, got, "defaults")
}

// SQL the database refuses for what it says is retried with the reason:
// docs/workflow.md names the SQLSTATE classes (42, 22, 0A, 54, 21). Each
// case is a real server's error, not a made-up code.
func TestExecutorFixableErrors(t *testing.T) {
	t.Parallel()
	_, url := newAnalyticsDB(t)
	exec := newExec(t, url, pgwarehouse.ExecConfig{})
	wide := "SELECT " + strings.TrimSuffix(strings.Repeat("1, ", 1700), ", ")
	tests := []struct {
		name, sql, class, reason string
	}{
		{"syntax and names (42)", "SELECT nosuch FROM orders", "42", `column "nosuch" does not exist`},
		{"data (22)", "SELECT amount / 0 FROM orders", "22", "division by zero"},
		{"a feature PostgreSQL lacks (0A)", "SELECT CASE WHEN true THEN generate_series(1, 2) END", "0A", "set-returning functions are not allowed in CASE"},
		{"a program limit (54)", wide, "54", "target lists can have at most"},
		{"cardinality (21)", "SELECT (SELECT id FROM orders)", "21", "more than one row returned by a subquery"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := exec.Query(context.Background(), tt.sql)
			if !assertKind(t, warehouse.Invalid, err) {
				return
			}
			pgErr, ok := errors.AsType[*pgconn.PgError](err)
			require.True(t, ok, "the server's own error underneath: %v", err)
			assert.Equal(t, tt.class, pgErr.Code[:2], "SQLSTATE class of %s", pgErr.Code)
			assert.Contains(t, err.Error(), tt.reason, "the reason the generator is given")
		})
	}
}

// A read of a row larger than the driver's usual buffer closes its
// connection instead of pooling it: the driver keeps the buffer the row
// grew with the connection, so idle connections that once read a large
// cell held it all. Not parallel: it measures the process's heap.
func TestLargeRowsAreNotKeptByThePool(t *testing.T) {
	_, url := newAnalyticsDB(t)
	exec := newExec(t, url, pgwarehouse.ExecConfig{})
	ctx := context.Background()
	require.NoError(t, exec.Ping(ctx))
	const cell, readers = 40 << 20, 4
	for _, tt := range []struct{ name, sql string }{
		// Cut at MaxBytes (8 MiB), as a question's answer would be.
		{"cut at its bytes", `SELECT repeat('x', 41943040) AS big`},
		// Cut at MaxRows (1,000): the row past them is read all the same.
		{"the row past the row limit", `SELECT CASE WHEN g <= 1000 THEN 'a' ELSE repeat('x', 41943040) END AS big FROM generate_series(1, 1001) g`},
	} {
		before := idleHeap()
		var wg sync.WaitGroup
		errs := make([]error, readers)
		for i := range readers {
			wg.Go(func() {
				res, err := exec.Query(ctx, tt.sql)
				if err == nil && !res.Truncated {
					err = fmt.Errorf("the result was not cut: %d rows", res.RowCount)
				}
				errs[i] = err
			})
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err, tt.name)
		}
		assert.Less(t, idleHeap(), before+cell, "%s: the heap after %d reads of a %d-byte cell, all idle", tt.name, readers, cell)
	}
}
