package warehouse

import (
	"errors"
	"fmt"
)

// ErrorKind says what went wrong with a backend, whatever the backend: it
// decides whether a query is rewritten and retried and what people are told.
type ErrorKind string

// The error kinds.
const (
	// Invalid: the query is wrong in a way a rewrite can fix (an unknown
	// column, a syntax error, a bad cast). The generator may retry it.
	Invalid ErrorKind = "invalid"
	// Unsafe: the query would change data or read what it may not. Never
	// retried.
	Unsafe ErrorKind = "unsafe"
	// Timeout: the query ran past the backend's time limit.
	Timeout ErrorKind = "timeout"
	// Unavailable: the backend could not be reached or could not answer.
	Unavailable ErrorKind = "unavailable"
	// NoAnswer: the backend did not answer within the client's own
	// deadline (DATABASE_TIMEOUT), closing nothing: a hung connection, a
	// proxy or network that stopped forwarding.
	NoAnswer ErrorKind = "no_answer"
	// Busy: every connection to the backend was in use for the whole
	// wait, or the caller already has as many queries running as one
	// person may (READER_PER_USER): the backend itself may be healthy.
	Busy ErrorKind = "busy"
	// Unauthorized: the backend refused the bot's credentials.
	Unauthorized ErrorKind = "unauthorized"
	// NoData: the catalog is empty, nothing can be answered yet.
	NoData ErrorKind = "no_data"
	// Denied: the backend refused the bot's account something the query
	// names (a table or schema it has no grant on). A setup problem: a
	// rewrite cannot fix it, so it is never retried; Reason says what to
	// grant.
	Denied ErrorKind = "denied"
)

// Error is a backend's error with its kind. Reason is written for the query
// generator and for logs; people are told what the kind means, never Reason.
type Error struct {
	Kind ErrorKind
	// Class is the backend's own name for the rule a rejected query broke
	// (the SQL guard's "relation_not_allowed", Cube's "unknown_member"),
	// from a fixed set; empty for errors that are not rejections.
	Class string
	// Reason says what is wrong, in words the generator can act on.
	Reason string
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string {
	switch {
	case e.Class != "" && e.Reason != "":
		return e.Class + ": " + e.Reason
	case e.Reason != "":
		return e.Reason
	case e.Err != nil:
		return string(e.Kind) + ": " + e.Err.Error()
	}
	return string(e.Kind)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of kind with a formatted reason; a %w verb in
// format wraps its argument as Err.
func Errorf(kind ErrorKind, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Kind: kind, Reason: err.Error(), Err: errors.Unwrap(err)}
}

// Reject returns an *Error for a query a backend refuses to run: Unsafe
// when unsafe, else Invalid.
func Reject(class, reason string, unsafe bool) *Error {
	kind := Invalid
	if unsafe {
		kind = Unsafe
	}
	return &Error{Kind: kind, Class: class, Reason: reason}
}

// KindOf returns the kind of the first *Error in err's chain, or "" when
// there is none (a canceled context, a bug).
func KindOf(err error) ErrorKind {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Kind
	}
	return ""
}
