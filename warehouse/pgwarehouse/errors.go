package pgwarehouse

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/analyticsbot/analyticsbot/pgpool"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// kindOf classifies err, preferring the caller's own cancellation: the
// statement the server then cancels reports 57014 like a timeout does.
func (e *Executor) kindOf(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		return fmt.Errorf("%w: %w", ctxErr, err)
	}
	return classify(err)
}

// classify turns err into a *warehouse.Error of the kind that decides what
// happens next (with no Class: only the guard's rejections have one): SQL the database rejected is worth rewriting, a timeout or
// an unreachable database is not. A canceled or expired context and errors
// of unknown cause are returned as they are.
func classify(err error) error {
	if _, ok := errors.AsType[*warehouse.Error](err); ok {
		return err
	}
	err = pgpool.Classify(err)
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, pgpool.ErrUnavailable):
		return &warehouse.Error{Kind: warehouse.Unavailable, Reason: err.Error(), Err: err}
	case errors.Is(err, pgpool.ErrTimeout):
		return &warehouse.Error{Kind: warehouse.Timeout, Reason: err.Error(), Err: err}
	case errors.As(err, &pgErr) && pgErr.Code == "25006": // read_only_sql_transaction
		return &warehouse.Error{Kind: warehouse.Unsafe, Reason: pgErr.Message, Err: err}
	case errors.As(err, &pgErr) && isFixableSQLState(pgErr.Code):
		reason := pgErr.Message
		if pgErr.Hint != "" {
			reason += " (hint: " + pgErr.Hint + ")"
		}
		return &warehouse.Error{Kind: warehouse.Invalid, Reason: reason, Err: err}
	}
	return err
}

// isFixableSQLState reports SQLSTATE classes a rewritten query can avoid:
// syntax and access rules (42), data exceptions such as a bad cast or a
// division by zero (22), unsupported features (0A), program limits (54) and
// cardinality violations (21).
func isFixableSQLState(code string) bool {
	if len(code) != 5 {
		return false
	}
	switch code[:2] {
	case "42", "22", "0A", "54", "21":
		return true
	}
	return false
}
