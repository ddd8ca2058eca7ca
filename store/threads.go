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

// deleteThreads forgets the owners of threads recorded more than age ago
// that have no turn left and that no schedule posts to or was made in: a
// thread the retention of turns emptied, or one whose first question never
// got a turn. A schedule keeps its thread its owner's.
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
