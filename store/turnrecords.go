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
	err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		for _, t := range r.Turns {
			if _, err := addTurn(ctx, tx, t, r.At); err != nil {
				return err
			}
		}
		var err error
		out, err = addQueryLog(ctx, tx, r.Log, r.At)
		return err
	})
	if err != nil {
		if !errors.Is(err, ErrUnavailable) && !errors.Is(err, pgpool.ErrTimeout) {
			err = classify(err) // beginning or committing; the inserts' errors are classified
		}
		return QueryLog{}, fmt.Errorf("record a turn of thread %q: %w", r.Log.ThreadID, err)
	}
	return out, nil
}
