package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/pgpool"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// readsDB returns a database with one stored value and two examples for
// the question readsQuestion, and the value match and example search
// that question makes, with where pg_trgm is already asked.
func readsDB(t *testing.T) *store.DB {
	t.Helper()
	ctx := context.Background()
	db := storetest.New(t)
	require.NoError(t, db.PrepareValueIndex(ctx))
	col := store.ValueColumn{Backend: "postgres", Schema: "analytics", Table: "publishers", Column: "name"}
	require.NoError(t, db.ReplaceValues(ctx, col, 2, -1, []string{"Ubisoft", "Valve"}))
	for _, e := range []store.Example{
		example("How many games did Valve publish?", "SELECT count(*) FROM games", store.StatusVerified),
		example("Which publishers have the most games?", "SELECT publisher, count(*) FROM games GROUP BY 1", store.StatusVerified),
	} {
		_, _, err := db.AddExample(ctx, e)
		require.NoError(t, err)
	}
	_, err := db.MatchValues(ctx, "postgres", []store.ValuePhrase{{Text: "ubisoft"}}, 0.5, 5, 40)
	require.NoError(t, err)
	return db
}

const readsQuestion = "How many games did Ubisoft publish?"

// queueBoth queues readsQuestion's example search, then its value match,
// on r.
func queueBoth(ctx context.Context, db *store.DB, r *store.Reads) (func(context.Context) ([]store.Example, error), func(context.Context) ([]store.ValueMatch, error)) {
	examples := db.QueueSearchExamples(ctx, r, "postgres", readsQuestion, 3)
	values := db.QueueMatchValues(ctx, r, "postgres", []store.ValuePhrase{{Text: "Ubisoft"}}, 0.5, 5, 40)
	return examples, values
}

// A question's example search and value match share one round trip, and
// each keeps its own result when the other fails. A failure costs round
// trips, never the other's result: a statement that fails as it is
// prepared (a missing table, on a connection that has not prepared it
// yet) stops the whole batch before anything runs, and each read is sent
// again alone.
func TestReadsShareARoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// drop is the table the database loses.
		drop                     string
		wantExamples, wantValues bool
	}{
		{name: "both found", wantExamples: true, wantValues: true},
		{name: "the examples fail", drop: "examples", wantValues: true},
		{name: "the values fail", drop: "value_index", wantExamples: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := readsDB(t)
			if tt.drop != "" {
				_, err := db.Pool().Exec(ctx, "DROP TABLE "+tt.drop+" CASCADE")
				require.NoError(t, err)
			}
			var rt pgpool.RoundTrips
			counted := pgpool.CountRoundTrips(ctx, &rt)
			var r store.Reads
			examples, values := queueBoth(counted, db, &r)
			r.Send(counted)
			es, errExamples := examples(ctx)
			ms, errValues := values(ctx)
			if tt.drop == "" {
				assert.Equal(t, 1, rt.Len(), "round trips:\n%s", &rt)
			} else {
				assert.LessOrEqual(t, rt.Len(), 3, "the batch, then each read alone:\n%s", &rt)
			}

			if tt.wantExamples {
				require.NoError(t, errExamples)
				assert.Equal(t, []string{"How many games did Valve publish?", "Which publishers have the most games?"}, questions(es))
			} else {
				assert.ErrorContains(t, errExamples, `relation "examples" does not exist`)
				assert.Empty(t, es)
			}
			if tt.wantValues {
				require.NoError(t, errValues)
				assert.Equal(t, []string{"publishers.name: Ubisoft (exact)"}, matchesOf(ms))
			} else {
				assert.ErrorContains(t, errValues, `relation "value_index" does not exist`)
				assert.Empty(t, ms)
			}
		})
	}
}

// A statement that fails as it runs makes PostgreSQL skip the rest of the
// batch: a read queued after it is sent again alone and gets its result;
// one queued before it has it already, in the one round trip.
func TestReadsAfterAFailedStatement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	for _, failFirst := range []bool{true, false} {
		var rt pgpool.RoundTrips
		counted := pgpool.CountRoundTrips(ctx, &rt)
		var r store.Reads
		var fails, works func() (string, error)
		if failFirst {
			fails = store.QueueStatement(t.Context(), &r, db, `SELECT (1 / $1::int)::text`, 0)
			works = store.QueueStatement(t.Context(), &r, db, `SELECT 'works'`)
		} else {
			works = store.QueueStatement(t.Context(), &r, db, `SELECT 'works'`)
			fails = store.QueueStatement(t.Context(), &r, db, `SELECT (1 / $1::int)::text`, 0)
		}
		r.Send(counted)
		got, err := works()
		require.NoError(t, err, "failFirst=%v", failFirst)
		assert.Equal(t, "works", got)
		_, err = fails()
		pgErr, ok := errors.AsType[*pgconn.PgError](err)
		require.True(t, ok, "failFirst=%v: %v", failFirst, err)
		assert.Equal(t, "22012", pgErr.Code, "division by zero")
		want := 1
		if failFirst {
			want = 2
		}
		assert.Equal(t, want, rt.Len(), "failFirst=%v: round trips:\n%s", failFirst, &rt)
	}
}

