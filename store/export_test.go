package store

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// QueueStatement queues sql on r as a read of d of its own, with ctx's
// deadline, for the tests
// of Reads; the function it returns gives the first column of its one
// row, as text, once r is sent.
func QueueStatement(ctx context.Context, r *Reads, d *DB, sql string, args ...any) func() (string, error) {
	return QueueStatementUndo(ctx, r, d, sql, "", args...)
}

// QueueStatementUndo is QueueStatement for a read whose settings undo
// sets back, as the value match's does: undo is sent after sql when
// another read follows it in the batch, so the tests of Reads can make it
// fail.
func QueueStatementUndo(ctx context.Context, r *Reads, d *DB, sql, undo string, args ...any) func() (string, error) {
	var out string
	rd := r.queue(ctx, d, func(b *pgx.Batch) {
		b.Queue(sql, args...).QueryRow(func(row pgx.Row) error { return row.Scan(&out) })
	})
	rd.undo = undo
	return func() (string, error) {
		if err := rd.outcome(); err != nil {
			return "", err
		}
		return out, nil
	}
}

// Maintenance is d.maintenance for the tests: ctx with background
// maintenance's bound on each round trip.
func Maintenance(d *DB, ctx context.Context) context.Context { return d.maintenance(ctx) }

// EncodeRows is encodeRows for the tests that write rows as an earlier
// version's Put did.
func EncodeRows(rows [][]any) ([]byte, error) { return encodeRows(rows) }

// DeleteScheduleRunsSQL is one batch of retention's delete of schedule
// runs ($1 the age in seconds, $2 the batch), for the test of its plan.
const DeleteScheduleRunsSQL = deleteScheduleRunsSQL
