package pgwarehouse_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// TestValuesStayExact runs one value of every kind of type PostgreSQL
// returns and follows it the whole way: the value and kind the executor
// reads, the same value after the result cache stored it in Postgres and
// read it back, and the CSV field an export writes (as COPY … CSV would
// quote it: NULL empty, an empty string "").
func TestValuesStayExact(t *testing.T) {
	t.Parallel()
	db, url := newAnalyticsDB(t)
	exec := newExec(t, url, pgwarehouse.ExecConfig{})
	cache, err := store.NewCache(db, store.CacheLimits{PerThread: 1000, Entries: 1})
	require.NoError(t, err)
	n, text, tm, b, other := warehouse.KindNumber, warehouse.KindText, warehouse.KindTime, warehouse.KindBool, warehouse.KindOther
	tests := []struct {
		name     string
		sql      string
		wantType string
		wantKind warehouse.Kind
		want     any
		wantCSV  string
	}{
		{"int2", "SELECT 7::int2", "int2", n, int64(7), "7"},
		{"int4", "SELECT -42::int4", "int4", n, int64(-42), "-42"},
		{"int8 beyond float precision", "SELECT 9007199254740993::int8", "int8", n, int64(9007199254740993), "9007199254740993"},
		{"count", "SELECT count(*) FROM orders", "int8", n, int64(2), "2"},
		{"float4", "SELECT 0.1::float4", "float4", n, 0.1, "0.1"},
		{"float8", "SELECT 2.5::float8", "float8", n, 2.5, "2.5"},
		{"float8 integral", "SELECT 3::float8", "float8", n, 3.0, "3"},
		{"float8 large", "SELECT 1e20::float8", "float8", n, 1e20, "100000000000000000000"},
		{"float8 tiny", "SELECT 1.5e-7::float8", "float8", n, 1.5e-7, "0.00000015"},
		{"float8 NaN", "SELECT 'NaN'::float8", "float8", n, "NaN", "NaN"},
		{"float8 infinity", "SELECT 'Infinity'::float8", "float8", n, "Infinity", "Infinity"},
		{"float4 minus infinity", "SELECT '-Infinity'::float4", "float4", n, "-Infinity", "-Infinity"},
		{"numeric exact", "SELECT amount FROM orders WHERE id = 1", "numeric", n, "19.99", "19.99"},
		{"numeric keeps scale", "SELECT amount FROM orders WHERE id = 2", "numeric", n, "5.00", "5.00"},
		{"numeric large", "SELECT 12345678901234567890.123456789::numeric", "numeric", n, "12345678901234567890.123456789", "12345678901234567890.123456789"},
		{"numeric sum", "SELECT sum(amount) FROM orders", "numeric", n, "24.99", "24.99"},
		{"numeric NaN", "SELECT 'NaN'::numeric", "numeric", n, "NaN", "NaN"},
		{"money", "SELECT 1234.5::money", "money", n, "$1,234.50", `"$1,234.50"`},
		{"oid", "SELECT 42::oid", "oid", n, "42", "42"},
		{"bool true", "SELECT true", "bool", b, true, "true"},
		{"bool false", "SELECT 1 > 2", "bool", b, false, "false"},
		{"text", "SELECT customer FROM orders WHERE id = 1", "text", text, "acme", "acme"},
		{"text unicode", "SELECT 'café ☕'::text", "text", text, "café ☕", "café ☕"},
		{"text quoted for CSV", `SELECT 'a,"b"'::text`, "text", text, `a,"b"`, `"a,""b"""`},
		{"text with a line break", "SELECT E'two\\nlines'", "text", text, "two\nlines", "\"two\nlines\""},
		{"text with leading space", "SELECT ' x'::text", "text", text, " x", `" x"`},
		{"empty text is not NULL", "SELECT ''::text", "text", text, "", `""`},
		{"varchar", "SELECT 'abc'::varchar(10)", "varchar", text, "abc", "abc"},
		{"char pads", "SELECT 'ab'::char(4)", "bpchar", text, "ab  ", "ab  "},
		{"name", "SELECT 'orders'::name", "name", text, "orders", "orders"},
		{"untyped literal is text", "SELECT 'hello'", "text", text, "hello", "hello"},
		{"uuid", "SELECT 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid", "uuid", text, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		{"date", "SELECT DATE '2024-03-05'", "date", tm, "2024-03-05", "2024-03-05"},
		{"timestamp", "SELECT TIMESTAMP '2024-03-05 14:30:00'", "timestamp", tm, "2024-03-05T14:30:00", "2024-03-05T14:30:00"},
		{"timestamp fraction", "SELECT TIMESTAMP '2024-03-05 14:30:00.25'", "timestamp", tm, "2024-03-05T14:30:00.25", "2024-03-05T14:30:00.25"},
		{"timestamptz to UTC", "SELECT TIMESTAMPTZ '2024-03-05 14:30:00+02'", "timestamptz", tm, "2024-03-05T12:30:00Z", "2024-03-05T12:30:00Z"},
		{"timestamptz fraction", "SELECT TIMESTAMPTZ '2024-03-05 14:30:00.123456-05'", "timestamptz", tm, "2024-03-05T19:30:00.123456Z", "2024-03-05T19:30:00.123456Z"},
		{"timestamptz infinity", "SELECT 'infinity'::timestamptz", "timestamptz", tm, "infinity", "infinity"},
		{"time", "SELECT TIME '15:04:05'", "time", tm, "15:04:05", "15:04:05"},
		{"time fraction", "SELECT TIME '15:04:05.5'", "time", tm, "15:04:05.5", "15:04:05.5"},
		{"timetz", "SELECT TIMETZ '15:04:05+02'", "unknown", tm, "15:04:05+02", "15:04:05+02"},
		{"interval days and hours", "SELECT INTERVAL '1 day 2 hours'", "interval", other, "1 day 02:00:00", "1 day 02:00:00"},
		{"interval months", "SELECT INTERVAL '3 months 2 days'", "interval", other, "3 mons 2 days", "3 mons 2 days"},
		{"date difference", "SELECT TIMESTAMP '2024-03-05' - TIMESTAMP '2024-03-01 12:00'", "interval", other, "3 days 12:00:00", "3 days 12:00:00"},
		{"json as written", `SELECT '{"a": [1, "x", null],  "b": true}'::json`, "json", other,
			`{"a": [1, "x", null],  "b": true}`, `"{""a"": [1, ""x"", null],  ""b"": true}"`},
		{"jsonb", `SELECT '{"n": 2.5}'::jsonb`, "jsonb", other, `{"n": 2.5}`, `"{""n"": 2.5}"`},
		{"jsonb numbers stay exact", `SELECT '{"big": 9007199254740993, "huge": 123456789012345678901234567890, "x": 1.10}'::jsonb`, "jsonb", other,
			`{"x": 1.10, "big": 9007199254740993, "huge": 123456789012345678901234567890}`,
			`"{""x"": 1.10, ""big"": 9007199254740993, ""huge"": 123456789012345678901234567890}"`},
		{"json scalar", `SELECT '"hi"'::jsonb`, "jsonb", other, `"hi"`, `"""hi"""`},
		{"bytea", `SELECT '\x48656c6c6f'::bytea`, "bytea", other, "SGVsbG8=", "SGVsbG8="},
		{"int array with NULL", "SELECT ARRAY[1, 2, NULL]::int4[]", "_int4", other, []any{int64(1), int64(2), nil}, `"{1,2,NULL}"`},
		{"text array quoting", `SELECT ARRAY['a b', 'c', 'NULL', NULL, 'q"uo\te', '{x,y}', '']`, "_text", other,
			[]any{"a b", "c", "NULL", nil, `q"uo\te`, "{x,y}", ""}, `"{""a b"",c,""NULL"",NULL,""q\""uo\\te"",""{x,y}"",""""}"`},
		{"text array with a comma", `SELECT ARRAY['a,b', 'c"d', NULL]`, "_text", other,
			[]any{"a,b", `c"d`, nil}, `"{""a,b"",""c\""d"",NULL}"`},
		{"numeric array", "SELECT ARRAY[1.50, 2.25]::numeric[]", "_numeric", other, []any{"1.50", "2.25"}, `"{1.50,2.25}"`},
		{"float array", "SELECT ARRAY[0.5, 2]::float8[]", "_float8", other, []any{0.5, 2.0}, `"{0.5,2}"`},
		{"date array", "SELECT ARRAY[DATE '2024-01-02']", "_date", other, []any{"2024-01-02"}, "{2024-01-02}"},
		{"timestamp array", "SELECT ARRAY[TIMESTAMP '2024-01-02 03:04:05']", "_timestamp", other, []any{"2024-01-02T03:04:05"}, "{2024-01-02T03:04:05}"},
		{"bool array", "SELECT ARRAY[true, false]", "_bool", other, []any{true, false}, `"{t,f}"`},
		{"two-dimensional array", "SELECT ARRAY[[1, 2], [3, 4]]", "_int4", other,
			[]any{[]any{int64(1), int64(2)}, []any{int64(3), int64(4)}}, `"{{1,2},{3,4}}"`},
		{"array with bounds", "SELECT '[0:1]={7,8}'::int[]", "_int4", other, []any{int64(7), int64(8)}, `"{7,8}"`},
		{"empty array", "SELECT '{}'::text[]", "_text", other, []any{}, "{}"},
		{"box array", "SELECT ARRAY[box '((0,0),(1,1))', box '((2,2),(3,3))']", "_box", other,
			[]any{"(1,1),(0,0)", "(3,3),(2,2)"}, `"{""(1,1),(0,0)"",""(3,3),(2,2)""}"`},
		{"NULL", "SELECT NULL::int", "int4", n, nil, ""},
		{"NULL text", "SELECT NULL::text", "text", text, nil, ""},
		{"inet", "SELECT '192.168.0.1'::inet", "inet", other, "192.168.0.1", "192.168.0.1"},
		{"cidr", "SELECT '10.0.0.0/8'::cidr", "cidr", other, "10.0.0.0/8", "10.0.0.0/8"},
		{"macaddr", "SELECT '08:00:2b:01:02:03'::macaddr", "macaddr", other, "08:00:2b:01:02:03", "08:00:2b:01:02:03"},
		{"bit", "SELECT B'1011'", "bit", other, "1011", "1011"},
		{"point, known to the driver", "SELECT point '(1,2)'", "point", other, "(1,2)", `"(1,2)"`},
		{"range", "SELECT int4range(1, 5)", "int4range", other, "[1,5)", `"[1,5)"`},
		{"tsvector", "SELECT to_tsvector('simple', 'fat cats')", "tsvector", other, "'cats':2 'fat':1", "'cats':2 'fat':1"},
		{"xml", "SELECT '<a>1</a>'::xml", "xml", text, "<a>1</a>", "<a>1</a>"},
		{"enum, unknown to the driver", "SELECT 'happy'::mood", "unknown", text, "happy", "happy"},
		{"enum array", "SELECT ARRAY['happy', 'sad']::mood[]", "unknown", text, "{happy,sad}", `"{happy,sad}"`},
		// A spreadsheet would run these as formulas: text gets an
		// apostrophe; other types' text, which never is one, does not.
		{"text a spreadsheet would run", "SELECT '=1+1'::text", "text", text, "=1+1", "'=1+1"},
		{"xml a spreadsheet would run", "SELECT '=1+2'::xml", "xml", text, "=1+2", "'=1+2"},
		{"a negative interval", "SELECT INTERVAL '-3 days'", "interval", other, "-3 days", "-3 days"},
		{"a negative amount of money", "SELECT (-1.5)::money", "money", n, "-$1.50", "-$1.50"},
		{"bytea whose base64 starts with +", `SELECT '\xf8'::bytea`, "bytea", other, "+A==", "+A=="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			res, err := exec.Query(ctx, tt.sql)
			require.NoError(t, err, tt.sql)
			require.Len(t, res.Columns, 1)
			require.Len(t, res.Rows, 1)
			assert.Equal(t, tt.wantType, res.Columns[0].Type, "column type of %s", tt.sql)
			assert.Equal(t, tt.wantKind, res.Columns[0].Kind, "column kind of %s", tt.sql)
			assert.Equal(t, tt.want, res.Rows[0][0], "value of %s", tt.sql)
			_, err = json.Marshal(res)
			assert.NoError(t, err, "result must be JSON-safe")

			// Through the result cache: stored in Postgres and read back.
			thread := "values-" + tt.name
			require.NoError(t, cache.Put(ctx, store.CachedResult{ThreadID: thread, QueryID: "q", Result: res}))
			cache.Forget()
			back, err := cache.Get(ctx, thread, "q")
			require.NoError(t, err)
			assert.Equal(t, tt.want, back.Result.Rows[0][0], "value after the cache")

			// Exported: the header, then the one field.
			var csv bytes.Buffer
			_, err = exec.ExportCSV(ctx, tt.sql, &csv, warehouse.ExportLimit{Rows: 10})
			require.NoError(t, err)
			_, line, _ := strings.Cut(csv.String(), "\n")
			assert.Equal(t, tt.wantCSV+"\n", line, "CSV field of %s", tt.sql)
			var cached bytes.Buffer
			require.NoError(t, warehouse.WriteCSV(&cached, back.Result))
			assert.Equal(t, csv.String(), cached.String(), "a cached result exports the same CSV")
		})
	}
}
