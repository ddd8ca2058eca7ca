package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Example sources and statuses (the examples table's CHECK constraints).
const (
	SourceFile     = "file"
	SourceFeedback = "feedback"
	SourceAdmin    = "admin"

	StatusCandidate = "candidate"
	StatusVerified  = "verified"
	StatusRejected  = "rejected"
)

// Example is a question with the query that answers it, in the language of
// its backend.
type Example struct {
	ID       int64
	Backend  string
	Question string
	Query    string
	// Fingerprint is the same for the same query however it is written.
	Fingerprint string
	// FingerprintForm is the form of Fingerprint
	// (warehouse.Dialect.FingerprintForm); empty: unknown, so
	// RefingerprintEarlier takes it again.
	FingerprintForm string
	Assumptions     []string
	Explanation     string
	// Source says where it came from (SourceFile, SourceFeedback,
	// SourceAdmin); Status whether it may be used and how much it counts.
	Source, Status string
	// ProposedBy and VerifiedBy are user IDs (or "file").
	ProposedBy, VerifiedBy string
	VerifiedAt, LastUsedAt time.Time
	CreatedAt, UpdatedAt   time.Time
	TimesUsed              int64
	// Score is how well it matched a question (SearchExamples only).
	Score float64
}

// ErrExampleStatus is returned for a status other than the three known.
var ErrExampleStatus = errors.New("unknown example status")

// ErrExampleSource is returned for a source other than the three known.
var ErrExampleSource = errors.New("unknown example source")

const exampleColumns = `id, backend, question, query, fingerprint, coalesce(fingerprint_form, ''), assumptions, explanation, source, status,
	proposed_by, verified_by, coalesce(verified_at, 'epoch'), created_at, updated_at, times_used,
	coalesce(last_used_at, 'epoch')`

func scanExample(row pgx.Row, e *Example, extra ...any) error {
	dest := []any{&e.ID, &e.Backend, &e.Question, &e.Query, &e.Fingerprint, &e.FingerprintForm, &e.Assumptions, &e.Explanation,
		&e.Source, &e.Status, &e.ProposedBy, &e.VerifiedBy, &e.VerifiedAt, &e.CreatedAt, &e.UpdatedAt, &e.TimesUsed, &e.LastUsedAt}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return err
	}
	epoch := time.Unix(0, 0).UTC()
	if e.VerifiedAt.Equal(epoch) {
		e.VerifiedAt = time.Time{}
	}
	if e.LastUsedAt.Equal(epoch) {
		e.LastUsedAt = time.Time{}
	}
	return nil
}

// AddExample stores e unless the same question with the same query
// (Fingerprint) is there already; it returns the stored example and
// whether it was added. A verified example is stamped verified now. Its
// question is kept on one line (runs of spaces and line breaks folded into
// one space): other people's prompts show it as a line of their own.
func (d *DB) AddExample(ctx context.Context, e Example) (Example, bool, error) {
	e, err := cleanExample(e)
	if err != nil {
		return Example{}, false, fmt.Errorf("add example: %w", err)
	}
	out, added, err := addExample(ctx, d.pool, e, false)
	if err != nil {
		return Example{}, false, fmt.Errorf("add example: %w", err)
	}
	return out, added, nil
}

// cleanExample checks e and brings its text to the form it is stored in.
func cleanExample(e Example) (Example, error) {
	e.Question = strings.Join(strings.Fields(cleanText(e.Question)), " ")
	e.Query = strings.TrimSpace(cleanText(e.Query))
	if e.Question == "" || e.Query == "" || e.Fingerprint == "" {
		return Example{}, errors.New("it needs a question, a query and its fingerprint")
	}
	if !validStatus(e.Status) {
		return Example{}, fmt.Errorf("%w %q", ErrExampleStatus, e.Status)
	}
	e.Assumptions = append([]string{}, e.Assumptions...)
	for i, a := range e.Assumptions {
		e.Assumptions[i] = cleanText(a)
	}
	return e, nil
}

