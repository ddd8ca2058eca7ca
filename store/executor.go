package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Executor defaults.
const (
	DefaultReaderRole       = "analyticsbot_reader"
	DefaultAnalyticsSchema  = "analytics"
	DefaultStatementTimeout = 30 * time.Second
	DefaultMaxRows          = 1000
	DefaultMaxBytes         = 8 << 20
	DefaultLockTimeout      = 2 * time.Second
	// readerPoolSize bounds the executor's own connections.
	readerPoolSize = 8
)

// rollbackTimeout bounds the ROLLBACK that ends every executor transaction; it
// runs even when the caller's context is already canceled.
const rollbackTimeout = 5 * time.Second

// ErrEmptyQuery is returned for SQL that is empty or only whitespace.
var ErrEmptyQuery = errors.New("empty query")

// ExecConfig configures an Executor. Zero fields take the defaults.
type ExecConfig struct {
	// Role is the role generated SQL runs as (default "analyticsbot_reader").
	Role string
	// Schema is the only schema on the search path (default "analytics").
	Schema string
	// StatementTimeout cancels a statement that runs longer (default 30s).
	StatementTimeout time.Duration
	// MaxRows caps the rows a result keeps (default 1000).
	MaxRows int
	// MaxBytes caps the size of a result's values as Postgres sends them
	// (default 8 MiB); a result cut there is Truncated with LimitedBy "bytes".
	MaxBytes int
	// LockTimeout makes a statement that waits for a lock fail (default 2s).
	LockTimeout time.Duration
	// URL connects as Role. Empty means the database's own URL with Role
	// as the user and no password (trust or peer authentication, as on a
	// development machine); set it when the reader needs a password.
	URL string
}

// Executor runs generated SQL with the least privilege the database can
// enforce: logged in as a restricted role (its own connections, never the
// bot's), in a read-only transaction with a statement timeout, one statement
// over the extended protocol; it always rolls back, and DISCARD ALL cleans
// the connection before it is used again.
type Executor struct {
	db  *DB
	cfg ExecConfig

	mu     sync.Mutex
	pool   *pgxpool.Pool // connected as cfg.Role; opened on first use
	closed bool
}

// NewExecutor returns an Executor on db; zero fields of cfg take defaults.
func NewExecutor(db *DB, cfg ExecConfig) *Executor {
	if cfg.Role == "" {
		cfg.Role = DefaultReaderRole
	}
	if cfg.Schema == "" {
		cfg.Schema = DefaultAnalyticsSchema
	}
	if cfg.StatementTimeout <= 0 {
		cfg.StatementTimeout = DefaultStatementTimeout
	}
	if cfg.MaxRows <= 0 {
		cfg.MaxRows = DefaultMaxRows
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.LockTimeout <= 0 {
		cfg.LockTimeout = DefaultLockTimeout
	}
	return &Executor{db: db, cfg: cfg}
}

// Close closes the executor's connections.
func (e *Executor) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	if e.pool != nil {
		e.pool.Close()
		e.pool = nil
	}
}

// Ping checks that the executor can log in as its role.
func (e *Executor) Ping(ctx context.Context) error {
	pool, err := e.readerPool(ctx)
	if err != nil {
		return err
	}
	if err := pool.Ping(ctx); err != nil {
		return e.loginError(err)
	}
	return nil
}

// readerPool returns the pool of connections logged in as the reader role,
// opening it on first use (and again after a failure).
func (e *Executor) readerPool(ctx context.Context) (*pgxpool.Pool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, fmt.Errorf("%w: the executor is closed", ErrUnavailable)
	}
	if e.pool != nil {
		return e.pool, nil
	}
	var cfg *pgxpool.Config
	if e.cfg.URL != "" {
		c, err := pgxpool.ParseConfig(e.cfg.URL)
		if err != nil {
			return nil, fmt.Errorf("reader database URL: %w", err)
		}
		cfg = c
	} else {
		cfg = e.db.pool.Config()
		cfg.ConnConfig.User, cfg.ConnConfig.Password = e.cfg.Role, ""
	}
	configureConn(cfg)
	cfg.MaxConns = readerPoolSize
	cfg.MinConns = 0
	cfg.ConnConfig.RuntimeParams["application_name"] = "analyticsbot-reader"
	// No prepared statements: DISCARD ALL after each query would drop them
	// under pgx's statement cache.
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, e.loginError(err)
	}
	e.pool = pool
	return pool, nil
}

// loginError explains a failure to connect as the reader role.
func (e *Executor) loginError(err error) error {
	return fmt.Errorf("%w: cannot log in as the reader role %q (%v): run `analyticsbot migrate`, "+
		"or set READER_DATABASE_URL when the role needs a password", ErrUnavailable, e.cfg.Role, err)
}

// Config returns the configuration in effect, defaults filled in.
func (e *Executor) Config() ExecConfig {
	return e.cfg
}

// Query runs sql and returns at most MaxRows rows of JSON-safe values.
// Errors wrap ErrQueryTimeout, ErrUnavailable, or the *pgconn.PgError with the
// database's own message.
func (e *Executor) Query(ctx context.Context, sql string) (Result, error) {
	var res Result
	err := e.inReadOnlyTx(ctx, sql, func(tx pgx.Tx) error {
		var err error
		res, err = e.read(ctx, tx, sql)
		return err
	})
	if err != nil {
		return Result{}, fmt.Errorf("run query: %w", err)
	}
	return res, nil
}

