// Package pgpool holds what the bot's connection pools to PostgreSQL share:
// the connection settings (connect timeout, TCP keepalives and user
// timeout, server-side cancellation, tracing), a deadline on every round
// trip (Tracer), and the classification of their errors into the kinds
// callers decide on. Package store opens the pool of the bot's own state with it,
// package pgwarehouse the reader's pool that answers questions.
package pgpool

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/exaring/otelpgx"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/puddle/v2"
	"github.com/pressly/goose/v3/lock"
)

// MigrationLockKey is the advisory lock the migrations hold (goose's own
// key, kept so that processes of every version take turns). What else
// changes the database's roles and privileges (access apply, the
// hardening of PUBLIC) takes it for its transaction too: PostgreSQL fails
// one of two transactions granting on the same database or role at once
// with "tuple concurrently updated".
const MigrationLockKey = lock.DefaultLockID

// Error kinds Classify wraps errors with, tested with errors.Is.
var (
	// ErrTimeout means a statement ran past its statement_timeout.
	ErrTimeout = errors.New("query timed out")
	// ErrUnavailable means the server could not be reached or refused the
	// connection.
	ErrUnavailable = errors.New("database unavailable")
	// ErrNoAnswer means a round trip ran past its deadline (Tracer): the
	// server did not answer in time, closing nothing, as behind a hung
	// proxy. It is a kind of ErrUnavailable.
	ErrNoAnswer = fmt.Errorf("%w: no answer in time", ErrUnavailable)
)

// Configure applies the connection settings every pool of the bot uses;
// timeout bounds each round trip (DefaultTimeout for DATABASE_TIMEOUT's
// default; 0 bounds none, for the tools that migrate and set up, whose
// waits are meant to be long). A connection attempt is bounded by the
// URL's connect_timeout, or else by timeout (DefaultTimeout when 0), and
// its socket sends TCP keepalives and gives up on data the server does not
// acknowledge (dialer), so a server gone silent is noticed on connections
// no call is waiting on too.
func Configure(cfg *pgxpool.Config, timeout time.Duration) {
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = cmp.Or(timeout, DefaultTimeout)
	}
	cfg.ConnConfig.DialFunc = dialer(cfg.ConnConfig.ConnectTimeout, cmp.Or(timeout, DefaultTimeout)).DialContext
	// On a canceled context, ask the server to cancel the statement rather than
	// cutting the socket, so the connection survives (the reader cancels on
	// purpose once it has read enough rows). The deadline is the fallback.
	cfg.ConnConfig.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: Overrun}
	}
	// One span per statement, named by its kind (SELECT, INSERT, …), as a
	// child of the caller's span; statements run outside any span (the
	// background pruning) make none. otelpgx leaves statement parameters out
	// by default, and they must stay out: they carry questions, answers and
	// user ids. The statement text is kept: it is our SQL or the model's.
	// Pool acquires get no span of their own; a wait shows as a gap.
	cfg.ConnConfig.Tracer = &Tracer{Spans: otelpgx.NewTracer(otelpgx.WithDisableAcquireTracer()), Timeout: timeout}
}

// Where names the server and database of cfg for messages, never the
// password: "127.0.0.1:5432/analyticsbot".
func Where(cfg *pgxpool.Config) string {
	return fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
}

// IsLoginError reports a server refusing the login itself: wrong password,
// no such role, a role that may not log in or connect.
func IsLoginError(err error) bool {
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		return pgErr.Code == "28000" || pgErr.Code == "28P01" || pgErr.Code == "42501" && strings.Contains(pgErr.Message, "connect")
	}
	return false
}

// Classify wraps err with the kind callers decide on: ErrTimeout for a
// statement_timeout, ErrUnavailable for a lost or refused connection,
// ErrNoAnswer for a deadline that passed (which still matches
// context.DeadlineExceeded: a caller that set its own tells them apart by
// its context). Other errors, *pgconn.PgError and context.Canceled
// included, are returned as they are.
func Classify(err error) error {
	if err == nil {
		return nil
	}
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		switch {
		case pgErr.Code == "57014":
			return fmt.Errorf("%w: %w", ErrTimeout, err)
		case len(pgErr.Code) == 5 && pgErr.Code[:2] == "08",
			pgErr.Code == "57P01", // admin_shutdown
			pgErr.Code == "57P02", // crash_shutdown
			pgErr.Code == "57P03", // cannot_connect_now
			pgErr.Code == "53300": // too_many_connections
			return fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		return err
	}
	// Before the context check: a connect attempt that timed out still means
	// the server could not be reached.
	if _, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		if netErr, ok := errors.AsType[net.Error](err); errors.Is(err, context.DeadlineExceeded) || ok && netErr.Timeout() {
			// Accepted and never greeted, or never answered at all.
			return fmt.Errorf("%w: %w", ErrNoAnswer, err)
		}
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %w", ErrNoAnswer, err)
	}
	if isConnectionError(err) {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return err
}

// isConnectionError reports errors of the transport rather than the query.
func isConnectionError(err error) bool {
	if _, ok := errors.AsType[net.Error](err); ok {
		return true
	}
	return errors.Is(err, puddle.ErrClosedPool) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || pgconn.SafeToRetry(err)
}