// addExampleTries bounds how often addExample inserts again after the
// example it found was deleted before it could read it.
const addExampleTries = 3

// addExample inserts e, a cleaned example, through q unless it is there
// already, and returns the stored one; lock (q a transaction) takes the
// row of the one found FOR UPDATE, so it stays until the transaction ends.
// An example deleted between the insert that met it and the read (a 👎
// withdrawing its candidate) is inserted again.
func addExample(ctx context.Context, q rowQuerier, e Example, lock bool) (Example, bool, error) {
	find := `SELECT ` + exampleColumns + ` FROM examples
		WHERE backend = $1 AND fingerprint = $2 AND md5(lower(question)) = md5(lower($3))`
	if lock {
		find += ` FOR UPDATE`
	}
	for range addExampleTries {
		var out Example
		err := scanExample(q.QueryRow(ctx, `
			INSERT INTO examples (backend, question, query, fingerprint, assumptions, explanation, source, status,
			                      proposed_by, verified_by, verified_at, fingerprint_form)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, CASE WHEN $8 = 'verified' THEN now() END, nullif($11, ''))
			ON CONFLICT (backend, fingerprint, md5(lower(question))) DO NOTHING
			RETURNING `+exampleColumns,
			cleanText(e.Backend), e.Question, e.Query, e.Fingerprint, e.Assumptions, cleanText(e.Explanation),
			e.Source, e.Status, cleanText(e.ProposedBy), cleanText(e.VerifiedBy), e.FingerprintForm), &out)
		if err == nil {
			return out, true, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return Example{}, false, classify(err)
		}
		err = scanExample(q.QueryRow(ctx, find, cleanText(e.Backend), e.Fingerprint, e.Question), &out)
		if err == nil {
			return out, false, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return Example{}, false, classify(err)
		}
	}
	return Example{}, false, fmt.Errorf("the example was deleted as often as it was found: %w", ErrNotFound)
}

func validStatus(s string) bool {
	return s == StatusCandidate || s == StatusVerified || s == StatusRejected
}

// Example returns the example of id, or ErrNotFound.
func (d *DB) Example(ctx context.Context, id int64) (Example, error) {
	var e Example
	err := scanExample(d.pool.QueryRow(ctx, `SELECT `+exampleColumns+` FROM examples WHERE id = $1`, id), &e)
	if err != nil {
		return Example{}, fmt.Errorf("example %d: %w", id, notFound(classify(err)))
	}
	return e, nil
}

// ExampleFilter narrows ListExamples; empty fields match everything.
type ExampleFilter struct {
	Backend, Status, Source string
	// Limit caps the list (0: no cap).
	Limit int
	// MostUsed lists the most used first, rather than the newest; among
	// those used as often, the examples file's in its order (the team's
	// choice, offered first on a fresh install), then the newest.
	MostUsed bool
}

