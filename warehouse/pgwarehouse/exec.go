package pgwarehouse

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/analyticsbot/analyticsbot/pgpool"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Executor defaults.
const (
	DefaultReaderRole       = "analyticsbot_reader"
	DefaultSchema           = "analytics"
	DefaultStatementTimeout = 30 * time.Second
	DefaultMaxRows          = 1000
	DefaultMaxBytes         = 8 << 20
	DefaultLockTimeout      = 2 * time.Second
	DefaultPerUser          = readerPoolSize / 2
	// readerPoolSize bounds the executor's own connections.
	readerPoolSize = 8
	// largeRow is the size of a row past which its connection is closed
	// after the read instead of going back to the pool: the driver reads a
	// row whole into a buffer that stays with the connection, so 8 pooled
	// connections that once read a 200 MB cell held 1.5 GB while idle.
	largeRow = 1 << 20
	// readerIdleTime closes a reader connection left idle this long.
	readerIdleTime = 5 * time.Minute
)

// ExecConfig configures an Executor. Zero fields take the defaults.
type ExecConfig struct {
	// DatabaseURL is the database to read. The executor logs in to it as
	// Role with no password (trust or peer authentication, as on a
	// development machine) unless URL is set.
	DatabaseURL string
	// URL connects as the reader role, with its password when it needs one;
	// it overrides DatabaseURL.
	URL string
	// Role is the role generated SQL runs as (default "analyticsbot_reader").
	Role string
	// Policy is the access policy Role is the login role of (ApplyPolicies),
	// if any: PostgreSQL refusing it something is then the policy's
	// refusal (warehouse.Forbidden, for the asker), not a missing grant.
	Policy string
	// Schemas are the only schemas on the search path (default "analytics").
	Schemas []string
	// StatementTimeout cancels a statement that runs longer (default 30s).
	StatementTimeout time.Duration
	// MaxRows caps the rows a result keeps when the query names no limit
	// (default 1000).
	MaxRows int
	// MaxBytes caps the size of a result's values as Postgres sends them
	// (default 8 MiB); a result cut there is Truncated with LimitedBy "bytes".
	MaxBytes int
	// PerUser caps the queries one caller (warehouse.Caller's user) runs
	// at once on the executor's pool (default DefaultPerUser); one more
	// waits, up to Timeout, then fails as warehouse.Busy.
	PerUser int
	// LockTimeout makes a statement that waits for a lock fail (default 2s).
	LockTimeout time.Duration
	// Timeout bounds each round trip on the client's side
	// (DATABASE_TIMEOUT, default pgpool.DefaultTimeout): a wait for a
	// connection, the settings of the transaction, a catalog query. A
	// statement the server bounds itself (the question's query, its
	// EXPLAIN, an export, a value lookup) may take StatementTimeout more
	// (StatementBound). Past it the call fails as warehouse.NoAnswer.
	Timeout time.Duration
	// IdentityKey signs who each query runs for (store.(*DB).IdentityKey),
	// for the row-level security functions of the identity schema; without
	// one they return NULL.
	IdentityKey []byte
}

func (c ExecConfig) withDefaults() ExecConfig {
	if c.Role == "" {
		c.Role = DefaultReaderRole
	}
	if len(c.Schemas) == 0 {
		c.Schemas = []string{DefaultSchema}
	}
	if c.StatementTimeout <= 0 {
		c.StatementTimeout = DefaultStatementTimeout
	}
	if c.MaxRows <= 0 {
		c.MaxRows = DefaultMaxRows
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.PerUser <= 0 {
		c.PerUser = DefaultPerUser
	}
	if c.LockTimeout <= 0 {
		c.LockTimeout = DefaultLockTimeout
	}
	if c.Timeout <= 0 {
		c.Timeout = pgpool.DefaultTimeout
	}
	return c
}

// StatementBound is how long the client waits for a statement the server
// bounds by statement_timeout: that, and a round trip's time for the
// server's answer to come back.
func (c ExecConfig) StatementBound() time.Duration {
	return c.StatementTimeout + c.Timeout
}

// statementCtx gives the round trips made with ctx the bound of a
// statement under statement_timeout.
func (e *Executor) statementCtx(ctx context.Context) context.Context {
	return pgpool.WithRoundTrip(ctx, e.cfg.StatementBound())
}

// Executor runs SQL with the least privilege the database can enforce:
// logged in as a restricted role (its own connections, never the bot's), in
// a read-only transaction with a statement timeout, one statement over the
// extended protocol; it always rolls back, and DISCARD ALL cleans the
// connection before it is used again. It does not check the SQL: Backend
// puts the static guard in front of it. Errors are *warehouse.Error of kind
// Timeout, Unavailable, Invalid or Unsafe, wrapping the database's own with
// what it quoted from the data taken out (redact).
type Executor struct {
	cfg ExecConfig

	mu     sync.Mutex
	pool   *pgxpool.Pool // connected as cfg.Role; opened on first use
	closed bool
	// running counts each caller's queries, up to cfg.PerUser (callers.go).
	running callers
}

// NewExecutor returns an Executor; zero fields of cfg take defaults. It
// connects on first use.
func NewExecutor(cfg ExecConfig) *Executor {
	cfg = cfg.withDefaults()
	return &Executor{cfg: cfg, running: newCallers(cfg.PerUser)}
}

// Config returns the configuration in effect, defaults filled in.
func (e *Executor) Config() ExecConfig { return e.cfg }

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
	pctx, cancel := pgpool.Bound(ctx, e.cfg.Timeout)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
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
		return nil, warehouse.Errorf(warehouse.Unavailable, "the executor is closed")
	}
	if e.pool != nil {
		return e.pool, nil
	}
	cfg, err := e.poolConfig()
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, e.loginError(err)
	}
	e.pool = pool
	return pool, nil
}

