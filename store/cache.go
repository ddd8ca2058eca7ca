package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cache defaults.
const (
	DefaultResultsPerThread = 10
	DefaultLRUSize          = 256
	DefaultResultCacheBytes = 64 << 20
)

// cacheKey includes the thread so that one thread can never be served
// another thread's result, even for the same SQL.
type cacheKey struct {
	threadID string
	queryID  string
}

// Cache keeps the latest results of each thread in Postgres (so buttons work
// after a restart and across replicas) behind an in-process LRU bounded in
// results and in bytes (so a click on a fresh answer costs one small round
// trip rather than reading and decoding its rows again, and hundreds of
// wide answers cost no more memory than a few). Postgres is the truth: a
// copy in memory is served only while it is the version stored there, as
// another replica may have stored the same query of the thread since.
type Cache struct {
	db        *DB
	perThread int
	mem       *resultLRU
}

// CacheLimits bounds a Cache. A zero or negative field takes its default.
type CacheLimits struct {
	// PerThread is how many results of a thread Postgres keeps (10).
	PerThread int
	// Entries is the most results memory holds (256).
	Entries int
	// Bytes is the most memory, as estimated from their values, the
	// results held in memory take together (64 MiB). A result bigger than
	// that alone is kept in Postgres only.
	Bytes int64
}

// NewCache returns a cache within limits.
func NewCache(db *DB, limits CacheLimits) (*Cache, error) {
	if limits.PerThread <= 0 {
		limits.PerThread = DefaultResultsPerThread
	}
	if limits.Entries <= 0 {
		limits.Entries = DefaultLRUSize
	}
	if limits.Bytes <= 0 {
		limits.Bytes = DefaultResultCacheBytes
	}
	mem, err := newResultLRU(limits.Entries, limits.Bytes)
	if err != nil {
		return nil, fmt.Errorf("new result cache: %w", err)
	}
	return &Cache{db: db, perThread: limits.PerThread, mem: mem}, nil
}

// Put stores r (replacing a result of the same thread and query) and, in the
// same transaction, drops all but the thread's newest perThread results.
// CachedAt is when it ran: the database's clock now, or r's own when set
// (a result reused in another thread keeps its run's time, so its age and
// the answer's "data as of" stay true there).
func (c *Cache) Put(ctx context.Context, r CachedResult) error {
	columns, err := json.Marshal(nonNil(r.Result.Columns))
	if err != nil {
		return fmt.Errorf("cache result %q of thread %q: %w", r.QueryID, r.ThreadID, err)
	}
	rows, err := encodeRows(r.Result.Rows)
	if err != nil {
		return fmt.Errorf("cache result %q of thread %q: %w", r.QueryID, r.ThreadID, err)
	}

	// The insert and the eviction in one transaction, one batch: one
	// round trip (inOneBatch), as writing it again changes nothing.
	// EXCLUDED.seq is the fresh sequence value of the proposed row, so a
	// replaced result counts as the newest again, and is a new version
	// of the row for every replica's copy in memory (Get). run_for_stated
	// says this write names whom the rows were run for (migration 00027):
	// true in both branches, as EXCLUDED holds it as the trigger left it.
	var (
		evicted []string
		seq     int64
	)
	err = c.db.inOneBatch(ctx, func(b *pgx.Batch) {
		b.Queue(`
		INSERT INTO query_results
			(thread_id, query_id, backend, sql, question, columns, rows, row_count, truncated, limited_by,
			 run_for_user, run_for_email, run_for_channel, run_for_policy, run_for_stated, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, true, coalesce($15, now()))
		ON CONFLICT (thread_id, query_id) DO UPDATE SET
			backend = EXCLUDED.backend, sql = EXCLUDED.sql, question = EXCLUDED.question,
			columns = EXCLUDED.columns, rows = EXCLUDED.rows,
			row_count = EXCLUDED.row_count, truncated = EXCLUDED.truncated, limited_by = EXCLUDED.limited_by,
			run_for_user = EXCLUDED.run_for_user, run_for_email = EXCLUDED.run_for_email,
			run_for_channel = EXCLUDED.run_for_channel,
			run_for_policy = EXCLUDED.run_for_policy, run_for_stated = true,
			created_at = EXCLUDED.created_at, seq = EXCLUDED.seq
		RETURNING created_at, seq`,
			r.ThreadID, r.QueryID, cleanText(r.Query.Backend), cleanText(r.Query.Text), cleanText(r.Question),
			string(columns), rows, len(r.Result.Rows), r.Result.Truncated, r.Result.LimitedBy,
			cleanText(r.RunFor.UserID), cleanText(r.RunFor.Email), cleanText(r.RunFor.ChannelID), cleanText(r.RunFor.Policy),
			ranAt(r.CachedAt),
		).QueryRow(func(row pgx.Row) error { return row.Scan(&r.CachedAt, &seq) })
		b.Queue(`
		DELETE FROM query_results
		WHERE thread_id = $1 AND query_id NOT IN (
			SELECT query_id FROM query_results
			WHERE thread_id = $1
			ORDER BY seq DESC
			LIMIT $2)
		RETURNING query_id`, r.ThreadID, c.perThread,
		).Query(func(dropped pgx.Rows) error {
			var err error
			evicted, err = pgx.CollectRows(dropped, pgx.RowTo[string])
			return err
		})
	})
	if err != nil {
		return fmt.Errorf("cache result %q of thread %q: %w", r.QueryID, r.ThreadID, classify(err))
	}

	for _, q := range evicted {
		c.mem.remove(cacheKey{r.ThreadID, q})
	}
	r.Result.RowCount = len(r.Result.Rows)
	c.mem.add(cacheKey{r.ThreadID, r.QueryID}, r, seq)
	return nil
}

