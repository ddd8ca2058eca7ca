package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Ratings of an answer.
const (
	RatingUp   = 1
	RatingDown = -1
)

// maxFeedbackNote is how many characters of a note are kept.
const maxFeedbackNote = 2000

// Feedback is one user's rating of one answer (a thread's query id).
type Feedback struct {
	ID                   int64
	ThreadID, QueryID    string
	UserID, ChannelID    string
	Rating               int
	Note                 string
	Question             string
	TurnID, QueryLogID   int64
	ExampleID            int64
	CreatedAt, UpdatedAt time.Time
}

const feedbackColumns = `id, thread_id, query_id, user_id, channel_id, rating, note, question,
	coalesce(turn_id, 0), coalesce(query_log_id, 0), coalesce(example_id, 0), created_at, updated_at`

func scanFeedback(row pgx.Row) (Feedback, error) {
	var f Feedback
	err := row.Scan(&f.ID, &f.ThreadID, &f.QueryID, &f.UserID, &f.ChannelID, &f.Rating, &f.Note, &f.Question,
		&f.TurnID, &f.QueryLogID, &f.ExampleID, &f.CreatedAt, &f.UpdatedAt)
	return f, err
}

// RecordFeedback stores a user's rating of an answer, with the turn and
// the query log row of the answer, and returns it with whether anything
// changed: pressing the same rating again changes nothing; the other one
// replaces it (and the note, which belonged to the earlier rating, unless
// f has its own).
func (d *DB) RecordFeedback(ctx context.Context, f Feedback) (Feedback, bool, error) {
	if f.Rating != RatingUp && f.Rating != RatingDown {
		return Feedback{}, false, fmt.Errorf("record feedback: rating %d is neither 1 nor -1", f.Rating)
	}
	f.ThreadID, f.QueryID, f.UserID = cleanText(f.ThreadID), cleanText(f.QueryID), cleanText(f.UserID)
	if f.ThreadID == "" || f.QueryID == "" || f.UserID == "" {
		return Feedback{}, false, errors.New("record feedback: it needs a thread, a query id and a user")
	}
	out, err := scanFeedback(d.pool.QueryRow(ctx, `
		INSERT INTO feedback (thread_id, query_id, user_id, channel_id, rating, note, question, turn_id, query_log_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7,
		        (SELECT id FROM conversation_turns WHERE thread_id = $1 AND query_id = $2 ORDER BY created_at DESC, id DESC LIMIT 1),
		        (SELECT id FROM chat_query_logs WHERE thread_id = $1 AND query_id = $2 AND error_kind = ''
		         ORDER BY created_at DESC, id DESC LIMIT 1))
		ON CONFLICT (thread_id, query_id, user_id) DO UPDATE SET
			rating = EXCLUDED.rating,
			note = CASE WHEN EXCLUDED.note <> '' THEN EXCLUDED.note
			            WHEN EXCLUDED.rating <> feedback.rating THEN '' ELSE feedback.note END,
			updated_at = now()
		WHERE feedback.rating <> EXCLUDED.rating OR (EXCLUDED.note <> '' AND EXCLUDED.note <> feedback.note)
		RETURNING `+feedbackColumns,
		f.ThreadID, f.QueryID, f.UserID, cleanText(f.ChannelID), f.Rating,
		truncateRunes(strings.TrimSpace(cleanText(f.Note)), maxFeedbackNote), cleanText(f.Question)))
	if errors.Is(err, pgx.ErrNoRows) {
		out, err = scanFeedback(d.pool.QueryRow(ctx, `SELECT `+feedbackColumns+` FROM feedback
			WHERE thread_id = $1 AND query_id = $2 AND user_id = $3`, f.ThreadID, f.QueryID, f.UserID))
		if err != nil {
			return Feedback{}, false, fmt.Errorf("record feedback: %w", classify(err))
		}
		return out, false, nil
	}
	if err != nil {
		return Feedback{}, false, fmt.Errorf("record feedback: %w", classify(err))
	}
	return out, true, nil
}

// NoteFeedback adds a note to a user's 👎 in a thread: the one on queryID,
// or with queryID empty the latest. ErrNotFound when there is none.
func (d *DB) NoteFeedback(ctx context.Context, threadID, queryID, userID, note string) (Feedback, error) {
	note = truncateRunes(strings.TrimSpace(cleanText(note)), maxFeedbackNote)
	if note == "" {
		return Feedback{}, errors.New("note feedback: the note is empty")
	}
	f, err := scanFeedback(d.pool.QueryRow(ctx, `
		UPDATE feedback SET note = $4, updated_at = now()
		WHERE id = (SELECT id FROM feedback WHERE thread_id = $1 AND ($2 = '' OR query_id = $2) AND user_id = $3
		            AND rating = -1 ORDER BY updated_at DESC, id DESC LIMIT 1)
		RETURNING `+feedbackColumns, threadID, queryID, userID, note))
	if err != nil {
		return Feedback{}, fmt.Errorf("note feedback: %w", notFound(classify(err)))
	}
	return f, nil
}

// errNotUp: the feedback ProposeExample was to link is no longer a 👍.
var errNotUp = errors.New("the feedback is no longer a 👍")

