package store

import (
	"errors"
	"time"
)

// Errors the executor returns, wrapped with the database's own message.
// Callers decide retries and the words users see from these kinds.
var (
	// ErrNotFound is returned when a turn or a cached result does not exist.
	ErrNotFound = errors.New("not found")
	// ErrQueryTimeout means the statement ran past its statement_timeout.
	ErrQueryTimeout = errors.New("query timed out")
	// ErrUnavailable means the database could not be reached.
	ErrUnavailable = errors.New("database unavailable")
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
	SQL         string
	// QueryID names the result of SQL (see QueryID); empty when the turn ran no query.
	QueryID   string
	CreatedAt time.Time
}

// Column describes one column of a result.
type Column struct {
	Name string `json:"name"`
	// Type is the Postgres type name, e.g. "int8", "numeric", "text", "date".
	Type string `json:"type"`
}

// Result is a query result whose values are JSON-safe: nil, bool, int64,
// float64, string (numeric, dates, timestamps, intervals, uuid as strings),
// json values decoded to any, and []any for arrays.
type Result struct {
	Columns []Column `json:"columns"`
	Rows    [][]any  `json:"rows"`
	// RowCount is len(Rows).
	RowCount int `json:"row_count"`
	// Truncated reports that the query returned more than the result may
	// hold; LimitedBy says which cap cut it: "rows" or "bytes".
	Truncated bool   `json:"truncated"`
	LimitedBy string `json:"limited_by,omitempty"`
}

// CachedResult is a result kept for a thread so buttons can be served later.
type CachedResult struct {
	ThreadID string
	QueryID  string
	SQL      string
	Question string
	Result   Result
	CachedAt time.Time
}

// Table describes one table of the analytics schema, as the catalog says.
type Table struct {
	Schema  string
	Name    string
	Comment string
	Columns []TableColumn
}

// TableColumn is one column of a Table.
type TableColumn struct {
	Name     string
	Type     string
	Nullable bool
	Comment  string
}
