package store

import (
	"errors"
	"time"

	"github.com/analyticsbot/analyticsbot/pgpool"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Errors of the bot's own database, wrapped with the database's own
// message. Callers decide what users are told from these kinds.
var (
	// ErrNotFound is returned when a turn or a cached result does not exist.
	ErrNotFound = errors.New("not found")
	// ErrUnavailable means the database could not be reached.
	ErrUnavailable = pgpool.ErrUnavailable
)

// Turn is one question and answer in a conversation thread.
type Turn struct {
	ID          int64
	ThreadID    string
	UserID      string
	ChannelID   string
	UserMessage string
	// BotResponse is truncated to 500 characters when stored.
	BotResponse string
	Intent      string
	// Query is the query the turn ran, with its backend; zero when it ran
	// none.
	Query warehouse.Query
	// QueryID names the result of Query (see warehouse.QueryID); empty when
	// the turn ran no query.
	QueryID string
	// Question is what Query answers as the bot understood it (a
	// follow-up resolved into a question that stands alone); empty when
	// the turn ran no query.
	Question string
	// Reply is the reply as the workflow produced it (package answer's
	// JSON); nil when it was not kept. Only ThreadReplies reads it.
	Reply     []byte
	CreatedAt time.Time
}

// CachedResult is a result kept for a thread so buttons can be served later.
type CachedResult struct {
	ThreadID string
	QueryID  string
	Query    warehouse.Query
	Question string
	Result   warehouse.Result
	// RunFor is who Result's rows were run for: the same query returns
	// other rows for someone else (row scoping, a policy's role), so the
	// rows are served only to them. The zero Asker, for results stored
	// before it was recorded, is no one.
	RunFor   Asker
	CachedAt time.Time
}
