package store

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// maxBotResponse is how many characters of a bot response a turn keeps: enough
// to give the model the gist of earlier answers without bloating prompts.
const maxBotResponse = 500

const turnColumns = `id, thread_id, user_id, channel_id, user_message, bot_response,
	intent, backend, sql, query_id, question, created_at`

// AddTurn stores a turn and returns it with ID and CreatedAt set and
// BotResponse truncated to 500 characters.
func (d *DB) AddTurn(ctx context.Context, t Turn) (Turn, error) {
	return addTurn(ctx, d.pool, t, time.Time{})
}

// rowQuerier is a pool or a transaction.
type rowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// addTurn inserts t through q, created at at (zero: now, by the
// database's clock).
func addTurn(ctx context.Context, q rowQuerier, t Turn, at time.Time) (Turn, error) {
	t, sql, args := turnInsert(t, at)
	if err := q.QueryRow(ctx, sql, args...).Scan(&t.ID, &t.CreatedAt); err != nil {
		return Turn{}, turnError(t, err)
	}
	return t, nil
}

// turnInsert is the statement that inserts t, created at at, and its
// arguments, with t as it is stored; it returns ID and CreatedAt.
func turnInsert(t Turn, at time.Time) (Turn, string, []any) {
	t.ThreadID = cleanText(t.ThreadID)
	t.UserID = cleanText(t.UserID)
	t.ChannelID = cleanText(t.ChannelID)
	t.UserMessage = cleanText(t.UserMessage)
	t.BotResponse = truncateRunes(cleanText(t.BotResponse), maxBotResponse)
	t.Intent = cleanText(t.Intent)
	t.Query.Backend = cleanText(t.Query.Backend)
	t.Query.Text = cleanText(t.Query.Text)
	t.QueryID = cleanText(t.QueryID)
	t.Question = cleanText(t.Question)
	return t, `
		INSERT INTO conversation_turns
			(thread_id, user_id, channel_id, user_message, bot_response, intent, backend, sql, query_id, question, reply,
			 created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::json, coalesce($12, now()))
		RETURNING id, created_at`,
		[]any{t.ThreadID, t.UserID, t.ChannelID, t.UserMessage, t.BotResponse, t.Intent, t.Query.Backend, t.Query.Text, t.QueryID, t.Question,
			replyText(t.Reply), timeOrNull(at)}
}

func turnError(t Turn, err error) error {
	return fmt.Errorf("add turn to thread %q: %w", t.ThreadID, classify(err))
}

// RecentTurns returns the last limit turns of a thread, oldest first, the
// order in which they are shown to the model.
func (d *DB) RecentTurns(ctx context.Context, threadID string, limit int) ([]Turn, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := d.pool.Query(ctx, `
		SELECT `+turnColumns+` FROM (
			SELECT `+turnColumns+` FROM conversation_turns
			WHERE thread_id = $1
			ORDER BY created_at DESC, id DESC
			LIMIT $2
		) AS recent
		ORDER BY created_at, id`, threadID, limit)
	if err != nil {
		return nil, fmt.Errorf("recent turns of thread %q: %w", threadID, classify(err))
	}
	turns, err := pgx.CollectRows(rows, scanTurn)
	if err != nil {
		return nil, fmt.Errorf("recent turns of thread %q: %w", threadID, classify(err))
	}
	return turns, nil
}

// ThreadReplies is RecentTurns with each turn's stored reply, for showing
// the thread again (a reloaded web page).
func (d *DB) ThreadReplies(ctx context.Context, threadID string, limit int) ([]Turn, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := d.pool.Query(ctx, `
		SELECT `+turnColumns+`, reply::text FROM (
			SELECT `+turnColumns+`, reply FROM conversation_turns
			WHERE thread_id = $1
			ORDER BY created_at DESC, id DESC
			LIMIT $2
		) AS recent
		ORDER BY created_at, id`, threadID, limit)
	if err != nil {
		return nil, fmt.Errorf("replies of thread %q: %w", threadID, classify(err))
	}
	turns, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Turn, error) {
		var (
			t     Turn
			reply *string
		)
		err := row.Scan(&t.ID, &t.ThreadID, &t.UserID, &t.ChannelID, &t.UserMessage, &t.BotResponse,
			&t.Intent, &t.Query.Backend, &t.Query.Text, &t.QueryID, &t.Question, &t.CreatedAt, &reply)
		if reply != nil {
			t.Reply = []byte(*reply)
		}
		return t, err
	})
	if err != nil {
		return nil, fmt.Errorf("replies of thread %q: %w", threadID, classify(err))
	}
	return turns, nil
}

