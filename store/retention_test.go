package store_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// fillRetentionTables puts old rows (older than every default age) and
// fresh rows into each table the retention loop cleans.
func fillRetentionTables(t *testing.T, db *store.DB, old, fresh int) {
	t.Helper()
	// Without arguments, Exec may run several statements; the counts are
	// the test's own integers.
	_, err := db.Pool().Exec(context.Background(), fmt.Sprintf(`
		INSERT INTO chat_query_logs (question, created_at)
			SELECT 'old ' || i, now() - interval '8 days' - i * interval '1 second' FROM generate_series(1, %[1]d) i;
		INSERT INTO chat_query_logs (question) SELECT 'fresh ' || i FROM generate_series(1, %[2]d) i;
		INSERT INTO chat_query_logs (question, created_at) SELECT 'six days', now() - interval '6 days';

		INSERT INTO conversation_turns (thread_id, created_at)
			SELECT 'old', now() - interval '91 days' FROM generate_series(1, %[1]d);
		INSERT INTO conversation_turns (thread_id) SELECT 'fresh' FROM generate_series(1, %[2]d);
		INSERT INTO conversation_turns (thread_id, created_at) SELECT 'eighty days', now() - interval '80 days';

		INSERT INTO query_results (thread_id, query_id, created_at)
			SELECT 'old', 'q' || i, now() - interval '31 days' FROM generate_series(1, %[1]d) i;
		INSERT INTO query_results (thread_id, query_id) SELECT 'fresh', 'q' || i FROM generate_series(1, %[2]d) i;
		INSERT INTO query_results (thread_id, query_id, created_at) SELECT 'twenty days', 'q', now() - interval '20 days';

		INSERT INTO slack_deliveries (key, received_at)
			SELECT 'old ' || i, now() - interval '25 hours' FROM generate_series(1, %[1]d) i;
		INSERT INTO slack_deliveries (key) SELECT 'fresh ' || i FROM generate_series(1, %[2]d) i;
		INSERT INTO slack_deliveries (key, received_at) SELECT 'twenty hours', now() - interval '20 hours';`,
		old, fresh))
	require.NoError(t, err, "fill tables")
}

// rowCounts counts the rows of each table the retention loop cleans.
func rowCounts(t *testing.T, db *store.DB) store.RetentionCounts {
	t.Helper()
	var n store.RetentionCounts
	err := db.Pool().QueryRow(context.Background(), `
		SELECT (SELECT count(*) FROM chat_query_logs), (SELECT count(*) FROM conversation_turns),
		       (SELECT count(*) FROM query_results), (SELECT count(*) FROM slack_deliveries)`).
		Scan(&n.QueryLogs, &n.Turns, &n.Results, &n.Deliveries)
	require.NoError(t, err, "count rows")
	return n
}

// recordDeleteBatches makes the database note how many rows each DELETE
// statement on chat_query_logs removed; deleteBatches reads the notes.
func recordDeleteBatches(t *testing.T, db *store.DB) {
	t.Helper()
	_, err := db.Pool().Exec(context.Background(), `
		CREATE TABLE delete_batches (seq serial, n bigint);
		CREATE FUNCTION note_delete_batch() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			INSERT INTO delete_batches (n) SELECT count(*) FROM deleted;
			RETURN NULL;
		END $$;
		CREATE TRIGGER note_delete_batch AFTER DELETE ON chat_query_logs
			REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION note_delete_batch();`)
	require.NoError(t, err, "statement trigger")
}

func deleteBatches(t *testing.T, db *store.DB) []int64 {
	t.Helper()
	var got []int64
	err := db.Pool().QueryRow(context.Background(),
		`SELECT coalesce(array_agg(n ORDER BY seq), '{}') FROM delete_batches`).Scan(&got)
	require.NoError(t, err, "read delete batches")
	return got
}

func TestDeleteQueryLogsOlderThanInBatches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	recordDeleteBatches(t, db)
	fillRetentionTables(t, db, 7, 2)

	n, err := db.DeleteQueryLogsOlderThan(ctx, 7*24*time.Hour, 3)
	require.NoError(t, err)
	assert.Equal(t, int64(7), n, "deleted")
	assert.Equal(t, []int64{3, 3, 1}, deleteBatches(t, db), "rows per DELETE statement")

	logs, err := db.QueryLogs(ctx, store.QueryLogFilter{})
	require.NoError(t, err)
	var left []string
	for _, l := range logs {
		left = append(left, l.Question)
	}
	assert.ElementsMatch(t, []string{"fresh 1", "fresh 2", "six days"}, left, "logs left")

	n, err = db.DeleteQueryLogsOlderThan(ctx, 7*24*time.Hour, 3)
	require.NoError(t, err)
	assert.Equal(t, int64(0), n, "nothing old is left")
}

