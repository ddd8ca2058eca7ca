package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
)

func TestExecutorConvertsEveryType(t *testing.T) {
	t.Parallel()
	db, _ := newAnalyticsDB(t)
	exec := store.NewExecutor(db, store.ExecConfig{})
	tests := []struct {
		name     string
		sql      string
		wantType string
		want     any
	}{
		{name: "int2", sql: "SELECT 7::int2", wantType: "int2", want: int64(7)},
		{name: "int4", sql: "SELECT -42::int4", wantType: "int4", want: int64(-42)},
		{name: "int8 beyond float precision", sql: "SELECT 9007199254740993::int8", wantType: "int8", want: int64(9007199254740993)},
		{name: "count", sql: "SELECT count(*) FROM orders", wantType: "int8", want: int64(2)},
		{name: "float4", sql: "SELECT 0.1::float4", wantType: "float4", want: 0.1},
		{name: "float8", sql: "SELECT 2.5::float8", wantType: "float8", want: 2.5},
		{name: "float8 NaN", sql: "SELECT 'NaN'::float8", wantType: "float8", want: "NaN"},
		{name: "float8 infinity", sql: "SELECT 'Infinity'::float8", wantType: "float8", want: "Infinity"},
		{name: "float4 minus infinity", sql: "SELECT '-Infinity'::float4", wantType: "float4", want: "-Infinity"},
		{name: "numeric exact", sql: "SELECT amount FROM orders WHERE id = 1", wantType: "numeric", want: "19.99"},
		{name: "numeric keeps scale", sql: "SELECT amount FROM orders WHERE id = 2", wantType: "numeric", want: "5.00"},
		{name: "numeric large", sql: "SELECT 12345678901234567890.123456789::numeric", wantType: "numeric", want: "12345678901234567890.123456789"},
		{name: "numeric sum", sql: "SELECT sum(amount) FROM orders", wantType: "numeric", want: "24.99"},
		{name: "numeric NaN", sql: "SELECT 'NaN'::numeric", wantType: "numeric", want: "NaN"},
		{name: "bool true", sql: "SELECT true", wantType: "bool", want: true},
		{name: "bool false", sql: "SELECT 1 > 2", wantType: "bool", want: false},
		{name: "text", sql: "SELECT customer FROM orders WHERE id = 1", wantType: "text", want: "acme"},
		{name: "text unicode", sql: "SELECT 'café ☕'::text", wantType: "text", want: "café ☕"},
		{name: "varchar", sql: "SELECT 'abc'::varchar(10)", wantType: "varchar", want: "abc"},
		{name: "char pads", sql: "SELECT 'ab'::char(4)", wantType: "bpchar", want: "ab  "},
		{name: "name", sql: "SELECT 'orders'::name", wantType: "name", want: "orders"},
		{name: "untyped literal is text", sql: "SELECT 'hello'", wantType: "text", want: "hello"},
		{name: "date", sql: "SELECT DATE '2024-03-05'", wantType: "date", want: "2024-03-05"},
		{name: "timestamp", sql: "SELECT TIMESTAMP '2024-03-05 14:30:00'", wantType: "timestamp", want: "2024-03-05T14:30:00"},
		{name: "timestamp fraction", sql: "SELECT TIMESTAMP '2024-03-05 14:30:00.25'", wantType: "timestamp", want: "2024-03-05T14:30:00.25"},
		{name: "timestamptz to UTC", sql: "SELECT TIMESTAMPTZ '2024-03-05 14:30:00+02'", wantType: "timestamptz", want: "2024-03-05T12:30:00Z"},
		{name: "timestamptz fraction", sql: "SELECT TIMESTAMPTZ '2024-03-05 14:30:00.123456-05'", wantType: "timestamptz", want: "2024-03-05T19:30:00.123456Z"},
		{name: "timestamptz infinity", sql: "SELECT 'infinity'::timestamptz", wantType: "timestamptz", want: "infinity"},
		{name: "time", sql: "SELECT TIME '15:04:05'", wantType: "time", want: "15:04:05"},
		{name: "time fraction", sql: "SELECT TIME '15:04:05.5'", wantType: "time", want: "15:04:05.5"},
		{name: "interval days and hours", sql: "SELECT INTERVAL '1 day 2 hours'", wantType: "interval", want: "1 day 02:00:00"},
		{name: "interval months", sql: "SELECT INTERVAL '3 months 2 days'", wantType: "interval", want: "3 mons 2 days"},
		{name: "date difference", sql: "SELECT TIMESTAMP '2024-03-05' - TIMESTAMP '2024-03-01 12:00'", wantType: "interval", want: "3 days 12:00:00"},
		{name: "uuid", sql: "SELECT 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid", wantType: "uuid", want: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		{name: "json", sql: `SELECT '{"a": [1, "x", null], "b": true}'::json`, wantType: "json",
			want: map[string]any{"a": []any{1.0, "x", nil}, "b": true}},
		{name: "jsonb", sql: `SELECT '{"n": 2.5}'::jsonb`, wantType: "jsonb", want: map[string]any{"n": 2.5}},
		{name: "json scalar", sql: `SELECT '"hi"'::jsonb`, wantType: "jsonb", want: "hi"},
		{name: "bytea", sql: `SELECT '\x48656c6c6f'::bytea`, wantType: "bytea", want: "SGVsbG8="},
		{name: "int array with NULL", sql: "SELECT ARRAY[1, 2, NULL]::int4[]", wantType: "_int4", want: []any{int64(1), int64(2), nil}},
		{name: "text array quoting", sql: `SELECT ARRAY['a b', 'c', 'NULL', NULL, 'q"uo\te', '{x,y}']`, wantType: "_text",
			want: []any{"a b", "c", "NULL", nil, `q"uo\te`, "{x,y}"}},
		{name: "numeric array", sql: "SELECT ARRAY[1.50, 2.25]::numeric[]", wantType: "_numeric", want: []any{"1.50", "2.25"}},
		{name: "date array", sql: "SELECT ARRAY[DATE '2024-01-02']", wantType: "_date", want: []any{"2024-01-02"}},
		{name: "timestamp array", sql: "SELECT ARRAY[TIMESTAMP '2024-01-02 03:04:05']", wantType: "_timestamp", want: []any{"2024-01-02T03:04:05"}},
		{name: "bool array", sql: "SELECT ARRAY[true, false]", wantType: "_bool", want: []any{true, false}},
		{name: "two-dimensional array", sql: "SELECT ARRAY[[1, 2], [3, 4]]", wantType: "_int4",
			want: []any{[]any{int64(1), int64(2)}, []any{int64(3), int64(4)}}},
		{name: "array with bounds", sql: "SELECT '[0:1]={7,8}'::int[]", wantType: "_int4", want: []any{int64(7), int64(8)}},
		{name: "empty array", sql: "SELECT '{}'::text[]", wantType: "_text", want: []any{}},
		{name: "box array", sql: "SELECT ARRAY[box '((0,0),(1,1))', box '((2,2),(3,3))']", wantType: "_box",
			want: []any{"(1,1),(0,0)", "(3,3),(2,2)"}},
		{name: "NULL", sql: "SELECT NULL::int", wantType: "int4", want: nil},
		{name: "NULL text", sql: "SELECT NULL::text", wantType: "text", want: nil},
		{name: "inet", sql: "SELECT '192.168.0.1'::inet", wantType: "inet", want: "192.168.0.1"},
		{name: "cidr", sql: "SELECT '10.0.0.0/8'::cidr", wantType: "cidr", want: "10.0.0.0/8"},
		{name: "point, known to the driver", sql: "SELECT point '(1,2)'", wantType: "point", want: "(1,2)"},
		{name: "enum, unknown to the driver", sql: "SELECT 'happy'::mood", wantType: "unknown", want: "happy"},
		{name: "enum array", sql: "SELECT ARRAY['happy', 'sad']::mood[]", wantType: "unknown", want: "{happy,sad}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := exec.Query(context.Background(), tt.sql)
			require.NoError(t, err, tt.sql)
			require.Len(t, res.Columns, 1)
			require.Len(t, res.Rows, 1)
			assert.Equal(t, tt.wantType, res.Columns[0].Type, "column type of %s", tt.sql)
			assert.Equal(t, tt.want, res.Rows[0][0], "value of %s", tt.sql)
			_, err = json.Marshal(res)
			assert.NoError(t, err, "result must be JSON-safe")
		})
	}
}

