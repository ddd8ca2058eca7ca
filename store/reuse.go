package store

import (
	"context"
	"fmt"
	"time"
)

// Asker is who a result was run for, as far as what it holds depends on
// it: the user, their address and the channel (the row scoping settings:
// row-level security reads the signed address) and the access policy it
// ran as. Its rows are served and reused only for the same
// asker (CachedResult.RunFor).
type Asker struct {
	UserID, Email, ChannelID, Policy string
}

// Remember records that the result queryID of thread ran as the dataset
// key (warehouse.DatasetOf), so Recent can find it. The result must be
// stored already (Put), which says who it ran for; the record goes when
// the result does.
func (c *Cache) Remember(ctx context.Context, threadID, queryID, key string) error {
	_, err := c.db.pool.Exec(ctx, `
		INSERT INTO result_datasets (thread_id, query_id, dataset_key)
		VALUES ($1, $2, $3)
		ON CONFLICT (thread_id, query_id) DO UPDATE SET dataset_key = EXCLUDED.dataset_key`,
		threadID, queryID, key)
	if err != nil {
		return fmt.Errorf("remember result %q of thread %q: %w", queryID, threadID, classify(err))
	}
	return nil
}

// Recent returns the newest remembered result of dataset key run for
// asker less than maxAge ago (by the database's clock), in any thread;
// ErrNotFound when there is none. Who it ran for is the result's own
// (RunFor): a result stored since under the same thread and query for
// someone else is theirs, and not found. CachedAt is when it ran.
func (c *Cache) Recent(ctx context.Context, key string, asker Asker, maxAge time.Duration) (CachedResult, error) {
	var threadID, queryID string
	err := c.db.pool.QueryRow(ctx, `
		SELECT r.thread_id, r.query_id
		FROM result_datasets d JOIN query_results r USING (thread_id, query_id)
		WHERE d.dataset_key = $1
		  AND r.run_for_user = $2 AND r.run_for_email = $3 AND r.run_for_channel = $4 AND r.run_for_policy = $5
		  AND r.created_at > now() - make_interval(secs => $6)
		ORDER BY r.created_at DESC
		LIMIT 1`, key, cleanText(asker.UserID), cleanText(asker.Email), cleanText(asker.ChannelID), cleanText(asker.Policy),
		maxAge.Seconds(),
	).Scan(&threadID, &queryID)
	if err != nil {
		return CachedResult{}, fmt.Errorf("recent result of dataset %.12s: %w", key, classify(notFound(err)))
	}
	r, err := c.Get(ctx, threadID, queryID)
	if err == nil && r.RunFor != asker {
		// Replaced, since the lookup, by a result run for someone else.
		err = ErrNotFound
	}
	if err != nil {
		return CachedResult{}, fmt.Errorf("recent result of dataset %.12s: %w", key, err)
	}
	return r, nil
}