func TestApplyRetention(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		policy store.RetentionPolicy
		want   store.RetentionCounts // deleted
		left   store.RetentionCounts
	}{
		{
			name: "defaults", policy: store.RetentionPolicy{Batch: 4},
			want: store.RetentionCounts{QueryLogs: 10, Turns: 10, Results: 10, Deliveries: 10},
			left: store.RetentionCounts{QueryLogs: 4, Turns: 4, Results: 4, Deliveries: 4},
		},
		{
			name:   "shorter ages take the rows in between too",
			policy: store.RetentionPolicy{QueryLogs: 5 * 24 * time.Hour, Turns: 70 * 24 * time.Hour, Results: 10 * 24 * time.Hour, Deliveries: 10 * time.Hour},
			want:   store.RetentionCounts{QueryLogs: 11, Turns: 11, Results: 11, Deliveries: 11},
			left:   store.RetentionCounts{QueryLogs: 3, Turns: 3, Results: 3, Deliveries: 3},
		},
		{
			name:   "a negative age keeps the table",
			policy: store.RetentionPolicy{QueryLogs: -1, Results: -1},
			want:   store.RetentionCounts{Turns: 10, Deliveries: 10},
			left:   store.RetentionCounts{QueryLogs: 14, Turns: 4, Results: 14, Deliveries: 4},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := storetest.New(t)
			fillRetentionTables(t, db, 10, 3)
			got, err := db.ApplyRetention(context.Background(), tt.policy)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got, "deleted")
			assert.Equal(t, tt.left, rowCounts(t, db), "left")
		})
	}
}

// TestApplyRetentionConcurrent runs retention from two processes at once,
// twice each: every old row is deleted exactly once and no pass fails,
// whether it ran or skipped its turn.
func TestApplyRetentionConcurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	other, err := store.Open(ctx, url)
	require.NoError(t, err)
	t.Cleanup(other.Close)
	const old, fresh = 3000, 5
	fillRetentionTables(t, db, old, fresh)

	policy := store.RetentionPolicy{Batch: 50}
	results := make([]store.RetentionCounts, 4)
	var wg sync.WaitGroup
	for i := range results {
		pool := []*store.DB{db, other}[i%2]
		wg.Go(func() {
			var err error
			results[i], err = pool.ApplyRetention(ctx, policy)
			assert.NoError(t, err, "retention %d", i)
		})
	}
	wg.Wait()
	// A run cut short by rows its twin held leaves them to the twin, which
	// deletes them: a last pass must find nothing.
	last, err := db.ApplyRetention(ctx, policy)
	require.NoError(t, err)
	assert.Equal(t, store.RetentionCounts{}, last, "left for a later pass")

	var total store.RetentionCounts
	for _, r := range results {
		total.QueryLogs += r.QueryLogs
		total.Turns += r.Turns
		total.Results += r.Results
		total.Deliveries += r.Deliveries
	}
	assert.Equal(t, store.RetentionCounts{QueryLogs: old, Turns: old, Results: old, Deliveries: old}, total,
		"rows deleted over all runs (%+v)", results)
	assert.Equal(t, store.RetentionCounts{QueryLogs: fresh + 1, Turns: fresh + 1, Results: fresh + 1, Deliveries: fresh + 1},
		rowCounts(t, db), "rows left")
}

// pass is what one process's retention pass returned.
type pass struct {
	who string
	n   store.RetentionCounts
	err error
}

