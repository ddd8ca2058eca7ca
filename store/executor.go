package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Executor defaults.
const (
	DefaultReaderRole       = "analyticsbot_reader"
	DefaultAnalyticsSchema  = "analytics"
	DefaultStatementTimeout = 30 * time.Second
	DefaultMaxRows          = 1000
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
}

// Executor runs generated SQL with the least privilege the database can
// enforce: a read-only transaction, a restricted role, a statement timeout
// and a single statement over the extended protocol; it always rolls back.
type Executor struct {
	db  *DB
	cfg ExecConfig
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
	return &Executor{db: db, cfg: cfg}
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

// inReadOnlyTx runs fn in a read-only transaction switched to the reader
// role, schema and timeout, then rolls back whatever happened.
func (e *Executor) inReadOnlyTx(ctx context.Context, sql string, fn func(pgx.Tx) error) (err error) {
	if strings.TrimSpace(sql) == "" {
		return ErrEmptyQuery
	}
	defer func() { err = e.kindOf(ctx, err) }()

	conn, err := e.db.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()

	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return err
	}
	defer func() {
		// A failed rollback makes pgx close the connection, so neither the
		// role nor an aborted transaction can leak into the pool.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
		defer cancel()
		_ = tx.Rollback(rctx)
	}()

	// set_config(..., true) is SET LOCAL with bind parameters instead of
	// quoted identifiers in SQL text, all in one round trip. The role and the
	// settings last until the rollback. DateStyle, IntervalStyle, TimeZone
	// and bytea_output pin the text formats the value conversion relies on.
	timeoutMS := max(e.cfg.StatementTimeout.Milliseconds(), 1)
	_, err = tx.Exec(ctx, `SELECT
		set_config('role', $1, true),
		set_config('search_path', $2, true),
		set_config('statement_timeout', $3, true),
		set_config('DateStyle', 'ISO, MDY', true),
		set_config('IntervalStyle', 'postgres', true),
		set_config('TimeZone', 'UTC', true),
		set_config('bytea_output', 'hex', true),
		set_config('extra_float_digits', '1', true)`,
		e.cfg.Role, pgx.Identifier{e.cfg.Schema}.Sanitize(), strconv.FormatInt(timeoutMS, 10))
	if err != nil {
		return fmt.Errorf("switch to role %q: %w", e.cfg.Role, err)
	}
	return fn(tx)
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

	for rows.Next() {
		if len(res.Rows) == e.cfg.MaxRows {
			res.Truncated = true
			cancel()
			break
		}
		raw := rows.RawValues()
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