// Get returns the result queryID of the thread as Postgres holds it now;
// ErrNotFound when it holds none. It costs one round trip: the rows of the
// copy in memory are served when the row is still the version they were
// copied from, and then the row's own, the costly part to send and decode,
// stay in the database. A copy another replica's Put has replaced (the
// question asked again, Refresh) or evicted since is never served. Results
// from memory share their slices with every other caller: treat them as
// read-only.
func (c *Cache) Get(ctx context.Context, threadID, queryID string) (CachedResult, error) {
	k := cacheKey{threadID, queryID}
	held, seq := c.mem.get(k)
	r, err := c.load(ctx, held, seq, `WHERE thread_id = $2 AND query_id = $3`, threadID, queryID)
	if errors.Is(err, ErrNotFound) {
		c.mem.remove(k)
	}
	if err != nil {
		return CachedResult{}, fmt.Errorf("cached result %q of thread %q: %w", queryID, threadID, err)
	}
	return r, nil
}

// Latest returns the thread's most recently stored result, or ErrNotFound.
func (c *Cache) Latest(ctx context.Context, threadID string) (CachedResult, error) {
	// Always asks Postgres: the LRU does not know which result is newest.
	r, err := c.load(ctx, CachedResult{}, 0, `WHERE thread_id = $2 ORDER BY seq DESC LIMIT 1`, threadID)
	if err != nil {
		return CachedResult{}, fmt.Errorf("latest cached result of thread %q: %w", threadID, err)
	}
	return r, nil
}

// Forget empties the in-memory LRU; Postgres keeps its rows.
func (c *Cache) Forget() {
	c.mem.purge()
}

// InMemory returns how many results the in-memory LRU holds and their
// estimated size in bytes, which stays within the cache's limits.
func (c *Cache) InMemory() (results int, bytes int64) {
	return c.mem.held()
}

// load reads one row of query_results and remembers it in the LRU. where
// numbers its arguments from $2: $1 is heldSeq, the version of the row
// held, whose columns and rows are returned when the row is still that
// version, without the row's being sent (0: none held).
func (c *Cache) load(ctx context.Context, held CachedResult, heldSeq int64, where string, args ...any) (CachedResult, error) {
	var (
		r             CachedResult
		seq           int64
		columns, rows []byte
	)
	err := c.db.pool.QueryRow(ctx, `
		SELECT seq, thread_id, query_id, backend, sql, question,
			CASE WHEN seq <> $1 THEN columns END, CASE WHEN seq <> $1 THEN rows END, truncated, limited_by,
			run_for_user, run_for_email, run_for_channel, run_for_policy, created_at
		FROM query_results `+where, append([]any{heldSeq}, args...)...,
	).Scan(&seq, &r.ThreadID, &r.QueryID, &r.Query.Backend, &r.Query.Text, &r.Question, &columns, &rows,
		&r.Result.Truncated, &r.Result.LimitedBy, &r.RunFor.UserID, &r.RunFor.Email, &r.RunFor.ChannelID, &r.RunFor.Policy,
		&r.CachedAt)
	if err != nil {
		return CachedResult{}, classify(notFound(err))
	}
	if seq == heldSeq {
		// The rows held are the row's; the rest, as small as the
		// version, is read as it is now.
		r.Result.Columns, r.Result.Rows, r.Result.RowCount = held.Result.Columns, held.Result.Rows, held.Result.RowCount
		return r, nil
	}
	if err := json.Unmarshal(columns, &r.Result.Columns); err != nil {
		return CachedResult{}, fmt.Errorf("decode columns: %w", err)
	}
	if r.Result.Rows, err = decodeRows(rows, len(r.Result.Columns)); err != nil {
		return CachedResult{}, err
	}
	r.Result.RowCount = len(r.Result.Rows)
	c.mem.add(cacheKey{r.ThreadID, r.QueryID}, r, seq)
	return r, nil
}

// nonNil makes a nil slice marshal as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ranAt is a result's time to store: nil, for the database's now, when it
// has none.
func ranAt(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