// ListExamples returns the examples f selects, newest (or most used)
// first.
func (d *DB) ListExamples(ctx context.Context, f ExampleFilter) ([]Example, error) {
	if f.Status != "" && !validStatus(f.Status) {
		return nil, fmt.Errorf("list examples: %w %q", ErrExampleStatus, f.Status)
	}
	if f.Source != "" && f.Source != SourceFile && f.Source != SourceFeedback && f.Source != SourceAdmin {
		return nil, fmt.Errorf("list examples: %w %q", ErrExampleSource, f.Source)
	}
	limit := any(nil)
	if f.Limit > 0 {
		limit = f.Limit
	}
	rows, err := d.pool.Query(ctx, `SELECT `+exampleColumns+` FROM examples
		WHERE ($1 = '' OR backend = $1) AND ($2 = '' OR status = $2) AND ($3 = '' OR source = $3)
		ORDER BY CASE WHEN $5 THEN times_used END DESC NULLS LAST,
			CASE WHEN $5 AND source = 'file' THEN id END ASC NULLS LAST,
			created_at DESC, id DESC LIMIT $4`,
		f.Backend, f.Status, f.Source, limit, f.MostUsed)
	if err != nil {
		return nil, fmt.Errorf("list examples: %w", classify(err))
	}
	var out []Example
	var e Example
	defer rows.Close()
	for rows.Next() {
		if err := scanExample(rows, &e); err != nil {
			return nil, fmt.Errorf("list examples: %w", classify(err))
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list examples: %w", classify(err))
	}
	return out, nil
}

// SetExampleStatus verifies, rejects or reopens (candidate) the example of
// id on behalf of by; it returns the example as it now is, or ErrNotFound.
func (d *DB) SetExampleStatus(ctx context.Context, id int64, status, by string) (Example, error) {
	if !validStatus(status) {
		return Example{}, fmt.Errorf("example %d: %w %q", id, ErrExampleStatus, status)
	}
	var e Example
	err := scanExample(d.pool.QueryRow(ctx, `
		UPDATE examples SET status = $2, updated_at = now(),
			verified_by = CASE WHEN $2 = 'verified' THEN $3 ELSE verified_by END,
			verified_at = CASE WHEN $2 = 'verified' THEN now() ELSE verified_at END
		WHERE id = $1
		RETURNING `+exampleColumns, id, status, cleanText(by)), &e)
	if err != nil {
		return Example{}, fmt.Errorf("example %d: %w", id, notFound(classify(err)))
	}
	return e, nil
}

// CandidateWeight is the share of its score a candidate example keeps
// against a verified one.
const CandidateWeight = 0.7

// SearchExamples returns at most k examples of backend whose questions
// resemble question, best first, never rejected ones. Two questions
// resemble each other by the words they share (full text search with
// English stemming, so "games" meets "game"; stop words left out), scored
// by their Dice coefficient (twice the shared words over the words of
// both), or by their trigram similarity when pg_trgm is installed and that
// is higher (a misspelt "pubisher" still finds "publisher"). A candidate
// keeps CandidateWeight of its score, so of two examples that match alike
// the verified one comes first.
func (d *DB) SearchExamples(ctx context.Context, backend, question string, k int) ([]Example, error) {
	var r Reads
	search := d.QueueSearchExamples(ctx, &r, backend, question, k)
	r.Send(ctx)
	return search(ctx)
}

// QueueSearchExamples queues SearchExamples on r, to share its round trip
// with the other reads of r; the function it returns gives its result
// once r is sent.
func (d *DB) QueueSearchExamples(ctx context.Context, r *Reads, backend, question string, k int) func(context.Context) ([]Example, error) {
	question = strings.TrimSpace(cleanText(question))
	if k <= 0 || question == "" {
		return func(context.Context) ([]Example, error) { return nil, nil }
	}
	found := d.queueSearchExamples(ctx, r, backend, question, k)
	return func(ctx context.Context) ([]Example, error) {
		out, err := found()
		if err != nil && d.staleTrigram(err) {
			// pg_trgm moved or went away since it was found: once more,
			// alone, with what the database says now.
			var again Reads
			found = d.queueSearchExamples(ctx, &again, backend, question, k)
			again.Send(ctx)
			out, err = found()
		}
		if err != nil {
			return nil, fmt.Errorf("search examples: %w", classify(err))
		}
		return out, nil
	}
}

// queueSearchExamples queues SearchExamples on r with where pg_trgm is as
// remembered, and returns its result once r is sent.
func (d *DB) queueSearchExamples(ctx context.Context, r *Reads, backend, question string, k int) func() ([]Example, error) {
	// Candidates: the examples sharing most words with the question, and,
	// with pg_trgm when those are fewer than k, the most alike letter by
	// letter (misspellings); then scored.
	byLetters, similarity := "", "0::float8"
	if schema, err := d.trigramSchema(ctx); err == nil {
		fn := pgx.Identifier{schema, "similarity"}.Sanitize()
		similarity = fn + "(e.question, $2)"
		// Only when words find too few: trigrams common to many
		// questions make this the slow way (60 ms among 10,000).
		byLetters = `UNION
		    (SELECT id FROM examples e WHERE backend = $1 AND status <> 'rejected'
		         AND e.question OPERATOR(` + pgx.Identifier{schema}.Sanitize() + `.%) $2
		         AND (SELECT count(*) FROM by_words) < $3
		     ORDER BY ` + similarity + ` DESC LIMIT $5)`
	}
	var out []Example
	rd := r.queue(ctx, d, func(b *pgx.Batch) {
		b.Queue(`
		WITH q AS (
		    SELECT nullif(replace(plainto_tsquery('english', $2)::text, ' & ', ' | '), '')::tsquery AS any_word,
		           tsvector_to_array(to_tsvector('english', $2)) AS words
		), by_words AS (
		    SELECT id FROM examples e, q WHERE backend = $1 AND status <> 'rejected' AND e.search @@ q.any_word
		    ORDER BY ts_rank(e.search, q.any_word) DESC LIMIT $5
		), candidates AS (
		    SELECT id FROM by_words
		    `+byLetters+`
		)
		SELECT `+exampleColumns+`, score FROM (
		    SELECT e.*, greatest(
		               2.0 * (SELECT count(*) FROM unnest(tsvector_to_array(e.search)) w WHERE w = ANY (q.words))
		                   / nullif(cardinality(q.words) + length(e.search), 0),
		               `+similarity+`)
		           * CASE WHEN e.status = 'verified' THEN 1 ELSE $4::float8 END AS score
		    FROM examples e JOIN candidates USING (id), q
		) ranked
		WHERE score >= $6
		ORDER BY score DESC, status = 'verified' DESC, id
		LIMIT $3`, backend, question, k, CandidateWeight, exampleCandidates, MinExampleScore).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var e Example
				if err := scanExample(rows, &e, &e.Score); err != nil {
					return err
				}
				out = append(out, e)
			}
			return rows.Err()
		})
	})
	return func() ([]Example, error) {
		if err := rd.outcome(); err != nil {
			return nil, err
		}
		return out, nil
	}
}

