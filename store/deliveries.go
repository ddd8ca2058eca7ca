package store

import (
	"context"
	"fmt"
	"time"
)

// ClaimDelivery records that this process handles the delivery named key
// (a Slack event or interaction). It returns false when some process,
// this one or another sharing the database, claimed key before.
func (d *DB) ClaimDelivery(ctx context.Context, key string) (bool, error) {
	tag, err := d.pool.Exec(ctx,
		`INSERT INTO slack_deliveries (key) VALUES ($1) ON CONFLICT (key) DO NOTHING`, cleanText(key))
	if err != nil {
		return false, fmt.Errorf("claim delivery %q: %w", key, classify(err))
	}
	return tag.RowsAffected() == 1, nil
}

// ClaimRepeat records that this process handles key, received at at,
// unless some process, this one or another sharing the database, handled
// the same key received less than window before: the same button pressed
// twice by one person (a double click), delivered with two trigger ids,
// perhaps to two processes. It returns false for such a repeat; a press
// received later than window after the last one handled is handled.
func (d *DB) ClaimRepeat(ctx context.Context, key string, at time.Time, window time.Duration) (bool, error) {
	tag, err := d.pool.Exec(ctx, `
		INSERT INTO slack_deliveries AS d (key, received_at) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET received_at = excluded.received_at
		WHERE d.received_at <= excluded.received_at - make_interval(secs => $3)`,
		cleanText(key), at, window.Seconds())
	if err != nil {
		return false, fmt.Errorf("claim repeat %q: %w", key, classify(err))
	}
	return tag.RowsAffected() == 1, nil
}

// ForgetRepeat forgets the press named key (ClaimRepeat), one whose reply
// was not delivered, so that pressing it again at once is handled.
func (d *DB) ForgetRepeat(ctx context.Context, key string) error {
	if _, err := d.pool.Exec(ctx, `DELETE FROM slack_deliveries WHERE key = $1`, cleanText(key)); err != nil {
		return fmt.Errorf("forget repeat %q: %w", key, classify(err))
	}
	return nil
}

// PruneDeliveries deletes claims older than age, at most batch rows per
// call, and returns how many it deleted. Slack stops retrying a delivery
// within minutes, so a day's claims are plenty. Several processes may prune
// at once: SKIP LOCKED keeps them from waiting on each other.
func (d *DB) PruneDeliveries(ctx context.Context, age time.Duration, batch int) (int64, error) {
	return pruneDeliveries(ctx, d.pool, age, batch)
}

// pruneDeliveries is PruneDeliveries on ex.
func pruneDeliveries(ctx context.Context, ex execer, age time.Duration, batch int) (int64, error) {
	tag, err := ex.Exec(ctx, `
		DELETE FROM slack_deliveries WHERE key IN (
			SELECT key FROM slack_deliveries
			WHERE received_at < now() - make_interval(secs => $1)
			ORDER BY received_at
			LIMIT $2
			FOR UPDATE SKIP LOCKED)`,
		age.Seconds(), batch)
	if err != nil {
		return 0, fmt.Errorf("prune deliveries: %w", classify(err))
	}
	return tag.RowsAffected(), nil
}

// HasThread reports whether the bot was asked in the thread: it is
// recorded (AskedIn, from the moment its first question was taken) or has
// a stored turn (threads asked in before AskedIn was).
func (d *DB) HasThread(ctx context.Context, threadID string) (bool, error) {
	var ok bool
	err := d.pool.QueryRow(ctx, `
		SELECT EXISTS (SELECT 1 FROM threads WHERE id = $1)
		    OR EXISTS (SELECT 1 FROM conversation_turns WHERE thread_id = $1)`, threadID).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("look up thread %q: %w", threadID, classify(err))
	}
	return ok, nil
}
