package pgwarehouse_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// people holds values that PostgreSQL's errors quote when a query fails on
// them; each secret is a piece of a value no redacted error may hold.
const people = `
CREATE TABLE analytics.people (email text, code text, born text, js text, big bigint, raw text, odd text);
INSERT INTO analytics.people VALUES
  ('zed.secret@corp.test', '98765432109', '2021-13-01', 'qqjsonsecret', 45678901, 'ff', 'qq"zztail');
GRANT SELECT ON analytics.people TO analyticsbot_reader;
CREATE FUNCTION analytics.shout(t text) RETURNS int LANGUAGE plpgsql AS $$BEGIN RAISE EXCEPTION 'no such person: %', t; END$$;
`

var secrets = []string{"zed", "secret", "98765432109", "2021-13-01", "qqjson", "45678901", "0xff", "zztail"}

// Every error of a query reaches the generator, the query log and the
// operator's logs without what PostgreSQL quoted from the data: the value
// a cast or a parse failed on, a name looked up from a value, a number,
// JSON's DETAIL and CONTEXT, a function's own message. What the query
// wrote itself stays, so the retry still knows what went wrong.
func TestErrorsHoldNoData(t *testing.T) {
	t.Parallel()
	db, url := newAnalyticsDB(t)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, people)
	require.NoError(t, err)
	exec := newExec(t, url, pgwarehouse.ExecConfig{})

	tests := []struct {
		name, sql string
		kind      warehouse.ErrorKind // "" for an error the bot does not classify
		want      string              // the redacted message
		raw       string              // a secret the database's own error holds
	}{
		{"cast to integer", "SELECT count(*) FROM people WHERE CAST(email AS int) > 0",
			warehouse.Invalid, `invalid input syntax for type integer: "…"`, "zed.secret@corp.test"},
		{"out of range", "SELECT code::int FROM people", warehouse.Invalid, `value "…" is out of range for type integer`, "98765432109"},
		{"a date", "SELECT born::date FROM people", warehouse.Invalid, `date/time field value out of range: "…"`, "2021-13-01"},
		{"JSON's detail and context", "SELECT js::jsonb FROM people", warehouse.Invalid, "invalid input syntax for type json", "qqjsonsecret"},
		{"a format", "SELECT to_date(email, 'YYYY') FROM people", warehouse.Invalid, `invalid value "…"`, "zed."},
		{"a name looked up", "SELECT js::regclass FROM people", warehouse.Invalid, `relation "…" does not exist`, "qqjsonsecret"},
		{"a schema looked up", "SELECT split_part(email, '@', 1)::regclass FROM people", "", `schema "…" does not exist`, "zed"},
		{"a number", "SELECT chr(big::int) FROM people", warehouse.Invalid, "requested character too large for encoding: …", "45678901"},
		{"bytes", "SELECT convert_from(decode(raw, 'hex'), 'UTF8') FROM people", warehouse.Invalid,
			`invalid byte sequence for encoding "UTF8": …`, "0xff"},
		{"a value with a quote in it", "SELECT odd::int FROM people", warehouse.Invalid, `invalid input syntax for type integer: "…"`, "zztail"},
		{"a function's own message", "SELECT analytics.shout(email) FROM people", "", "a function raised an error; its message is not shown", "zed.secret"},
		{"the query's own literal stays", "SELECT 'not a number'::int", warehouse.Invalid, `invalid input syntax for type integer: "not a number"`, ""},
		{"the query's own name stays", "SELECT emial FROM people", warehouse.Invalid, `column "emial" does not exist`, ""},
		{"the query's own number stays", "SELECT email FROM people ORDER BY 9", warehouse.Invalid, "ORDER BY position 9 is not in select list", ""},
		{"names the query wrote stay", "SELECT email FROM people GROUP BY code", warehouse.Invalid, `column "people.email" must appear in the GROUP BY clause`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.raw != "" {
				// The database's own words hold the value: what is tested is
				// the executor taking it out.
				_, rawErr := db.Pool().Exec(ctx, "SET search_path = analytics; "+tt.sql)
				require.Error(t, rawErr)
				assert.Contains(t, texts(rawErr), tt.raw, "the unredacted error")
			}
			_, err := exec.Query(ctx, tt.sql)
			require.Error(t, err)
			assertNoData(t, err)
			assert.Contains(t, err.Error(), tt.want)
			if tt.kind != "" {
				assertKind(t, tt.kind, err)
				var we *warehouse.Error
				require.ErrorAs(t, err, &we)
				assert.Contains(t, we.Reason, tt.want, "what the generator reads")
			}

			var csv bytes.Buffer
			_, err = exec.ExportCSV(ctx, tt.sql, &csv, warehouse.ExportLimit{Rows: 10})
			require.Error(t, err)
			assertNoData(t, err)
		})
	}
}