// exampleCandidates is how many examples each way of matching proposes
// for scoring (words, letters): enough for k, few enough that scoring 10,000
// stored examples stays cheap (BENCHMARKS.md).
const exampleCandidates = 100

// MinExampleScore is the least score an example needs to be shown: below
// it, one common word in a long question.
const MinExampleScore = 0.2

// PrepareExamples creates the trigram index that finds examples by
// similar letters, when pg_trgm is installed (ErrNoTrigram otherwise:
// examples are then found by their words only).
func (d *DB) PrepareExamples(ctx context.Context) error {
	schema, err := d.lookupTrigramSchema(ctx)
	if err != nil {
		return err
	}
	err = d.createIndex(ctx, `CREATE INDEX IF NOT EXISTS examples_question_trgm_idx ON examples USING gin (question `+
		pgx.Identifier{schema, "gin_trgm_ops"}.Sanitize()+`)`)
	if err != nil {
		return fmt.Errorf("create the examples' trigram index: %w", classify(err))
	}
	return nil
}

// MarkExamplesUsed counts a use of each example of ids.
func (d *DB) MarkExamplesUsed(ctx context.Context, ids []int64) error {
	uses := make(map[int64]int64, len(ids))
	for _, id := range ids {
		uses[id]++
	}
	return d.AddExampleUses(ctx, uses)
}

// AddExampleUses adds uses[id] to the count of each example, in one
// statement: callers that count many uses at once (every question of a
// busy bot uses the same few examples) add them up first, so the
// examples' rows are not a lock every question waits on.
func (d *DB) AddExampleUses(ctx context.Context, uses map[int64]int64) error {
	if len(uses) == 0 {
		return nil
	}
	ids, counts := make([]int64, 0, len(uses)), make([]int64, 0, len(uses))
	for id, n := range uses {
		ids, counts = append(ids, id), append(counts, n)
	}
	_, err := d.pool.Exec(ctx, `UPDATE examples e SET times_used = e.times_used + u.n, last_used_at = now()
		FROM unnest($1::bigint[], $2::bigint[]) AS u(id, n) WHERE e.id = u.id`, ids, counts)
	if err != nil {
		return fmt.Errorf("count example uses: %w", classify(err))
	}
	return nil
}