// racePasses starts a retention pass in each of two processes sharing a
// database while the test holds a lock on conversation_turns that their
// DELETEs wait for. The pass that takes the retention lock deletes the old
// query logs and then waits on the table; the other must skip its turn, so
// the first pass to return is the skipped one, and the test can tell the
// two apart without any timing. It returns the skipped pass, the channel
// the waiting pass will return on, a function that cancels the waiting
// pass, and a function that lets it go on.
func racePasses(t *testing.T, dbs map[string]*store.DB) (skipped pass, waiting <-chan pass, cancel func(string), release func()) {
	t.Helper()
	ctx := context.Background()
	var some *store.DB
	for _, db := range dbs {
		some = db
	}
	tx, err := some.Pool().Begin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	_, err = tx.Exec(ctx, `LOCK TABLE conversation_turns IN SHARE MODE`)
	require.NoError(t, err, "lock the turns against deletes")

	results := make(chan pass, len(dbs))
	cancels := map[string]context.CancelFunc{}
	for who, db := range dbs {
		pctx, cancel := context.WithCancel(ctx)
		t.Cleanup(cancel)
		cancels[who] = cancel
		go func() {
			n, err := db.ApplyRetention(pctx, store.RetentionPolicy{Batch: 50})
			results <- pass{who, n, err}
		}()
	}
	select {
	case skipped = <-results:
	case <-time.After(30 * time.Second):
		t.Fatal("neither retention pass returned within 30s while one of them waited on the turns")
	}
	return skipped, results, func(who string) { cancels[who]() }, func() { require.NoError(t, tx.Rollback(ctx), "release the turns") }
}

// waitPass waits for the pass on c.
func waitPass(t *testing.T, c <-chan pass) pass {
	t.Helper()
	select {
	case p := <-c:
		return p
	case <-time.After(30 * time.Second):
		t.Fatal("the waiting retention pass did not return within 30s of its release")
		return pass{}
	}
}

// TestRetentionRunsOnceAcrossProcesses runs a retention pass in each of two
// processes at the same moment: one deletes every old row, the other skips
// its turn and deletes nothing, and the lock is free again afterwards.
func TestRetentionRunsOnceAcrossProcesses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	other, err := store.Open(ctx, url)
	require.NoError(t, err)
	t.Cleanup(other.Close)
	const old, fresh = 120, 3
	fillRetentionTables(t, db, old, fresh)

	dbs := map[string]*store.DB{"first": db, "second": other}
	skipped, waiting, _, release := racePasses(t, dbs)
	require.NoError(t, skipped.err, "the pass that found the other under way")
	assert.Equal(t, store.RetentionCounts{Skipped: true}, skipped.n, "the %s process skips its turn and deletes nothing", skipped.who)

	release()
	ran := waitPass(t, waiting)
	require.NoError(t, ran.err)
	assert.Equal(t, store.RetentionCounts{QueryLogs: old, Turns: old, Results: old, Deliveries: old}, ran.n,
		"the %s process deletes every old row", ran.who)
	assert.Equal(t, store.RetentionCounts{QueryLogs: fresh + 1, Turns: fresh + 1, Results: fresh + 1, Deliveries: fresh + 1},
		rowCounts(t, db), "rows left")

	// The lock went with the pass: either process runs the next one.
	for _, who := range []string{"first", "second"} {
		n, err := dbs[who].ApplyRetention(ctx, store.RetentionPolicy{})
		require.NoError(t, err)
		assert.Equal(t, store.RetentionCounts{}, n, "a later pass of the %s process runs and finds nothing old", who)
	}
}

// TestCanceledRetentionPassReleasesItsLock stops a pass (as a shutdown
// does) while it holds the retention lock: the next pass of the process
// that skipped runs and deletes what the stopped one left.
func TestCanceledRetentionPassReleasesItsLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	other, err := store.Open(ctx, url)
	require.NoError(t, err)
	t.Cleanup(other.Close)
	const old, fresh = 120, 3
	fillRetentionTables(t, db, old, fresh)

	dbs := map[string]*store.DB{"first": db, "second": other}
	skipped, waiting, cancel, release := racePasses(t, dbs)
	require.True(t, skipped.n.Skipped, "one pass skips its turn (got %+v, err %v)", skipped.n, skipped.err)
	stopped := "first"
	if skipped.who == "first" {
		stopped = "second"
	}
	cancel(stopped)
	cut := waitPass(t, waiting)
	require.ErrorIs(t, cut.err, context.Canceled, "the stopped pass says why it stopped")
	assert.Zero(t, cut.n.Turns, "the stopped pass deleted no turn")
	release()

	// It may have been stopped among the query logs or waiting on the
	// turns; what it deleted stays deleted.
	n, err := dbs[skipped.who].ApplyRetention(ctx, store.RetentionPolicy{})
	require.NoError(t, err)
	assert.Equal(t, store.RetentionCounts{QueryLogs: old - cut.n.QueryLogs, Turns: old, Results: old, Deliveries: old}, n,
		"the process that skipped runs the next pass and deletes the rest")
	assert.Equal(t, store.RetentionCounts{QueryLogs: fresh + 1, Turns: fresh + 1, Results: fresh + 1, Deliveries: fresh + 1},
		rowCounts(t, db), "rows left")
}