// The value match's settings (its similarity threshold, no sequential
// scans) hold for its own statements only: a read queued after it in the
// same round trip sees the session's, as the example search's trigram
// operator must.
func TestMatchSettingsEndWithTheMatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := readsDB(t)
	before := func() (string, error) {
		var s string
		err := db.Pool().QueryRow(ctx, `SELECT current_setting('pg_trgm.similarity_threshold') || ' ' || current_setting('enable_seqscan')`).Scan(&s)
		return s, err
	}
	want, err := before()
	require.NoError(t, err)
	require.Equal(t, "0.3 on", want, "PostgreSQL's defaults")

	var r store.Reads
	values := db.QueueMatchValues(ctx, &r, "postgres", []store.ValuePhrase{{Text: "Ubisoft"}}, 0.5, 5, 40)
	after := store.QueueStatement(t.Context(), &r, db, `SELECT current_setting('pg_trgm.similarity_threshold') || ' ' || current_setting('enable_seqscan')`)
	r.Send(ctx)
	ms, err := values(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"publishers.name: Ubisoft (exact)"}, matchesOf(ms))
	got, err := after()
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// A read's undo (the statement that sets its settings back before the
// next read of the batch) is no part of its result: the read is whole
// after its own last statement, so an undo that fails costs the read
// nothing, and the read after it, which PostgreSQL skipped, is sent again
// alone and sees the session's settings (the failed undo ended the
// batch's transaction, and the read's settings with it). A read whose own
// statement fails gets that statement's error.
func TestReadsUndo(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	const (
		setOff  = `SELECT set_config('enable_seqscan', 'off', true)`
		setBack = `SELECT set_config('enable_seqscan', 'on', true)`
		// undoFails fails as it runs, with an error of its own (42704).
		undoFails = `SELECT current_setting('no_such_setting')`
		setting   = `SELECT current_setting('enable_seqscan')`
	)
	tests := []struct {
		name      string
		sql, undo string
		args      []any
		// want is the read's result; wantCode, if set, the code of its
		// error instead.
		want, wantCode string
		wantTrips      int
	}{
		{name: "the undo works", sql: setOff, undo: setBack, want: "off", wantTrips: 1},
		{name: "the undo fails", sql: setOff, undo: undoFails, want: "off", wantTrips: 2},
		{
			name: "the read fails", sql: setOff + ` || (1 / $1::int)::text`, undo: undoFails, args: []any{0},
			wantCode: "22012", wantTrips: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var rt pgpool.RoundTrips
			counted := pgpool.CountRoundTrips(t.Context(), &rt)
			var r store.Reads
			read := store.QueueStatementUndo(t.Context(), &r, db, tt.sql, tt.undo, tt.args...)
			after := store.QueueStatement(t.Context(), &r, db, setting)
			r.Send(counted)

			got, err := read()
			if tt.wantCode == "" {
				require.NoError(t, err, "the read's own statement succeeded")
				assert.Equal(t, tt.want, got)
			} else {
				pgErr, ok := errors.AsType[*pgconn.PgError](err)
				require.True(t, ok, "got %v, want the read's own statement's error", err)
				assert.Equal(t, tt.wantCode, pgErr.Code, "the read's own statement's error: %v", err)
			}
			got, err = after()
			require.NoError(t, err, "the read after it")
			assert.Equal(t, "on", got, "the read after it sees the session's setting")
			assert.Equal(t, tt.wantTrips, rt.Len(), "round trips:\n%s", &rt)
		})
	}
}

// A read queued with a short deadline (the value lookup's) bounds the
// round trip it shares; a read without one that the deadline cut before
// it began is sent again alone and gets its result, as it would have
// alone; the slow read gets its deadline's error.
func TestReadsOutliveAnotherReadsDeadline(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	short, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	var r store.Reads
	slow := store.QueueStatement(short, &r, db, `SELECT pg_sleep(5)::text`)
	works := store.QueueStatement(t.Context(), &r, db, `SELECT 'works'`)
	r.Send(t.Context())
	got, err := works()
	require.NoError(t, err, "the read without a deadline of its own")
	assert.Equal(t, "works", got)
	_, err = slow()
	require.Error(t, err, "the slow read is cut at its deadline")
}
