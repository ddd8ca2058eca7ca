// Package store is the bot's access to Postgres: conversation turns, the
// per-thread cache of query results, the read-only executor that runs
// generated SQL as a restricted role, and schema introspection for prompts.
// Errors come in three kinds callers can test with errors.Is: ErrNotFound,
// ErrQueryTimeout and ErrUnavailable; database errors keep *pgconn.PgError.
package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/exaring/otelpgx"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/jackc/puddle/v2"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/analyticsbot/analyticsbot/migrations"
)

// defaultConnectTimeout bounds a connection attempt when the URL sets none,
// so an unreachable host fails instead of hanging until the caller's deadline.
const defaultConnectTimeout = 10 * time.Second

// DB is a pool of connections to the bot's database.
type DB struct {
	pool *pgxpool.Pool
	// where names the server and database (never the password) for messages.
	where string
}

// Open connects to databaseURL and pings it. An unreachable server gives an
// error wrapping ErrUnavailable that names host and database.
func Open(ctx context.Context, databaseURL string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		// pgconn redacts the password in its parse errors.
		return nil, fmt.Errorf("open database: %w", err)
	}
	where := fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	configureConn(cfg)

	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", where, err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open database %s: %w", where, classify(err))
	}
	return &DB{pool: pool, where: where}, nil
}

// configureConn applies the connection settings every pool of the bot uses.
func configureConn(cfg *pgxpool.Config) {
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = defaultConnectTimeout
	}
	// On a canceled context, ask the server to cancel the statement rather than
	// cutting the socket, so the connection survives (the executor cancels on
	// purpose once it has read enough rows). The deadline is the fallback.
	cfg.ConnConfig.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: 2 * time.Second}
	}
	// One span per statement, named by its kind (SELECT, INSERT, …), as a
	// child of the caller's span; statements run outside any span (the
	// background pruning) make none. otelpgx leaves statement parameters out
	// by default, and they must stay out: they carry questions, answers and
	// user ids. The statement text is kept: it is our SQL or the model's.
	// Pool acquires get no span of their own; a wait shows as a gap.
	cfg.ConnConfig.Tracer = otelpgx.NewTracer(otelpgx.WithDisableAcquireTracer())
}

// isLoginError reports a server refusing the login itself: wrong password,
// no such role, a role that may not log in or connect.
func isLoginError(err error) bool {
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		return pgErr.Code == "28000" || pgErr.Code == "28P01" || pgErr.Code == "42501" && strings.Contains(pgErr.Message, "connect")
	}
	return false
}

// Close closes every connection of the pool.
func (d *DB) Close() {
	d.pool.Close()
}

// Pool returns the underlying pool, for callers that run their own SQL.
func (d *DB) Pool() *pgxpool.Pool {
	return d.pool
}

// Migrate applies every pending migration of package migrations. A Postgres
// advisory lock serialises concurrent migrators of the same database (several
// replicas starting at once).
func (d *DB) Migrate(ctx context.Context) error {
	sqlDB := stdlib.OpenDBFromPool(d.pool)
	defer sqlDB.Close() // does not close the pool

	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return fmt.Errorf("migrate %s: %w", d.where, err)
	}
	// A provider holds its own state, unlike goose's package-level functions,
	// so parallel tests migrating different databases do not interfere.
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations.FS,
		goose.WithSessionLocker(locker))
	if err != nil {
		return fmt.Errorf("migrate %s: %w", d.where, err)
	}
	if _, err := provider.Up(ctx); err != nil {
		return fmt.Errorf("migrate %s: %w", d.where, classify(err))
	}
	return nil
}

// classify wraps err with the kind callers decide on: ErrQueryTimeout for a
// statement_timeout, ErrUnavailable for a lost or refused connection. Other
// errors, *pgconn.PgError included, are returned as they are.
func classify(err error) error {
	if err == nil {
		return nil
	}
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		switch {
		case pgErr.Code == "57014":
			return fmt.Errorf("%w: %w", ErrQueryTimeout, err)
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
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
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

// notFound turns pgx.ErrNoRows into ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	return err
}
