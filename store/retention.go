package store

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Retention defaults: how long each table keeps its rows, how many rows one
// DELETE removes and how often the loop runs.
const (
	DefaultQueryLogRetention = 7 * 24 * time.Hour
	DefaultTurnRetention     = 90 * 24 * time.Hour
	DefaultResultRetention   = 30 * 24 * time.Hour
	// DefaultDeliveryRetention matches the claim age of package slackapp:
	// Slack stops retrying a delivery within minutes.
	DefaultDeliveryRetention = 24 * time.Hour
	DefaultRetentionBatch    = 5000
	DefaultRetentionInterval = time.Hour
)

// RetentionPolicy says how long the bot's tables keep their rows. A zero
// field takes its default; a negative age keeps the table's rows forever.
type RetentionPolicy struct {
	// QueryLogs is the age of chat_query_logs rows (default 7 days).
	QueryLogs time.Duration
	// Turns is the age of conversation_turns rows (default 90 days).
	Turns time.Duration
	// Results is the age of query_results rows (default 30 days).
	Results time.Duration
	// Deliveries is the age of slack_deliveries claims (default 24 hours).
	Deliveries time.Duration
	// Batch is how many rows one DELETE removes (default 5000): small
	// enough that no statement holds many locks or runs for long.
	Batch int
	// Interval is how often RunRetention deletes (default 1 hour).
	Interval time.Duration
}

func (p RetentionPolicy) withDefaults() RetentionPolicy {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&p.QueryLogs, DefaultQueryLogRetention)
	def(&p.Turns, DefaultTurnRetention)
	def(&p.Results, DefaultResultRetention)
	def(&p.Deliveries, DefaultDeliveryRetention)
	if p.Interval <= 0 {
		p.Interval = DefaultRetentionInterval
	}
	if p.Batch <= 0 {
		p.Batch = DefaultRetentionBatch
	}
	return p
}

// RetentionCounts is what one retention pass did: how many rows it deleted
// per table, or that it skipped its turn.
type RetentionCounts struct {
	QueryLogs  int64
	Turns      int64
	Results    int64
	Deliveries int64
	// ScheduleRuns are the finished runs of schedules older than Turns.
	ScheduleRuns int64
	// Threads are records of threads (web threads' owners, Slack
	// threads the bot was asked in) older than Turns with no turn left
	// and no schedule.
	Threads int64
	// Skipped says another process sharing the database was applying
	// retention at that moment, so this pass deleted nothing.
	Skipped bool
}

