package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// AddThread records that the conversation id belongs to owner. Ids are
// issued by the bot and never reused: an id already recorded is an error.
func (d *DB) AddThread(ctx context.Context, id, owner string) error {
	_, err := d.pool.Exec(ctx, `INSERT INTO threads (id, owner_id) VALUES ($1, $2)`, cleanText(id), cleanText(owner))
	if err != nil {
		return fmt.Errorf("add thread %q: %w", id, classify(err))
	}
	return nil
}

// ThreadOwner returns the user a conversation recorded by AddThread
// belongs to, or ErrNotFound.
func (d *DB) ThreadOwner(ctx context.Context, id string) (string, error) {
	var owner string
	err := d.pool.QueryRow(ctx, `SELECT owner_id FROM threads WHERE id = $1`, id).Scan(&owner)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("owner of thread %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("owner of thread %q: %w", id, classify(err))
	}
	return owner, nil
}

// AskedIn records that the bot was asked in the Slack thread id, by asker,
// when it takes the question up and before it answers: from then on every
// process sharing the database knows the thread (HasThread), though no
// turn of it is saved yet. It reports whether this was the thread's first
// record; a thread recorded before keeps its row. A Slack thread's row
// does not make it asker's: the channel's rules say who reads it.
func (d *DB) AskedIn(ctx context.Context, id, asker string) (first bool, err error) {
	tag, err := d.pool.Exec(ctx, `INSERT INTO threads (id, owner_id) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`,
		cleanText(id), cleanText(asker))
	if err != nil {
		return false, fmt.Errorf("record thread %q: %w", id, classify(err))
	}
	return tag.RowsAffected() == 1, nil
}

// FirstAnswered records that the first question of the thread id
// (AskedIn) was answered, whatever its outcome and whether or not it saved
// a turn.
func (d *DB) FirstAnswered(ctx context.Context, id string) error {
	_, err := d.pool.Exec(ctx, `UPDATE threads SET first_answered_at = now() WHERE id = $1 AND first_answered_at IS NULL`, id)
	if err != nil {
		return fmt.Errorf("first answer of thread %q: %w", id, classify(err))
	}
	return nil
}

// FirstTurnPending reports whether the thread id was recorded less than
// within ago (AskedIn), its first question not answered (FirstAnswered)
// and no turn of it saved: that question is being answered, by this
// process or another, or was lost.
func (d *DB) FirstTurnPending(ctx context.Context, id string, within time.Duration) (bool, error) {
	var pending bool
	err := d.pool.QueryRow(ctx, `
		SELECT EXISTS (
			SELECT 1 FROM threads t
			WHERE t.id = $1 AND t.first_answered_at IS NULL
			  AND t.created_at > now() - make_interval(secs => $2)
			  AND NOT EXISTS (SELECT 1 FROM conversation_turns c WHERE c.thread_id = t.id))`,
		id, within.Seconds()).Scan(&pending)
	if err != nil {
		return false, fmt.Errorf("first turn of thread %q: %w", id, classify(err))
	}
	return pending, nil
}

// deleteThreads forgets the threads recorded more than age ago (web
// threads' owners, Slack threads the bot was asked in) that have no turn
// left and that no schedule posts to or was made in: a thread the
// retention of turns emptied, or one whose first question never got a
// turn. A schedule keeps its thread its owner's.
func deleteThreads(ctx context.Context, ex execer, age time.Duration, batch int) (int64, error) {
	n, err := deleteInBatches(ctx, ex, `
		DELETE FROM threads WHERE id IN (
			SELECT t.id FROM threads t
			WHERE t.created_at < now() - make_interval(secs => $1)
			  AND NOT EXISTS (SELECT 1 FROM conversation_turns c WHERE c.thread_id = t.id)
			  AND NOT EXISTS (SELECT 1 FROM schedules s WHERE s.source_thread = t.id OR s.dest_thread = t.id)
			ORDER BY t.created_at
			LIMIT $2
			FOR UPDATE SKIP LOCKED)`, age, batch)
	if err != nil {
		return n, fmt.Errorf("delete threads older than %s: %w", age, classify(err))
	}
	return n, nil
}
