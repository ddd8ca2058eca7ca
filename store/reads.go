package store

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Reads are reads of the bot's database queued to be sent together: the
// reads of one DB go in one batch, one round trip (a question's value
// match and example search, which need nothing of each other, each cost a
// round trip of their own before: issue 31). The zero value is ready;
// queue reads with QueueMatchValues and QueueSearchExamples, call Send
// once, then ask each read for its result.
//
// Each read keeps its own outcome. PostgreSQL runs a batch as one
// implicit transaction and skips the rest of it after a statement fails,
// so a read that another's failure skipped is sent again on its own (one
// more round trip, only then); a lost connection or an ended context
// fails every read not read yet. A read's settings (set_config, local to
// the transaction) are undone before the next read of the batch, so they
// never hold for the reads after it.
//
// Each read also keeps the deadline of the context it was queued with
// (the value lookup's 2 seconds): the shared round trip is bounded by the
// earliest, and a read that deadline cut before the read began (a wait
// for a free connection) is sent again on its own, within its own.
type Reads struct {
	reads []*read
	sent  bool
}

// read is one read of a Reads: its statements on a batch of its own, with
// the callbacks that keep its result, and its outcome once sent.
type read struct {
	db    *DB
	batch pgx.Batch
	// deadline is that of the context it was queued with; zero none.
	deadline time.Time
	// undo is a statement that sets back what its statements set for
	// the rest of the transaction; queued after them when another read
	// follows in the same batch.
	undo string
	// started says a callback of its statements ran in a shared batch:
	// part of its result may be kept, so it is never sent again.
	started bool
	// done says its last statement's callback ran: its result is whole.
	done bool
	err  error
}

// queue adds a read of d, queued with ctx, whose statements queue puts on
// its batch.
func (r *Reads) queue(ctx context.Context, d *DB, queue func(b *pgx.Batch)) *read {
	if r.sent {
		panic("store: a read queued on Reads already sent")
	}
	rd := &read{db: d}
	rd.deadline, _ = ctx.Deadline()
	queue(&rd.batch)
	r.reads = append(r.reads, rd)
	return rd
}

// Send sends the queued reads, those of each DB in one batch, and waits
// for their results; each read's result tells its own error.
func (r *Reads) Send(ctx context.Context) {
	r.sent = true
	shared, cancel := ctx, context.CancelFunc(func() {})
	var earliest time.Time
	for _, rd := range r.reads {
		if !rd.deadline.IsZero() && (earliest.IsZero() || rd.deadline.Before(earliest)) {
			earliest = rd.deadline
		}
	}
	if !earliest.IsZero() {
		shared, cancel = context.WithDeadline(ctx, earliest)
	}
	defer cancel()
	var dbs []*DB
	byDB := map[*DB][]*read{}
	for _, rd := range r.reads {
		if byDB[rd.db] == nil {
			dbs = append(dbs, rd.db)
		}
		byDB[rd.db] = append(byDB[rd.db], rd)
	}
	for _, d := range dbs {
		d.sendReads(shared, byDB[d])
	}
	if shared.Err() == nil || ctx.Err() != nil {
		return
	}
	// The earliest deadline passed before some reads began (a wait for a
	// free connection longer than the value lookup's 2 seconds): those
	// whose own deadline has not passed are sent again, alone, within it.
	for _, rd := range r.reads {
		if rd.done || rd.started || !rd.deadline.IsZero() && !time.Now().Before(rd.deadline) {
			continue
		}
		own, cancel := ctx, context.CancelFunc(func() {})
		if !rd.deadline.IsZero() {
			own, cancel = context.WithDeadline(ctx, rd.deadline)
		}
		rd.send(own)
		cancel()
	}
}

// sendReads sends reads in one batch; a read that a statement of another
// left unread is sent again alone.
func (d *DB) sendReads(ctx context.Context, reads []*read) {
	if len(reads) == 1 {
		reads[0].send(ctx)
		return
	}
	all := &pgx.Batch{}
	for n, rd := range reads {
		queued := rd.batch.QueuedQueries
		if rd.undo != "" && n < len(reads)-1 {
			queued = append(queued[:len(queued):len(queued)], &pgx.QueuedQuery{SQL: rd.undo})
		}
		for i, q := range queued {
			// The read is whole after its own last statement; its undo
			// failing spoils none of it (the reads after it are sent
			// again, as after any failed statement).
			fn, last, undo := q.Fn, i == len(rd.batch.QueuedQueries)-1, i >= len(rd.batch.QueuedQueries)
			all.Queue(q.SQL, q.Arguments...).Fn = func(br pgx.BatchResults) error {
				rd.started = true
				var err error
				if fn != nil {
					err = fn(br)
				} else {
					_, err = br.Exec()
				}
				switch {
				case err != nil && !undo:
					rd.err = err
				case err == nil && last:
					rd.done = true
				}
				return err
			}
		}
	}
	err := d.pool.SendBatch(ctx, all).Close()
	if err == nil {
		return
	}
	_, statement := errors.AsType[*pgconn.PgError](err)
	for _, rd := range reads {
		switch {
		case rd.done || rd.err != nil:
		case statement && ctx.Err() == nil:
			// Another read's statement failed, and PostgreSQL skipped
			// this one (or none of them ran: a statement failed to
			// prepare).
			rd.send(ctx)
		default:
			rd.err = err
		}
	}
}

// send sends rd alone.
func (rd *read) send(ctx context.Context) {
	rd.err = rd.db.pool.SendBatch(ctx, &rd.batch).Close()
	rd.done = rd.err == nil
}

// outcome is rd's error once sent.
func (rd *read) outcome() error {
	if !rd.done && rd.err == nil {
		panic("store: a read's result asked before its Reads were sent")
	}
	return rd.err
}