// RunRetention applies p at once and then every p.Interval until ctx is
// done; failures are logged and retried at the next interval. Several
// processes sharing the database may run it: a pass that finds another
// process's pass under way skips its turn (see ApplyRetention).
func (d *DB) RunRetention(ctx context.Context, p RetentionPolicy, log *slog.Logger) {
	p = p.withDefaults()
	if log == nil {
		log = slog.Default()
	}
	tick := time.NewTicker(p.Interval)
	defer tick.Stop()
	for {
		n, err := d.ApplyRetention(ctx, p)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			log.WarnContext(ctx, "retention", "err", err, "query_logs", n.QueryLogs, "turns", n.Turns,
				"results", n.Results, "deliveries", n.Deliveries, "schedule_runs", n.ScheduleRuns, "threads", n.Threads)
		case n.Skipped:
			log.InfoContext(ctx, "retention skipped: another process sharing the database is applying it")
		default:
			log.InfoContext(ctx, "retention", "query_logs", n.QueryLogs, "turns", n.Turns,
				"results", n.Results, "deliveries", n.Deliveries, "schedule_runs", n.ScheduleRuns, "threads", n.Threads)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// StartRetention runs RunRetention in a goroutine and returns a function
// that stops it and waits for it to return, so the pool is not closed under
// a running delete: `defer db.StartRetention(ctx, p, log)()`.
func (d *DB) StartRetention(ctx context.Context, p RetentionPolicy, log *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.RunRetention(ctx, p, log)
	}()
	return func() {
		cancel()
		<-done
	}
}

// retentionLockClass is the first key of the advisory lock a retention pass
// holds; the second is retentionLockObject. Two int4 keys never collide
// with the bigint keys of adopt and goose: PostgreSQL keeps the two kinds
// apart.
const retentionLockClass int32 = 0x72657465 // "rete"

// retentionLockObject is the second key of the retention lock: a checksum
// of the bot's schema, so deployments keeping their tables in different
// schemas of one database do not skip each other's passes. It is computed
// here rather than with PostgreSQL's undocumented hashtext, so it is the
// same whatever the server's version.
func (d *DB) retentionLockObject() int32 {
	return int32(crc32.ChecksumIEEE([]byte(d.schema)))
}

// execer runs one statement: the pool, or the connection a retention pass
// holds its lock on.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// ApplyRetention deletes the rows p says are too old from every table, in
// batches, once. A failure on one table does not spare the others; the
// errors are joined.
//
// Only one process sharing the database applies retention at a time: the
// pass holds a session advisory lock (pg_try_advisory_lock) and, when
// another process holds it, returns at once with Skipped set, since that
// process is deleting the same rows. The deletes run on the connection
// that holds the lock, so a pass needs one connection of the pool, never
// two. They still skip rows locked by others (FOR UPDATE SKIP LOCKED), so
// a process that does not take the lock, such as an older version during a
// rolling upgrade, splits the work instead of waiting.
func (d *DB) ApplyRetention(ctx context.Context, p RetentionPolicy) (RetentionCounts, error) {
	ctx = d.maintenance(ctx)
	p = p.withDefaults()
	conn, err := d.pool.Acquire(ctx)
	if err != nil {
		return RetentionCounts{}, fmt.Errorf("apply retention: %w", classify(err))
	}
	defer conn.Release()
	var locked bool
	err = conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, retentionLockClass, d.retentionLockObject()).Scan(&locked)
	if err != nil {
		return RetentionCounts{}, fmt.Errorf("apply retention: take the lock: %w", classify(err))
	}
	if !locked {
		return RetentionCounts{Skipped: true}, nil
	}
	defer d.unlockRetention(ctx, conn)

	var n RetentionCounts
	var errs []error
	run := func(age time.Duration, count *int64, del func(context.Context, execer, time.Duration, int) (int64, error)) {
		if age < 0 {
			return
		}
		var err error
		*count, err = del(ctx, conn, age, p.Batch)
		errs = append(errs, err)
	}
	run(p.QueryLogs, &n.QueryLogs, deleteQueryLogs)
	run(p.Turns, &n.Turns, deleteTurns)
	run(p.Results, &n.Results, deleteResults)
	run(p.Deliveries, &n.Deliveries, pruneAllDeliveries)
	// A schedule's run history lives as long as the turns it posted.
	run(p.Turns, &n.ScheduleRuns, deleteScheduleRuns)
	// A thread's record (a web thread's owner, a Slack thread the bot
	// was asked in) is forgotten once its turns are.
	run(p.Turns, &n.Threads, deleteThreads)
	return n, errors.Join(errs...)
}

// unlockTimeout bounds the release of the retention lock, which runs even
// when the pass was canceled.
const unlockTimeout = 5 * time.Second

// unlockRetention releases the retention lock conn holds. When that fails,
// it closes the connection, which releases the lock too: a connection must
// not go back to the pool still holding it, or no process would apply
// retention again while the connection lives.
func (d *DB) unlockRetention(ctx context.Context, conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unlockTimeout)
	defer cancel()
	var released bool
	err := conn.QueryRow(ctx, `SELECT pg_advisory_unlock($1, $2)`, retentionLockClass, d.retentionLockObject()).Scan(&released)
	if err != nil || !released {
		_ = conn.Conn().Close(ctx)
	}
}

