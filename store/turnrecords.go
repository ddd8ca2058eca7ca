package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/analyticsbot/analyticsbot/pgpool"
)

// TurnRecord is what the bot keeps of one turn: the turns its threads keep
// (none for some, such as a scheduled run's query) and its query log.
type TurnRecord struct {
	Turns []Turn
	Log   QueryLog
	// At is when the turn happened; zero means now, by the database's
	// clock. A record written late (the database was away) keeps its time.
	At time.Time
}

// AddTurnRecord writes r's turns and query log in one transaction, so a
// crash or a failure leaves both or neither: a thread never keeps a turn
// the query logs do not know. It returns the log as stored.
func (d *DB) AddTurnRecord(ctx context.Context, r TurnRecord) (QueryLog, error) {
	var out QueryLog
	err := d.inBatchTx(ctx, func(b *pgx.Batch) {
		for _, t := range r.Turns {
			t, sql, args := turnInsert(t, r.At)
			b.Queue(sql, args...).QueryRow(func(row pgx.Row) error {
				if err := row.Scan(&t.ID, &t.CreatedAt); err != nil {
					return turnError(t, err)
				}
				return nil
			})
		}
		l, sql, args := queryLogInsert(r.Log, r.At)
		b.Queue(sql, args...).QueryRow(func(row pgx.Row) error {
			if err := row.Scan(&l.ID, &l.CreatedAt); err != nil {
				return queryLogInsertError(l, err)
			}
			out = l
			return nil
		})
	})
	if err != nil {
		if !errors.Is(err, ErrUnavailable) && !errors.Is(err, pgpool.ErrTimeout) {
			err = classify(err) // beginning or committing; the inserts' errors are classified
		}
		return QueryLog{}, fmt.Errorf("record a turn of thread %q: %w", r.Log.ThreadID, err)
	}
	return out, nil
}

// inBatchTx runs the statements fill queues in one transaction, sent
// with its BEGIN in one batch (one round trip), and commits it once every
// statement has succeeded (a second). The COMMIT waits for their results,
// so that a batch held up on the way (a silent network) and delivered
// after the bot gave up on it is rolled back, never committed behind its
// back. Like pgx.BeginFunc, it rolls back on any error.
func (d *DB) inBatchTx(ctx context.Context, fill func(*pgx.Batch)) error {
	b := &pgx.Batch{}
	b.BeginTx(pgx.TxOptions{})
	fill(b)
	br := d.pool.SendBatch(ctx, b)
	tx := br.Tx()
	if err := br.Close(); err != nil {
		_ = tx.Rollback(ctx) // the error to return is the statements'
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		_ = tx.Rollback(ctx) // gives the connection back to the pool
		return err
	}
	return nil
}

// inOneBatch runs the statements fill queues in one batch, one round trip:
// PostgreSQL runs a batch as one implicit transaction (its Sync commits
// it), so they all take effect or none does. Unlike inBatchTx, the COMMIT
// does not wait for the bot: a batch held up on the way and delivered
// after the bot gave up on it is committed all the same. Only for writes
// that may land once more without harm (a cached result replaced by
// itself), never for records that are written again after a failure.
func (d *DB) inOneBatch(ctx context.Context, fill func(*pgx.Batch)) error {
	b := &pgx.Batch{}
	fill(b)
	return d.pool.SendBatch(ctx, b).Close()
}
