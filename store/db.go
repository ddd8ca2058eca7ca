// Package store is the bot's own state in Postgres: conversation turns, the
// per-thread cache of query results, query logs, Slack delivery claims and
// their retention. It lives in a schema of its own (DefaultSchema), apart
// from the data questions are answered from (package warehouse), so neither
// the model nor the reader role ever sees it. Errors come in two kinds
// callers can test with errors.Is: ErrNotFound and ErrUnavailable.
package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/analyticsbot/analyticsbot/migrations"
	"github.com/analyticsbot/analyticsbot/pgpool"
)

// DefaultSchema is the schema of the bot's own tables.
const DefaultSchema = "analyticsbot"

// DB is a pool of connections to the bot's database.
type DB struct {
	pool *pgxpool.Pool
	// schema holds the bot's tables; it is the pool's search_path.
	schema string
	// where names the server and database (never the password) for messages.
	where string
	// timeout bounds each round trip (WithTimeout); 0 none.
	timeout time.Duration
	// trgm remembers where pg_trgm is (trigram.go).
	trgm trigramCache
}

// Option changes how Open connects.
type Option func(*options)

type options struct {
	schema  string
	timeout time.Duration
}

// WithSchema keeps the bot's tables in schema instead of DefaultSchema.
func WithSchema(schema string) Option { return func(o *options) { o.schema = schema } }

// WithTimeout bounds each round trip to the database (DATABASE_TIMEOUT;
// pgpool.Tracer): a wait for a connection, a statement, a batch. Without
// it nothing is bounded but the connect, as the tools that migrate and set
// up want; the serving bot always sets it. A call past it fails with an
// error wrapping ErrUnavailable (pgpool.ErrNoAnswer).
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// DefaultPoolSize is how many connections the bot's pool holds, unless
// DATABASE_URL sets pool_max_conns.
const DefaultPoolSize = 16

// Open connects to databaseURL and pings it. An unreachable server gives an
// error wrapping ErrUnavailable that names host and database. The bot's
// tables are looked up in its own schema (see WithSchema), which Migrate
// creates.
func Open(ctx context.Context, databaseURL string, opts ...Option) (*DB, error) {
	o := options{schema: DefaultSchema}
	for _, f := range opts {
		f(&o)
	}
	if o.schema == "" {
		o.schema = DefaultSchema
	}
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		// pgconn redacts the password in its parse errors.
		return nil, fmt.Errorf("open database: %w", err)
	}
	where := pgpool.Where(cfg)
	pgpool.Configure(cfg, o.timeout)
	if !strings.Contains(databaseURL, "pool_max_conns") {
		// pgxpool's default, the number of CPUs (at least 4), starves a
		// bot whose turns mostly wait on the model and then all want a
		// connection at once; DATABASE_URL's pool_max_conns=N overrides.
		cfg.MaxConns = DefaultPoolSize
	}
	// Only the bot's schema: its SQL names its tables unqualified, and
	// nothing of the analytics schemas can be reached by accident.
	cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{o.schema}.Sanitize()

	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", where, err)
	}
	d := &DB{pool: pool, schema: o.schema, where: where, timeout: o.timeout}
	if err := d.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open database %s: %w", where, err)
	}
	return d, nil
}

// maintenanceRounds is how many round trips' time (WithTimeout) each
// statement of background maintenance may take: the value index's
// refresh and its VACUUM, retention's batches. They hold no one's answer,
// write in bulk, and take longer on a busy database than a question's
// statements do; they still end when the database stops answering.
const maintenanceRounds = 10

// maintenance gives the round trips made with ctx the bound of
// background maintenance.
func (d *DB) maintenance(ctx context.Context) context.Context {
	if d.timeout <= 0 {
		return ctx
	}
	return pgpool.WithRoundTrip(ctx, maintenanceRounds*d.timeout)
}

// Ping checks the database answers, within the round-trip timeout (a ping
// is the one round trip pgx does not trace).
func (d *DB) Ping(ctx context.Context) error {
	ctx, cancel := pgpool.Bound(ctx, d.timeout)
	defer cancel()
	return classify(d.pool.Ping(ctx))
}

// Close closes every connection of the pool.
func (d *DB) Close() {
	d.pool.Close()
}

// Pool returns the underlying pool, for callers that run their own SQL.
// Its search_path is the bot's schema only.
func (d *DB) Pool() *pgxpool.Pool {
	return d.pool
}

// Schema returns the schema of the bot's tables.
func (d *DB) Schema() string { return d.schema }