func TestExecutorResultShape(t *testing.T) {
	t.Parallel()
	db, _ := newAnalyticsDB(t)
	exec := store.NewExecutor(db, store.ExecConfig{})
	res, err := exec.Query(context.Background(), "SELECT id, customer AS who, amount FROM orders ORDER BY id")
	require.NoError(t, err)
	want := store.Result{
		Columns:  []store.Column{{Name: "id", Type: "int4"}, {Name: "who", Type: "text"}, {Name: "amount", Type: "numeric"}},
		Rows:     [][]any{{int64(1), "acme", "19.99"}, {int64(2), "globex", "5.00"}},
		RowCount: 2,
	}
	assert.Equal(t, want, res)

	empty, err := exec.Query(context.Background(), "SELECT id FROM orders WHERE false")
	require.NoError(t, err)
	got, err := json.Marshal(empty)
	require.NoError(t, err)
	assert.JSONEq(t, `{"columns":[{"name":"id","type":"int4"}],"rows":[],"row_count":0,"truncated":false}`, string(got))
}

func TestExecutorTruncatesAtMaxRows(t *testing.T) {
	t.Parallel()
	_, url := newAnalyticsDB(t)
	// One connection: the query after a truncated one must reuse the very
	// connection whose statement was canceled.
	db, err := store.Open(context.Background(), url+"&pool_max_conns=1")
	require.NoError(t, err)
	t.Cleanup(db.Close)
	exec := store.NewExecutor(db, store.ExecConfig{MaxRows: 5})
	t.Cleanup(exec.Close)

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
	db, _ := newAnalyticsDB(t)
	exec := store.NewExecutor(db, store.ExecConfig{MaxBytes: 10_000})
	t.Cleanup(exec.Close)
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
	db, _ := newAnalyticsDB(t)
	exec := store.NewExecutor(db, store.ExecConfig{StatementTimeout: 100 * time.Millisecond})
	_, err := exec.Query(context.Background(), "SELECT pg_sleep(5)")
	require.Error(t, err)
	assert.ErrorIs(t, err, store.ErrQueryTimeout)
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
	db, _ := newAnalyticsDB(t)
	exec := store.NewExecutor(db, store.ExecConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := exec.Query(ctx, "SELECT 1")
	assert.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, store.ErrQueryTimeout)
}