func (e *Executor) poolConfig() (*pgxpool.Config, error) {
	raw := e.cfg.URL
	if raw == "" {
		raw = e.cfg.DatabaseURL
	}
	cfg, err := pgxpool.ParseConfig(raw)
	if err != nil {
		// pgconn redacts the password in its parse errors.
		return nil, fmt.Errorf("reader database URL: %w", err)
	}
	if e.cfg.URL == "" {
		cfg.ConnConfig.User, cfg.ConnConfig.Password = e.cfg.Role, ""
	}
	pgpool.Configure(cfg, e.cfg.Timeout)
	if t, ok := cfg.ConnConfig.Tracer.(*pgpool.Tracer); ok && t.Spans != nil {
		t.Spans = redactingTracer{t.Spans}
	}
	cfg.MaxConns = readerPoolSize
	cfg.MinConns = 0
	cfg.MaxConnIdleTime = readerIdleTime
	cfg.MaxConnLifetime = 30 * time.Minute
	cfg.ConnConfig.RuntimeParams["application_name"] = "analyticsbot-reader"
	// No prepared statements: DISCARD ALL after each query would drop them
	// under pgx's statement cache.
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	return cfg, nil
}

// loginError explains a failure to connect as the reader role: the server
// down, or refusing the role.
func (e *Executor) loginError(err error) error {
	kind := warehouse.Unavailable
	switch err = pgpool.Classify(err); {
	case pgpool.IsLoginError(err):
		kind = warehouse.Unauthorized
	case errors.Is(err, pgpool.ErrNoAnswer):
		kind = warehouse.NoAnswer
	}
	return warehouse.Errorf(kind, "cannot log in as the reader role %q (%w): run `analyticsbot migrate`, "+
		"or set READER_DATABASE_URL when the role needs a password", e.cfg.Role, err)
}

// Query runs sql and returns at most MaxRows rows of JSON-safe values.
func (e *Executor) Query(ctx context.Context, sql string) (warehouse.Result, error) {
	return e.QueryRows(ctx, sql, e.cfg.MaxRows)
}

// QueryRows runs sql and returns at most limit rows (MaxRows when limit is
// not positive); a result with more is Truncated.
func (e *Executor) QueryRows(ctx context.Context, sql string, limit int) (warehouse.Result, error) {
	return e.queryRows(ctx, sql, limit, e.cfg.MaxBytes)
}

// queryRows is QueryRows with a byte cap of its own in place of MaxBytes:
// a result with more is Truncated.
func (e *Executor) queryRows(ctx context.Context, sql string, limit, maxBytes int) (warehouse.Result, error) {
	if limit <= 0 {
		limit = e.cfg.MaxRows
	}
	var res warehouse.Result
	err := e.inReadOnlyTx(ctx, sql, func(tx pgx.Tx, sg signed) error {
		var err error
		res, err = e.read(ctx, tx, sg, sql, limit, maxBytes)
		return err
	})
	if err != nil {
		return warehouse.Result{}, fmt.Errorf("run query: %w", err)
	}
	return res, nil
}

