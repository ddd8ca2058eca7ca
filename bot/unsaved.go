package bot

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/analyticsbot/analyticsbot/pgpool"
	"github.com/analyticsbot/analyticsbot/store"
)

// maxUnsaved bounds the turn records kept while the bot's database is
// away: past it the oldest is dropped, and the log says which reference
// the query log will never hold.
const maxUnsaved = 1000

// unsavedFlushOnTurn is how many kept records a turn that was recorded
// writes before its user gets the reply; the background retry writes the
// rest.
const unsavedFlushOnTurn = 16

// unsaved are the turn records (turns and query log) the bot's database
// refused because it was away (unreachable, or too slow), kept in memory
// and written once it is back: by the next turn recorded, by a background
// retry, or on Close. A process killed meanwhile loses them; its log on
// stderr keeps each failure's reference ("answer failed … ref=e-…").
type unsaved struct {
	log *slog.Logger
	// write lets one writer at a time through, so no record is written
	// twice.
	write sync.Mutex
	wake  chan struct{}
	stop  chan struct{}
	done  chan struct{}

	closeOnce sync.Once

	mu      sync.Mutex
	seq     int64
	records []keptRecord
	closed  bool
}

type keptRecord struct {
	seq int64
	rec store.TurnRecord
}

func newUnsaved(log *slog.Logger) *unsaved {
	return &unsaved{log: log, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// retryable reports whether a failed record may be written later: the
// database was away, not refusing what was written.
func retryable(err error) bool {
	return errors.Is(err, store.ErrUnavailable) || errors.Is(err, pgpool.ErrTimeout) ||
		errors.Is(err, context.DeadlineExceeded)
}

// keep holds r to write later, dropping the oldest record past maxUnsaved.
func (u *unsaved) keep(r store.TurnRecord) {
	u.mu.Lock()
	if u.closed {
		u.mu.Unlock()
		u.log.Error("turn record lost: the bot is closed", "thread", r.Log.ThreadID, "ref", r.Log.ErrorRef)
		return
	}
	u.seq++
	u.records = append(u.records, keptRecord{seq: u.seq, rec: r})
	var dropped *store.TurnRecord
	if len(u.records) > maxUnsaved {
		dropped = &u.records[0].rec
		u.records = u.records[1:]
	}
	u.mu.Unlock()
	if dropped != nil {
		u.log.Error("turn record lost: too many kept while the database is away", "thread", dropped.Log.ThreadID,
			"ref", dropped.Log.ErrorRef, "kept", maxUnsaved)
	}
	select {
	case u.wake <- struct{}{}:
	default:
	}
}

// pending is how many records wait to be written.
func (u *unsaved) pending() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.records)
}

// flush writes up to limit kept records (0: all), oldest first, each
// within timeout, until one fails; it returns how many it wrote.
func (u *unsaved) flush(ctx context.Context, db *store.DB, limit int, timeout time.Duration) (int, error) {
	u.write.Lock()
	defer u.write.Unlock()
	n := 0
	for limit == 0 || n < limit {
		u.mu.Lock()
		if len(u.records) == 0 {
			u.mu.Unlock()
			return n, nil
		}
		next := u.records[0]
		u.mu.Unlock()
		wctx, cancel := context.WithTimeout(ctx, timeout)
		_, err := db.AddTurnRecord(wctx, next.rec)
		cancel()
		if err != nil {
			return n, err
		}
		u.mu.Lock()
		if len(u.records) > 0 && u.records[0].seq == next.seq { // keep may have dropped it meanwhile
			u.records = u.records[1:]
		}
		u.mu.Unlock()
		n++
		u.log.Info("turn recorded once the database was back", "thread", next.rec.Log.ThreadID, "ref", next.rec.Log.ErrorRef,
			"at", next.rec.At)
	}
	return n, nil
}

// firstUnsavedRetry is the background retry's first wait; each failed
// try doubles it, up to lastUnsavedRetry.
const (
	firstUnsavedRetry = time.Second
	lastUnsavedRetry  = time.Minute
)

// nextUnsavedRetry is the wait after a failed try that waited delay.
func nextUnsavedRetry(delay time.Duration) time.Duration { return min(2*delay, lastUnsavedRetry) }

// run writes kept records in the background, trying again after a delay
// that doubles up to a minute, until stopped.
func (u *unsaved) run(db *store.DB, timeout time.Duration) {
	defer close(u.done)
	for {
		select {
		case <-u.stop:
			return
		case <-u.wake:
		}
		for delay := firstUnsavedRetry; u.pending() > 0; {
			t := time.NewTimer(delay)
			select {
			case <-u.stop:
				t.Stop()
				return
			case <-t.C:
			}
			if _, err := u.flush(context.Background(), db, 0, timeout); err != nil {
				delay = nextUnsavedRetry(delay)
			}
		}
	}
}

// close stops the background retry and makes a last attempt within
// timeout; what is left is logged as lost, with its reference. Later
// calls do nothing.
func (u *unsaved) close(db *store.DB, timeout time.Duration) {
	u.closeOnce.Do(func() {
		close(u.stop)
		<-u.done
		var err error
		if u.pending() > 0 {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			_, err = u.flush(ctx, db, 0, timeout)
			cancel()
		}
		u.mu.Lock()
		defer u.mu.Unlock()
		for _, k := range u.records {
			u.log.Error("turn record lost: the database was still away when the bot stopped", "thread", k.rec.Log.ThreadID,
				"ref", k.rec.Log.ErrorRef, "at", k.rec.At, "err", err)
		}
		u.records, u.closed = nil, true
	})
}