// TestRetentionSkipsLockedRows holds a lock on the oldest logs, as a twin
// deleting them would: retention deletes the others without waiting.
func TestRetentionSkipsLockedRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	other, err := store.Open(ctx, url)
	require.NoError(t, err)
	t.Cleanup(other.Close)
	fillRetentionTables(t, db, 10, 1)

	tx, err := other.Pool().Begin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	_, err = tx.Exec(ctx, `SELECT id FROM chat_query_logs WHERE question LIKE 'old %' ORDER BY created_at LIMIT 3 FOR UPDATE`)
	require.NoError(t, err, "lock the oldest rows")

	// Waiting on the lock would run into the deadline.
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n, err := db.DeleteQueryLogsOlderThan(waitCtx, 7*24*time.Hour, 2)
	require.NoError(t, err, "delete beside locked rows")
	assert.Equal(t, int64(7), n, "deleted all but the locked rows")

	require.NoError(t, tx.Rollback(ctx), "release the lock")
	n, err = db.DeleteQueryLogsOlderThan(ctx, 7*24*time.Hour, 2)
	require.NoError(t, err)
	assert.Equal(t, int64(3), n, "the rows once locked, deleted by the next pass")
}

// logRecords is a slog handler that hands every record to a channel.
type logRecords chan slog.Record

func (c logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (c logRecords) Handle(_ context.Context, r slog.Record) error {
	c <- r.Clone()
	return nil
}
func (c logRecords) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c logRecords) WithGroup(string) slog.Handler      { return c }

func TestRunRetention(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	fillRetentionTables(t, db, 5, 2)

	records := make(logRecords, 16)
	stop := db.StartRetention(context.Background(), store.RetentionPolicy{}, slog.New(records))
	t.Cleanup(stop) // a second stop returns at once

	// The first pass runs at start, not an interval later.
	var first slog.Record
	select {
	case first = <-records:
	case <-time.After(30 * time.Second):
		t.Fatal("no retention pass logged within 30s of the start")
	}
	assert.Equal(t, slog.LevelInfo, first.Level, "level of %q", first.Message)
	got := map[string]int64{}
	first.Attrs(func(a slog.Attr) bool {
		got[a.Key] = a.Value.Int64()
		return true
	})
	assert.Equal(t, map[string]int64{"query_logs": 5, "turns": 5, "results": 5, "deliveries": 5, "schedule_runs": 0, "threads": 0}, got, "deleted, as logged")
	assert.Equal(t, store.RetentionCounts{QueryLogs: 3, Turns: 3, Results: 3, Deliveries: 3}, rowCounts(t, db), "left")

	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		stop()
	}()
	select {
	case <-stopped:
	case <-time.After(30 * time.Second):
		t.Fatal("the retention loop did not stop within 30s")
	}
}

// docs/scaling.md: a statement of background maintenance (the value
// index's refresh, retention's batches) may take 10 × DATABASE_TIMEOUT; the
// bot's other round trips, DATABASE_TIMEOUT.
func TestMaintenanceRoundTripsTakeTenTimesTheTimeout(t *testing.T) {
	t.Parallel()
	_, url := storetest.NewWithURL(t)
	ctx := context.Background()
	db, err := store.Open(ctx, url, store.WithTimeout(600*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(db.Close)

	_, err = db.Pool().Exec(ctx, "SELECT pg_sleep(1.5)")
	require.Error(t, err, "an ordinary round trip of 1.5 s, past DATABASE_TIMEOUT (600 ms)")
	_, err = db.Pool().Exec(store.Maintenance(db, ctx), "SELECT pg_sleep(1.5)")
	require.NoError(t, err, "maintenance's round trip may take up to 6 s")
	_, err = db.Pool().Exec(store.Maintenance(db, ctx), "SELECT pg_sleep(7)")
	require.Error(t, err, "and no longer")
}