// Explain plans sql without running it, as the executor's role, so an unknown
// column or table comes back in Postgres' own words (`column "foo" does not
// exist`) for the SQL generator to correct.
func (e *Executor) Explain(ctx context.Context, sql string) error {
	err := e.inReadOnlyTx(ctx, sql, func(tx pgx.Tx, sg signed) error {
		// The pool's QueryExecModeExec: the extended protocol, which
		// refuses a second statement smuggled after a semicolon, without
		// caching a plan made under one role for another.
		br, err := sg.send(e.statementCtx(ctx), tx, "EXPLAIN (FORMAT JSON)\n"+sql)
		if err != nil {
			return err
		}
		_, err = br.Exec()
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("explain query: %w", err)
	}
	return nil
}

// errEmptyQuery is the rejection of SQL that is empty or only whitespace.
var errEmptyQuery = warehouse.Reject("empty", "the query is empty", false)

// inReadOnlyTx runs fn in a read-only transaction on a connection logged
// in as the reader role, with the schemas and timeouts pinned, then rolls
// back whatever happened and cleans the session. fn sends its statement
// with the signature of who it runs for (signed.send).
func (e *Executor) inReadOnlyTx(ctx context.Context, sql string, fn func(pgx.Tx, signed) error) error {
	if strings.TrimSpace(sql) == "" {
		return errEmptyQuery
	}
	return e.withConn(ctx, func(conn *pgxpool.Conn) error {
		// The BEGIN and the settings go in one batch: one round trip.
		b := &pgx.Batch{}
		b.BeginTx(pgx.TxOptions{AccessMode: pgx.ReadOnly})
		var pid uint32
		var xact int64
		caller := warehouse.CallerOf(ctx)
		email := strings.ToLower(caller.Email)
		e.queueSettings(b, caller, email, &pid, &xact)
		// release rolls the transaction back, whatever happens here.
		br := conn.SendBatch(ctx, b)
		tx := br.Tx()

		if err := br.Close(); err != nil {
			return err
		}
		sg := signed{b: &pgx.Batch{}, large: new(bool)}
		sg.signs = e.queueIdentity(sg.b, identityMessage{pid, xact, caller.UserID, email, caller.ChannelID})
		err := fn(tx, sg)
		if *sg.large {
			// Closed here, release drops it from the pool with the
			// buffer the large row grew.
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanTimeout)
			_ = conn.Conn().Close(cctx)
			cancel()
		}
		// Whatever reads the error next (the generator's retry, the
		// query log) gets it without the data PostgreSQL quoted in it.
		return redact(err, sql, namesOf(ctx))
	})
}

// queueSettings queues on b the statement that pins the transaction's
// settings and reads the server's PID and the transaction's start into
// pid and xact. set_config(..., true) is SET LOCAL with bind parameters
// instead of quoted identifiers in SQL text, all in one statement; the
// settings end with the transaction. DateStyle, IntervalStyle, TimeZone
// and bytea_output pin the text formats the value conversion relies on.
// The analyticsbot.* settings say who the query runs for;
// analyticsbot.signature vouches for them over the server's own PID and
// transaction start (identity.go: one more round trip, with a key).
func (e *Executor) queueSettings(b *pgx.Batch, caller warehouse.Caller, email string, pid *uint32, xact *int64) {
	timeoutMS := max(e.cfg.StatementTimeout.Milliseconds(), 1)
	lockMS := max(e.cfg.LockTimeout.Milliseconds(), 1)
	b.Queue(`SELECT pg_backend_pid(), (extract(epoch FROM transaction_timestamp()) * 1000000)::bigint,
		set_config('analyticsbot.user_id', $4, true),
		set_config('analyticsbot.user_email', $5, true),
		set_config('analyticsbot.channel_id', $6, true),
		set_config('search_path', $1, true),
		set_config('statement_timeout', $2, true),
		set_config('lock_timeout', $3, true),
		set_config('DateStyle', 'ISO, MDY', true),
		set_config('IntervalStyle', 'postgres', true),
		set_config('TimeZone', 'UTC', true),
		set_config('bytea_output', 'hex', true),
		set_config('extra_float_digits', '1', true)`,
		searchPath(e.cfg.Schemas), strconv.FormatInt(timeoutMS, 10), strconv.FormatInt(lockMS, 10),
		caller.UserID, email, caller.ChannelID,
	).QueryRow(func(row pgx.Row) error {
		if err := row.Scan(pid, xact, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil); err != nil {
			return fmt.Errorf("prepare the read-only transaction: %w", err)
		}
		return nil
	})
}

// withConn runs fn on a connection of the reader's pool and releases it
// cleaned; the error comes back classified.
func (e *Executor) withConn(ctx context.Context, fn func(*pgxpool.Conn) error) (err error) {
	defer func() { err = e.kindOf(ctx, err) }()
	pool, err := e.readerPool(ctx)
	if err != nil {
		return err
	}
	done, err := e.running.start(ctx, warehouse.CallerOf(ctx), e.cfg.Timeout)
	if err != nil {
		return err
	}
	defer done()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		if pgpool.IsLoginError(err) {
			return e.loginError(err)
		}
		if ctx.Err() == nil && pool.Stat().AcquiredConns() >= pool.Config().MaxConns {
			// The database may be healthy: its connections were all in use.
			return errTooBusy
		}
		return err
	}
	defer e.release(ctx, conn)
	return fn(conn)
}