// replyText is a reply for the json column: NULL when there is none.
func replyText(reply []byte) *string {
	if len(reply) == 0 {
		return nil
	}
	s := string(reply)
	return &s
}

// MostRecentQuery returns the latest turn of the thread that ran a query, or
// ErrNotFound.
func (d *DB) MostRecentQuery(ctx context.Context, threadID string) (Turn, error) {
	t, err := d.oneTurn(ctx, `
		SELECT `+turnColumns+` FROM conversation_turns
		WHERE thread_id = $1 AND sql <> ''
		ORDER BY created_at DESC, id DESC
		LIMIT 1`, threadID)
	if err != nil {
		return Turn{}, fmt.Errorf("most recent query of thread %q: %w", threadID, err)
	}
	return t, nil
}

// FindQueryByKeyword returns the turn with a query whose question or query
// contains the most of keywords (case-insensitive substrings), the latest
// among equals, so "the revenue query" finds the turn that asked about
// revenue. It returns
// ErrNotFound when no turn matches any keyword.
func (d *DB) FindQueryByKeyword(ctx context.Context, threadID string, keywords []string) (Turn, error) {
	patterns := make([]string, 0, len(keywords))
	for _, k := range keywords {
		if k = strings.TrimSpace(cleanText(k)); k != "" {
			patterns = append(patterns, "%"+escapeLike(k)+"%")
		}
	}
	if len(patterns) == 0 {
		return Turn{}, fmt.Errorf("find query by keywords %q in thread %q: %w", keywords, threadID, ErrNotFound)
	}
	t, err := d.oneTurn(ctx, `
		SELECT `+turnColumns+` FROM (
			SELECT t.*, (
				SELECT count(*) FROM unnest($2::text[]) AS k(pattern)
				WHERE t.user_message ILIKE k.pattern ESCAPE '\'
				   OR t.sql ILIKE k.pattern ESCAPE '\'
			) AS score
			FROM conversation_turns t
			WHERE t.thread_id = $1 AND t.sql <> ''
		) AS scored
		WHERE score > 0
		ORDER BY score DESC, created_at DESC, id DESC
		LIMIT 1`, threadID, patterns)
	if err != nil {
		return Turn{}, fmt.Errorf("find query by keywords %q in thread %q: %w", keywords, threadID, err)
	}
	return t, nil
}

// TurnByQueryID returns the latest turn of the thread whose result is queryID,
// or ErrNotFound.
func (d *DB) TurnByQueryID(ctx context.Context, threadID, queryID string) (Turn, error) {
	t, err := d.oneTurn(ctx, `
		SELECT `+turnColumns+` FROM conversation_turns
		WHERE thread_id = $1 AND query_id = $2
		ORDER BY created_at DESC, id DESC
		LIMIT 1`, threadID, queryID)
	if err != nil {
		return Turn{}, fmt.Errorf("turn of query %q in thread %q: %w", queryID, threadID, err)
	}
	return t, nil
}

// DeleteTurnsOlderThan deletes turns created more than age ago, by the
// database's clock, and returns how many it deleted. It deletes
// DefaultRetentionBatch rows per statement, so several processes may run it
// at once (see ApplyRetention).
func (d *DB) DeleteTurnsOlderThan(ctx context.Context, age time.Duration) (int64, error) {
	return deleteTurns(ctx, d.pool, age, DefaultRetentionBatch)
}

func (d *DB) oneTurn(ctx context.Context, sql string, args ...any) (Turn, error) {
	rows, err := d.pool.Query(ctx, sql, args...)
	if err != nil {
		return Turn{}, classify(err)
	}
	t, err := pgx.CollectExactlyOneRow(rows, scanTurn)
	if err != nil {
		return Turn{}, classify(notFound(err))
	}
	return t, nil
}

func scanTurn(row pgx.CollectableRow) (Turn, error) {
	var t Turn
	err := row.Scan(&t.ID, &t.ThreadID, &t.UserID, &t.ChannelID, &t.UserMessage, &t.BotResponse,
		&t.Intent, &t.Query.Backend, &t.Query.Text, &t.QueryID, &t.Question, &t.CreatedAt)
	return t, err
}

// truncateRunes keeps the first n characters of s, never splitting one.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// cleanText makes s storable in a text column, which rejects NUL bytes and
// invalid UTF-8; Slack text should never contain either, but a crash on one
// odd message would lose the whole turn.
func cleanText(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// escapeLike quotes the LIKE wildcards of s with the escape character '\'.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