// Explain plans sql without running it, as the executor's role, so an unknown
// column or table comes back in Postgres' own words (`column "foo" does not
// exist`) for the SQL generator to correct.
func (e *Executor) Explain(ctx context.Context, sql string) error {
	err := e.inReadOnlyTx(ctx, sql, func(tx pgx.Tx) error {
		// QueryExecModeExec: the extended protocol, which refuses a second
		// statement smuggled after a semicolon, in one round trip and without
		// caching a plan made under one role for another.
		_, err := tx.Exec(ctx, "EXPLAIN (FORMAT JSON)\n"+sql, pgx.QueryExecModeExec)
		return err
	})
	if err != nil {
		return fmt.Errorf("explain query: %w", err)
	}
	return nil
}

// inReadOnlyTx runs fn in a read-only transaction on a connection logged
// in as the reader role, with the schema and timeouts pinned, then rolls
// back whatever happened and cleans the session.
func (e *Executor) inReadOnlyTx(ctx context.Context, sql string, fn func(pgx.Tx) error) (err error) {
	if strings.TrimSpace(sql) == "" {
		return ErrEmptyQuery
	}
	defer func() { err = e.kindOf(ctx, err) }()

	pool, err := e.readerPool(ctx)
	if err != nil {
		return err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		if isLoginError(err) {
			return e.loginError(err)
		}
		return err
	}
	defer e.release(ctx, conn)

	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return err
	}
	defer func() {
		// A failed rollback makes pgx close the connection, so an aborted
		// transaction cannot leak into the pool.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
		defer cancel()
		_ = tx.Rollback(rctx)
	}()

	// set_config(..., true) is SET LOCAL with bind parameters instead of
	// quoted identifiers in SQL text, all in one round trip; the settings
	// end with the transaction. DateStyle, IntervalStyle, TimeZone and
	// bytea_output pin the text formats the value conversion relies on.
	timeoutMS := max(e.cfg.StatementTimeout.Milliseconds(), 1)
	lockMS := max(e.cfg.LockTimeout.Milliseconds(), 1)
	_, err = tx.Exec(ctx, `SELECT
		set_config('search_path', $1, true),
		set_config('statement_timeout', $2, true),
		set_config('lock_timeout', $3, true),
		set_config('DateStyle', 'ISO, MDY', true),
		set_config('IntervalStyle', 'postgres', true),
		set_config('TimeZone', 'UTC', true),
		set_config('bytea_output', 'hex', true),
		set_config('extra_float_digits', '1', true)`,
		pgx.Identifier{e.cfg.Schema}.Sanitize(), strconv.FormatInt(timeoutMS, 10), strconv.FormatInt(lockMS, 10))
	if err != nil {
		return fmt.Errorf("prepare the read-only transaction: %w", err)
	}
	return fn(tx)
}

// cleanTimeout bounds the DISCARD ALL that cleans a connection.
const cleanTimeout = 5 * time.Second

// release cleans the session with DISCARD ALL (settings changed for the
// session, session advisory locks, LISTEN, temporary tables, prepared
// statements: whatever a statement left behind) and returns the connection
// to the pool; a connection that cannot be cleaned is closed instead.
func (e *Executor) release(ctx context.Context, conn *pgxpool.Conn) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanTimeout)
	defer cancel()
	if conn.Conn().IsClosed() {
		conn.Release()
		return
	}
	if _, err := conn.Exec(cctx, "DISCARD ALL"); err != nil {
		raw := conn.Hijack()
		_ = raw.Close(cctx)
		return
	}
	conn.Release()
}

// read runs sql and converts at most MaxRows rows.
func (e *Executor) read(ctx context.Context, tx pgx.Tx, sql string) (Result, error) {
	// Canceled once enough rows are read, so the server stops producing the
	// rest instead of streaming them to be thrown away.
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// QueryExecModeExec: extended protocol (one statement only), no statement
	// cache (plans are per role), results in text format, which every type
	// has, so unknown types come back as their text rather than failing.
	rows, err := tx.Query(qctx, sql, pgx.QueryExecModeExec)
	if err != nil {
		return Result{}, err
	}
	defer rows.Close()

	fields := rows.FieldDescriptions()
	typeMap := tx.Conn().TypeMap()
	res := Result{Columns: make([]Column, len(fields)), Rows: make([][]any, 0)}
	decoders := make([]decoder, len(fields))
	for i, f := range fields {
		res.Columns[i] = Column{Name: f.Name, Type: typeName(typeMap, f.DataTypeOID)}
		decoders[i] = decoderFor(typeMap, f.DataTypeOID)
	}

	size := 0
	for rows.Next() {
		if len(res.Rows) == e.cfg.MaxRows {
			res.Truncated, res.LimitedBy = true, "rows"
			cancel()
			break
		}
		raw := rows.RawValues()
		for _, b := range raw {
			size += len(b)
		}
		if size > e.cfg.MaxBytes {
			res.Truncated, res.LimitedBy = true, "bytes"
			cancel()
			break
		}
		row := make([]any, len(raw))
		for i, b := range raw {
			if b != nil {
				row[i] = decoders[i](string(b))
			}
		}
		res.Rows = append(res.Rows, row)
	}
	rows.Close()
	// After a deliberate cancel the error is only our own "canceling
	// statement due to user request".
	if err := rows.Err(); err != nil && !res.Truncated {
		return Result{}, err
	}
	res.RowCount = len(res.Rows)
	return res, nil
}

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