// searchPath is the search_path value naming schemas, each quoted.
func searchPath(schemas []string) string {
	quoted := make([]string, len(schemas))
	for i, s := range schemas {
		quoted[i] = pgx.Identifier{s}.Sanitize()
	}
	return strings.Join(quoted, ", ")
}

// cleanTimeout bounds the ROLLBACK and DISCARD ALL that clean a
// connection; they run even when the caller's context is already
// canceled.
const cleanTimeout = 5 * time.Second

// release rolls back the transaction the connection is in, if any, cleans
// the session with DISCARD ALL (settings changed for the session, session
// advisory locks, LISTEN, temporary tables, prepared statements: whatever
// a statement left behind) and returns the connection to the pool; a
// connection that cannot be cleaned is closed instead, so an aborted
// transaction cannot leak into the pool.
func (e *Executor) release(ctx context.Context, conn *pgxpool.Conn) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanTimeout)
	defer cancel()
	if conn.Conn().IsClosed() {
		conn.Release()
		return
	}
	if err := rollbackAndDiscard(cctx, conn.Conn().PgConn()); err != nil {
		raw := conn.Hijack()
		_ = raw.Close(cctx)
		return
	}
	conn.Release()
}

// rollbackAndDiscard sends the ROLLBACK (when a transaction is open) and
// the DISCARD ALL in one round trip: a pipeline with a Sync after each, so
// DISCARD ALL runs on its own, outside any transaction block, as it must.
func rollbackAndDiscard(ctx context.Context, pc *pgconn.PgConn) error {
	p := pc.StartPipeline(ctx)
	if pc.TxStatus() != 'I' {
		p.SendQueryParams("ROLLBACK", nil, nil, nil, nil)
		p.SendPipelineSync()
	}
	p.SendQueryParams("DISCARD ALL", nil, nil, nil, nil)
	p.SendPipelineSync()
	err := p.Flush()
	for err == nil {
		var r any
		if r, err = p.GetResults(); r == nil {
			break
		}
		if rr, ok := r.(*pgconn.ResultReader); ok {
			_, err = rr.Close()
		}
	}
	if cerr := p.Close(); err == nil {
		err = cerr
	}
	if err == nil && pc.TxStatus() != 'I' {
		err = fmt.Errorf("the connection is still in a transaction (status %q)", pc.TxStatus())
	}
	return err
}

// read runs sql and converts at most limit rows of at most maxBytes of
// values.
func (e *Executor) read(ctx context.Context, tx pgx.Tx, sg signed, sql string, limit, maxBytes int) (warehouse.Result, error) {
	// Canceled once enough rows are read, so the server stops producing the
	// rest instead of streaming them to be thrown away.
	qctx, cancel := context.WithCancel(e.statementCtx(ctx))
	defer cancel()

	// The pool's QueryExecModeExec: extended protocol (one statement
	// only), no statement cache (plans are per role), results in text
	// format, which every type has, so unknown types come back as their
	// text rather than failing.
	br, err := sg.send(qctx, tx, sql)
	if err != nil {
		return warehouse.Result{}, err
	}
	defer br.Close()
	rows, err := br.Query()
	if err != nil {
		return warehouse.Result{}, err
	}
	defer rows.Close()

	fields := rows.FieldDescriptions()
	typeMap := tx.Conn().TypeMap()
	res := warehouse.Result{Columns: make([]warehouse.Column, len(fields)), Rows: make([][]any, 0)}
	decoders := make([]decoder, len(fields))
	for i, f := range fields {
		res.Columns[i] = warehouse.Column{Name: f.Name, Kind: kindOfOID(typeMap, f.DataTypeOID), Type: typeName(typeMap, f.DataTypeOID)}
		decoders[i] = decoderFor(typeMap, f.DataTypeOID)
	}

	size := 0
	for rows.Next() {
		// Measured before the row limit is: the row past it is in the
		// driver's buffer all the same.
		raw := rows.RawValues()
		rowSize := 0
		for _, b := range raw {
			rowSize += len(b)
		}
		*sg.large = *sg.large || rowSize > largeRow
		if len(res.Rows) == limit {
			res.Truncated, res.LimitedBy = true, warehouse.LimitRows
			cancel()
			break
		}
		if size += rowSize; size > maxBytes {
			res.Truncated, res.LimitedBy = true, warehouse.LimitBytes
			*sg.large = true
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
		return warehouse.Result{}, err
	}
	res.RowCount = len(res.Rows)
	return res, nil
}
