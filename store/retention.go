package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
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

// RetentionCounts is how many rows one retention pass deleted per table.
type RetentionCounts struct {
	QueryLogs  int64
	Turns      int64
	Results    int64
	Deliveries int64
}

// RunRetention applies p at once and then every p.Interval until ctx is
// done; failures are logged and retried at the next interval. Several
// processes sharing the database may run it at the same time.
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
				"results", n.Results, "deliveries", n.Deliveries)
		default:
			log.InfoContext(ctx, "retention", "query_logs", n.QueryLogs, "turns", n.Turns,
				"results", n.Results, "deliveries", n.Deliveries)
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

// ApplyRetention deletes the rows p says are too old from every table, in
// batches, once. A failure on one table does not spare the others; the
// errors are joined.
func (d *DB) ApplyRetention(ctx context.Context, p RetentionPolicy) (RetentionCounts, error) {
	p = p.withDefaults()
	var n RetentionCounts
	var errs []error
	run := func(age time.Duration, count *int64, del func(context.Context, time.Duration, int) (int64, error)) {
		if age < 0 {
			return
		}
		var err error
		*count, err = del(ctx, age, p.Batch)
		errs = append(errs, err)
	}
	run(p.QueryLogs, &n.QueryLogs, d.DeleteQueryLogsOlderThan)
	run(p.Turns, &n.Turns, d.deleteTurnsInBatches)
	run(p.Results, &n.Results, d.DeleteResultsOlderThan)
	run(p.Deliveries, &n.Deliveries, d.pruneAllDeliveries)
	return n, errors.Join(errs...)
}

// DeleteResultsOlderThan deletes cached results stored more than age ago,
// batch rows per statement, and returns how many it deleted. Buttons of
// answers older than that find no result and say so.
func (d *DB) DeleteResultsOlderThan(ctx context.Context, age time.Duration, batch int) (int64, error) {
	n, err := d.deleteInBatches(ctx, `
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

// deleteTurnsInBatches is DeleteTurnsOlderThan with the batch size given.
func (d *DB) deleteTurnsInBatches(ctx context.Context, age time.Duration, batch int) (int64, error) {
	n, err := d.deleteInBatches(ctx, `
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

// pruneAllDeliveries runs PruneDeliveries until fewer than batch claims
// were left.
func (d *DB) pruneAllDeliveries(ctx context.Context, age time.Duration, batch int) (int64, error) {
	var total int64
	for {
		n, err := d.PruneDeliveries(ctx, age, batch)
		total += n
		if err != nil || n < int64(batch) {
			return total, err
		}
	}
}

// deleteInBatches runs sql, a DELETE of at most $2 rows older than $1
// seconds, until it deletes fewer than batch rows. Each batch is its own
// transaction, so locks are held briefly and a cancel keeps what was done.
// The DELETE picks its rows with FOR UPDATE SKIP LOCKED, so a concurrent
// twin takes other rows instead of waiting; a batch cut short by skipped
// rows ends the loop, leaving those rows to the twin that holds them.
func (d *DB) deleteInBatches(ctx context.Context, sql string, age time.Duration, batch int) (int64, error) {
	if batch <= 0 {
		batch = DefaultRetentionBatch
	}
	var total int64
	for {
		tag, err := d.pool.Exec(ctx, sql, age.Seconds(), batch)
		if err != nil {
			return total, err
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < int64(batch) {
			return total, nil
		}
	}
}