// assertNoData fails when err, or the database error in it, holds a
// secret anywhere: its text, the message, detail, hint or context.
func assertNoData(t *testing.T, err error) {
	t.Helper()
	all := err.Error() + "\n" + texts(err)
	for _, s := range secrets {
		assert.NotContains(t, all, s)
	}
}

// texts are the texts of the database error in err.
func texts(err error) string {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return err.Error()
	}
	return pgErr.Message + "\n" + pgErr.Detail + "\n" + pgErr.Hint + "\n" + pgErr.Where + "\n" + pgErr.InternalQuery
}

// PostgreSQL's hint for a misspelt column names the column meant, which
// the query did not write: the backend keeps it when the caller's catalog
// holds that column, so the retry can use it, and takes it out when their
// policy denies it.
func TestErrorsKeepTheCallersNames(t *testing.T) {
	t.Parallel()
	_, url := newAnalyticsDB(t)
	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{DatabaseURL: url}})
	t.Cleanup(b.Close)
	rules, err := access.Parse([]byte(`
policies:
  - name: narrow
    tables: ["analytics.orders"]
    deny_columns: ["analytics.orders.customer"]
default: narrow
`))
	require.NoError(t, err)
	ctx := context.Background()
	const misspelt = "SELECT custmer FROM orders"

	reason := func(ctx context.Context) string {
		_, err := b.Check(ctx, misspelt, 10)
		var we *warehouse.Error
		require.ErrorAs(t, err, &we)
		assert.Equal(t, warehouse.Invalid, we.Kind)
		return we.Reason
	}
	assert.Equal(t, `column "custmer" does not exist (hint: Perhaps you meant to reference the column "orders.customer".)`, reason(ctx))
	narrow := warehouse.WithCaller(ctx, warehouse.Caller{UserID: "U1", Access: rules.List()[0]})
	assert.Equal(t, `column "custmer" does not exist (hint: Perhaps you meant to reference the column "…".)`, reason(narrow))

	_, err = newExec(t, url, pgwarehouse.ExecConfig{}).Query(ctx, misspelt)
	assert.ErrorContains(t, err, `the column "…"`, "the executor alone knows only the query's words")
}

// A failed statement's spans (their error event and status) go to the
// tracing backend with the error as the executor returns it, redacted.
// The test installs a global tracer provider, as the program does, so it
// does not run in parallel.
func TestErrorSpansHoldNoData(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })
	db, url := newAnalyticsDB(t)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, people)
	require.NoError(t, err)
	exec := newExec(t, url, pgwarehouse.ExecConfig{})

	ctx, turn := tp.Tracer("test").Start(ctx, "turn")
	_, err = exec.Query(ctx, "SELECT count(*) FROM people WHERE CAST(email AS int) > 0")
	require.Error(t, err)
	turn.End()
	var failed int
	for _, s := range rec.Ended() {
		text := s.Status().Description
		for _, ev := range s.Events() {
			for _, kv := range ev.Attributes {
				text += " " + kv.Value.Emit()
			}
		}
		if strings.Contains(text, "invalid input syntax") {
			failed++
			assert.Contains(t, text, `integer: "…"`)
		}
		for _, secret := range secrets {
			assert.NotContains(t, text, secret, "span %q", s.Name())
		}
	}
	// The statement is sent in a batch after the one that signs who it
	// runs for: its own span, and the batch's, which ends with its error.
	assert.Equal(t, 2, failed, "the failed statement's span and its batch's")
}