// VerifiedExample returns the verified example of backend whose query has
// fingerprint, if any (the most recently verified).
func (d *DB) VerifiedExample(ctx context.Context, backend, fingerprint string) (Example, bool, error) {
	var e Example
	err := scanExample(d.pool.QueryRow(ctx, `SELECT `+exampleColumns+` FROM examples
		WHERE backend = $1 AND fingerprint = $2 AND status = 'verified'
		ORDER BY verified_at DESC NULLS LAST, id DESC LIMIT 1`, backend, fingerprint), &e)
	if errors.Is(err, pgx.ErrNoRows) {
		return Example{}, false, nil
	}
	if err != nil {
		return Example{}, false, fmt.Errorf("verified example: %w", classify(err))
	}
	return e, true, nil
}

// ExamplesToEmbed returns up to limit examples of backend, not rejected,
// whose question has no embedding by model yet.
func (d *DB) ExamplesToEmbed(ctx context.Context, backend, model string, limit int) ([]Example, error) {
	rows, err := d.pool.Query(ctx, `SELECT `+exampleColumns+` FROM examples
		WHERE backend = $1 AND status <> 'rejected' AND embedding_model <> $2
		ORDER BY id LIMIT $3`, backend, model, limit)
	if err != nil {
		return nil, fmt.Errorf("examples to embed: %w", classify(err))
	}
	defer rows.Close()
	var out []Example
	for rows.Next() {
		var e Example
		if err := scanExample(rows, &e); err != nil {
			return nil, fmt.Errorf("examples to embed: %w", classify(err))
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("examples to embed: %w", classify(err))
	}
	return out, nil
}

// SetExampleEmbedding stores the embedding of an example's question.
func (d *DB) SetExampleEmbedding(ctx context.Context, id int64, model string, vec []float32) error {
	if _, err := d.pool.Exec(ctx, `UPDATE examples SET embedding = $2, embedding_model = $3 WHERE id = $1`, id, vec, model); err != nil {
		return fmt.Errorf("store an example's embedding: %w", classify(err))
	}
	return nil
}

// ExampleVector is a usable example's embedding.
type ExampleVector struct {
	ID       int64
	Verified bool
	Vector   []float32
}

// ExampleVectors returns the embeddings by model of backend's examples that
// are not rejected.
func (d *DB) ExampleVectors(ctx context.Context, backend, model string) ([]ExampleVector, error) {
	rows, err := d.pool.Query(ctx, `SELECT id, status = 'verified', embedding FROM examples
		WHERE backend = $1 AND status <> 'rejected' AND embedding_model = $2 AND embedding IS NOT NULL`, backend, model)
	if err != nil {
		return nil, fmt.Errorf("example embeddings: %w", classify(err))
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ExampleVector, error) {
		var v ExampleVector
		err := row.Scan(&v.ID, &v.Verified, &v.Vector)
		return v, err
	})
	if err != nil {
		return nil, fmt.Errorf("example embeddings: %w", classify(err))
	}
	return out, nil
}

// ExamplesByID returns the examples of ids that are not rejected, in no
// particular order.
func (d *DB) ExamplesByID(ctx context.Context, ids []int64) ([]Example, error) {
	rows, err := d.pool.Query(ctx, `SELECT `+exampleColumns+` FROM examples WHERE id = ANY($1) AND status <> 'rejected'`, ids)
	if err != nil {
		return nil, fmt.Errorf("examples by id: %w", classify(err))
	}
	defer rows.Close()
	var out []Example
	for rows.Next() {
		var e Example
		if err := scanExample(rows, &e); err != nil {
			return nil, fmt.Errorf("examples by id: %w", classify(err))
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("examples by id: %w", classify(err))
	}
	return out, nil
}