// Migrate creates the bot's schema, moves the tables of an installation
// that kept them in public there, and applies every pending migration of
// package migrations. Postgres advisory locks serialise concurrent
// migrators of the same database (several replicas starting at once); a
// migration failed by a concurrent change of a shared role's row (another
// database's migration) runs again.
func (d *DB) Migrate(ctx context.Context) error {
	// A migration may rewrite a big table, and waits its turn.
	ctx = pgpool.WithRoundTrip(ctx, 0)
	if err := d.adopt(ctx); err != nil {
		return fmt.Errorf("migrate %s: %w", d.where, err)
	}
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
	// The lock holds in this database only: a migration that changes a
	// role every database shares (the reader's) may meet a twin migrating
	// another database of the server, and PostgreSQL then fails one with
	// "tuple concurrently updated". Its transaction is rolled back, so Up
	// goes on from it again.
	err = pgpool.RetryConcurrent(ctx, func() error {
		_, err := provider.Up(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("migrate %s: %w", d.where, classify(err))
	}
	return nil
}

// setupLockKey is the session-level advisory lock InTurn holds.
const setupLockKey int64 = 0x616e616c79_736574 // "analy" "set"

// InTurn runs fn, the whole of `migrate` (the migrations and the setup of
// the reader after them), in turn with every other InTurn of the
// database: two `migrate` runs at once (deploy hooks of several replicas)
// run one after the other, and the second finds the first's work done.
// The lock is a session advisory lock on a connection of its own, outside
// the pool, so fn has all of the pool's; closing it releases the lock,
// however fn ends. Locks hold within one database: what fn changes of a
// role every database shares must tolerate a concurrent twin
// (pgpool.SetupTx).
func (d *DB) InTurn(ctx context.Context, fn func() error) error {
	ctx = pgpool.WithRoundTrip(ctx, 0) // the wait for the lock is the point
	conn, err := pgx.ConnectConfig(ctx, d.pool.Config().ConnConfig)
	if err != nil {
		return fmt.Errorf("wait for the other setups of %s: %w", d.where, classify(err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", setupLockKey); err != nil {
		return fmt.Errorf("wait for the other setups of %s: %w", d.where, classify(err))
	}
	return fn()
}

// PendingMigrations counts the migrations of package migrations not
// applied to the database yet (all of them in a database never migrated).
func (d *DB) PendingMigrations(ctx context.Context) (int, error) {
	sqlDB := stdlib.OpenDBFromPool(d.pool)
	defer sqlDB.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations.FS)
	if err != nil {
		return 0, fmt.Errorf("read the migrations: %w", err)
	}
	var current int64
	err = d.pool.QueryRow(ctx, `SELECT coalesce(max(version_id), 0) FROM `+pgx.Identifier{d.schema, "goose_db_version"}.Sanitize()+` WHERE is_applied`).Scan(&current)
	if err != nil && !isUndefinedTable(err) {
		return 0, fmt.Errorf("read the applied migrations: %w", classify(err))
	}
	pending := 0
	for _, s := range provider.ListSources() {
		if s.Version > current {
			pending++
		}
	}
	return pending, nil
}

// HasExtension reports whether the extension name is installed in the
// bot's database.
func (d *DB) HasExtension(ctx context.Context, name string) (bool, error) {
	var ok bool
	err := d.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = $1)`, name).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("look up the extension %s: %w", name, classify(err))
	}
	return ok, nil
}

// isUndefinedTable reports SQLSTATE 42P01: a table that does not exist.
func isUndefinedTable(err error) bool {
	pgErr, ok := errors.AsType[*pgconn.PgError](err)
	return ok && pgErr.Code == "42P01"
}

// ownTables are the bot's tables, goose's bookkeeping first.
var ownTables = []string{"goose_db_version", "conversation_turns", "query_results", "slack_deliveries", "chat_query_logs"}

// indexLockKey is the transaction-level advisory lock createIndex takes.
const indexLockKey int64 = 0x616e616c79_6964 // "analy" "id"

// createIndex runs sql, a CREATE INDEX IF NOT EXISTS, under an advisory
// lock. Processes starting at once (several replicas) would otherwise both
// find the index missing, and one would fail on the unique index names of
// pg_class; with the lock the later one waits and finds it there.
func (d *DB) createIndex(ctx context.Context, sql string) error {
	ctx = pgpool.WithRoundTrip(ctx, 0) // the lock waits for another process's build
	return pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", indexLockKey); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, sql)
		return err
	})
}

// adoptLockKey is the transaction-level advisory lock adopt takes.
const adoptLockKey int64 = 0x616e616c79_6f776e // "analy" "own"

// adopt creates the bot's schema and, for an installation migrated before
// the bot had one, moves its tables (with their sequences and indexes) out
// of public, so they stop sitting where ANALYTICS_SCHEMA=public would
// answer questions from them.
func (d *DB) adopt(ctx context.Context) error {
	return pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", adoptLockKey); err != nil {
			return err
		}
		schema := pgx.Identifier{d.schema}.Sanitize()
		if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+schema); err != nil {
			return fmt.Errorf("create schema %s: %w", d.schema, err)
		}
		if d.schema == "public" {
			return nil
		}
		var migrated, legacy bool
		err := tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL, to_regclass('public.goose_db_version') IS NOT NULL`,
			schema+".goose_db_version").Scan(&migrated, &legacy)
		if err != nil || migrated || !legacy {
			return err
		}
		for _, t := range ownTables {
			var exists bool
			if err := tx.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", "public."+t).Scan(&exists); err != nil {
				return err
			}
			if !exists {
				continue
			}
			if _, err := tx.Exec(ctx, "ALTER TABLE "+pgx.Identifier{"public", t}.Sanitize()+" SET SCHEMA "+schema); err != nil {
				return fmt.Errorf("move table %s to schema %s: %w", t, d.schema, err)
			}
		}
		return nil
	})
}

// classify wraps err with ErrUnavailable for a lost or refused connection.
func classify(err error) error { return pgpool.Classify(err) }

// notFound turns pgx.ErrNoRows into ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	return err
}