func TestExecutorRefusesWritesAndForeignTables(t *testing.T) {
	t.Parallel()
	db, _ := newAnalyticsDB(t)
	exec := store.NewExecutor(db, store.ExecConfig{})
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
		{name: "bot's own tables", sql: "SELECT * FROM public.conversation_turns", wantCode: "42501", wantMsg: "permission denied"},
		{name: "ungranted schema", sql: "SELECT * FROM private.salaries", wantCode: "42501", wantMsg: "permission denied"},
		{name: "public is off the search path", sql: "SELECT * FROM query_results", wantCode: "42P01", wantMsg: `relation "query_results" does not exist`},
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
			assert.NotErrorIs(t, err, store.ErrUnavailable)
			assert.NotErrorIs(t, err, store.ErrQueryTimeout)
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
	db, _ := newAnalyticsDB(t)
	exec := store.NewExecutor(db, store.ExecConfig{})
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
	db, _ := newAnalyticsDB(t)
	exec := store.NewExecutor(db, store.ExecConfig{})
	_, err := exec.Query(context.Background(), "  \n")
	assert.ErrorIs(t, err, store.ErrEmptyQuery)
	assert.ErrorIs(t, exec.Explain(context.Background(), ""), store.ErrEmptyQuery)
}

func TestDatabaseUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, err := store.Open(ctx, "postgres://bot:s3cret@127.0.0.1:1/analytics?sslmode=disable")
	require.Error(t, err)
	assert.ErrorIs(t, err, store.ErrUnavailable)
	assert.Contains(t, err.Error(), "127.0.0.1:1/analytics", "names host and database")
	assert.NotContains(t, err.Error(), "s3cret", "never shows the password")

	db, _ := newAnalyticsDB(t)
	exec := store.NewExecutor(db, store.ExecConfig{URL: "postgres://analyticsbot_reader@127.0.0.1:1/analytics?sslmode=disable&connect_timeout=2"})
	t.Cleanup(exec.Close)
	_, err = exec.Query(ctx, "SELECT 1")
	assert.ErrorIs(t, err, store.ErrUnavailable, "query with the server down")
	assert.ErrorIs(t, exec.Explain(ctx, "SELECT 1"), store.ErrUnavailable, "explain with the server down")
}

func TestExecutorCannotLogIn(t *testing.T) {
	t.Parallel()
	db, _ := newAnalyticsDB(t)
	exec := store.NewExecutor(db, store.ExecConfig{Role: "no_such_reader_role"})
	t.Cleanup(exec.Close)
	_, err := exec.Query(context.Background(), "SELECT 1")
	assert.ErrorIs(t, err, store.ErrUnavailable)
	assert.ErrorContains(t, err, `cannot log in as the reader role "no_such_reader_role"`)
	assert.ErrorContains(t, err, "READER_DATABASE_URL", "says how to fix it")
	assert.ErrorContains(t, exec.Ping(context.Background()), "cannot log in")
}

func TestExecutorDefaults(t *testing.T) {
	t.Parallel()
	got := store.NewExecutor(nil, store.ExecConfig{}).Config()
	want := store.ExecConfig{Role: "analyticsbot_reader", Schema: "analytics", StatementTimeout: 30 * time.Second, MaxRows: 1000,
		MaxBytes: 8 << 20, LockTimeout: 2 * time.Second}
	if got != want {
		t.Errorf("defaults: got %+v, want %+v", got, want)
	}
}