// ProposeExample stores e, the candidate example the 👍 feedbackID
// proposes, unless it is there already (see AddExample), and links the 👍
// to it, in one transaction holding the example's row: WithdrawCandidate
// takes the same row, so another user's 👎 never deletes the candidate
// between this 👍 finding it and linking to it. It returns the example
// and whether it was added; when the feedback is no longer a 👍 (its user
// changed it meanwhile) nothing is stored and it returns the zero Example.
func (d *DB) ProposeExample(ctx context.Context, feedbackID int64, e Example) (Example, bool, error) {
	e, err := cleanExample(e)
	if err != nil {
		return Example{}, false, fmt.Errorf("propose example: %w", err)
	}
	var out Example
	var added bool
	err = pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		var err error
		if out, added, err = addExample(ctx, tx, e, true); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE feedback SET example_id = $2 WHERE id = $1 AND rating = 1`, feedbackID, out.ID)
		if err != nil {
			return classify(err)
		}
		if tag.RowsAffected() == 0 {
			return errNotUp // roll back the candidate this 👍 alone proposed
		}
		return nil
	})
	if errors.Is(err, errNotUp) {
		return Example{}, false, nil
	}
	if err != nil {
		return Example{}, false, fmt.Errorf("propose example: %w", err)
	}
	return out, added, nil
}

// ExampleUpvoters counts the distinct users whose 👍 stands on answers that
// proposed the example.
func (d *DB) ExampleUpvoters(ctx context.Context, exampleID int64) (int, error) {
	var n int
	err := d.pool.QueryRow(ctx, `SELECT count(DISTINCT user_id) FROM feedback WHERE example_id = $1 AND rating = 1`,
		exampleID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count an example's 👍: %w", classify(err))
	}
	return n, nil
}

// WithdrawCandidate deletes the example of id when it is a candidate that
// a 👍 proposed (source feedback) and no 👍 stands on its answers any more:
// the last person who proposed it changed their mind. Verified and
// rejected examples, and candidates an admin added, stay: people decided
// those. It reports whether it deleted one; the feedback that pointed at
// it keeps its rating and note (example_id is set null).
//
// It takes the example's row before it looks for a 👍, in a statement of
// its own: a ProposeExample holding the row (another user's 👍 linking to
// it) has committed by then, and the look reads its link. One DELETE …
// WHERE NOT EXISTS would look with a snapshot from before that wait.
func (d *DB) WithdrawCandidate(ctx context.Context, id int64) (bool, error) {
	var deleted bool
	err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		var found int64
		err := tx.QueryRow(ctx, `SELECT id FROM examples WHERE id = $1 AND status = 'candidate' AND source = 'feedback'
			FOR UPDATE`, id).Scan(&found)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return classify(err)
		}
		tag, err := tx.Exec(ctx, `DELETE FROM examples e WHERE e.id = $1
			AND NOT EXISTS (SELECT 1 FROM feedback f WHERE f.example_id = e.id AND f.rating = 1)`, id)
		if err != nil {
			return classify(err)
		}
		deleted = tag.RowsAffected() > 0
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("withdraw candidate example %d: %w", id, err)
	}
	return deleted, nil
}

// FeedbackDay counts a day's ratings.
type FeedbackDay struct {
	Day      time.Time
	Up, Down int
}

// DownvotedQuestion is a question users rated 👎, with their notes.
type DownvotedQuestion struct {
	Question string
	Up, Down int
	Notes    []string
	Last     time.Time
}

// FeedbackReport is what `analyticsbot logs` shows of feedback.
type FeedbackReport struct {
	Days     []FeedbackDay
	Up, Down int
	// MostDown are the questions with the most 👎, most first.
	MostDown []DownvotedQuestion
}

// Feedback summarises the feedback of the last since (all of it when
// since is zero): 👍 and 👎 per day (UTC), newest first, and the limit
// questions with the most 👎 with their notes.
func (d *DB) Feedback(ctx context.Context, since time.Duration, limit int) (FeedbackReport, error) {
	var r FeedbackReport
	rows, err := d.pool.Query(ctx, `
		SELECT date_trunc('day', updated_at AT TIME ZONE 'UTC') AS day,
		       count(*) FILTER (WHERE rating = 1), count(*) FILTER (WHERE rating = -1)
		FROM feedback WHERE $1::float8 <= 0 OR updated_at >= now() - make_interval(secs => $1)
		GROUP BY day ORDER BY day DESC`, since.Seconds())
	if err != nil {
		return r, fmt.Errorf("feedback report: %w", classify(err))
	}
	r.Days, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (FeedbackDay, error) {
		var day FeedbackDay
		err := row.Scan(&day.Day, &day.Up, &day.Down)
		day.Day = day.Day.UTC()
		return day, err
	})
	if err != nil {
		return r, fmt.Errorf("feedback report: %w", classify(err))
	}
	for _, day := range r.Days {
		r.Up, r.Down = r.Up+day.Up, r.Down+day.Down
	}
	rows, err = d.pool.Query(ctx, `
		SELECT question, count(*) FILTER (WHERE rating = 1), count(*) FILTER (WHERE rating = -1),
		       coalesce(array_agg(note ORDER BY updated_at DESC) FILTER (WHERE rating = -1 AND note <> ''), '{}'),
		       max(updated_at)
		FROM feedback WHERE $1::float8 <= 0 OR updated_at >= now() - make_interval(secs => $1)
		GROUP BY question HAVING count(*) FILTER (WHERE rating = -1) > 0
		ORDER BY 3 DESC, 5 DESC LIMIT $2`, since.Seconds(), max(limit, 1))
	if err != nil {
		return r, fmt.Errorf("feedback report: %w", classify(err))
	}
	r.MostDown, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (DownvotedQuestion, error) {
		var q DownvotedQuestion
		err := row.Scan(&q.Question, &q.Up, &q.Down, &q.Notes, &q.Last)
		return q, err
	})
	if err != nil {
		return r, fmt.Errorf("feedback report: %w", classify(err))
	}
	return r, nil
}