// DeleteResultsOlderThan deletes cached results stored more than age ago,
// batch rows per statement, and returns how many it deleted. Buttons of
// answers older than that find no result and say so.
func (d *DB) DeleteResultsOlderThan(ctx context.Context, age time.Duration, batch int) (int64, error) {
	ctx = d.maintenance(ctx)
	return deleteResults(ctx, d.pool, age, batch)
}

// deleteResults is DeleteResultsOlderThan on ex.
func deleteResults(ctx context.Context, ex execer, age time.Duration, batch int) (int64, error) {
	n, err := deleteInBatches(ctx, ex, `
		DELETE FROM query_results WHERE (thread_id, query_id) IN (
			SELECT thread_id, query_id FROM query_results
			WHERE created_at < now() - make_interval(secs => $1)
			ORDER BY created_at
			LIMIT $2
			FOR UPDATE SKIP LOCKED)`, age, batch)
	if err != nil {
		return n, fmt.Errorf("delete results older than %s: %w", age, classify(err))
	}
	return n, nil
}

// deleteTurns is DeleteTurnsOlderThan on ex, with the batch size given.
func deleteTurns(ctx context.Context, ex execer, age time.Duration, batch int) (int64, error) {
	n, err := deleteInBatches(ctx, ex, `
		DELETE FROM conversation_turns WHERE id IN (
			SELECT id FROM conversation_turns
			WHERE created_at < now() - make_interval(secs => $1)
			ORDER BY created_at
			LIMIT $2
			FOR UPDATE SKIP LOCKED)`, age, batch)
	if err != nil {
		return n, fmt.Errorf("delete turns older than %s: %w", age, classify(err))
	}
	return n, nil
}

// deleteScheduleRunsSQL is one batch of deleteScheduleRuns. Its rows are
// found through the index on finished_at (migrations 00029), not by
// reading the whole table at each batch.
const deleteScheduleRunsSQL = `
		DELETE FROM schedule_runs WHERE id IN (
			SELECT id FROM schedule_runs
			WHERE finished_at < now() - make_interval(secs => $1)
			ORDER BY finished_at
			LIMIT $2
			FOR UPDATE SKIP LOCKED)`

// deleteScheduleRuns deletes the runs of schedules that finished more
// than age ago; runs under way are never touched.
func deleteScheduleRuns(ctx context.Context, ex execer, age time.Duration, batch int) (int64, error) {
	n, err := deleteInBatches(ctx, ex, deleteScheduleRunsSQL, age, batch)
	if err != nil {
		return n, fmt.Errorf("delete schedule runs older than %s: %w", age, classify(err))
	}
	return n, nil
}

// pruneAllDeliveries runs pruneDeliveries on ex until fewer than batch
// claims were left.
func pruneAllDeliveries(ctx context.Context, ex execer, age time.Duration, batch int) (int64, error) {
	var total int64
	for {
		n, err := pruneDeliveries(ctx, ex, age, batch)
		total += n
		if err != nil || n < int64(batch) {
			return total, err
		}
	}
}

// deleteInBatches runs sql on ex, a DELETE of at most $2 rows older than $1
// seconds, until it deletes fewer than batch rows. Each batch is its own
// transaction, so locks are held briefly and a cancel keeps what was done.
// The DELETE picks its rows with FOR UPDATE SKIP LOCKED, so a concurrent
// twin takes other rows instead of waiting; a batch cut short by skipped
// rows ends the loop, leaving those rows to the twin that holds them.
func deleteInBatches(ctx context.Context, ex execer, sql string, age time.Duration, batch int) (int64, error) {
	if batch <= 0 {
		batch = DefaultRetentionBatch
	}
	var total int64
	for {
		tag, err := ex.Exec(ctx, sql, age.Seconds(), batch)
		if err != nil {
			return total, err
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < int64(batch) {
			return total, nil
		}
	}
}
