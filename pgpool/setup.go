package pgpool

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// setupRetries is how many times SetupTx runs a transaction again after a
// concurrent change: each one means another transaction committed, so a
// handful of setups of databases sharing a role all get through.
const setupRetries = 8

// SetupTx runs fn in a transaction on pool that changes roles or
// privileges: it holds MigrationLockKey, so it takes turns with the
// migrations and the other such transactions of the database (PostgreSQL
// fails one of two transactions updating the same catalog row at once),
// and it runs again in a new transaction when PostgreSQL failed it all
// the same: roles belong to the whole server while an advisory lock holds
// in one database, so the setup of another database sharing a role (the
// migrations' analyticsbot_reader, a READER_ROLE named twice) may change
// the role's row meanwhile. fn must be idempotent, reading what to change
// in the transaction it is given.
func SetupTx(ctx context.Context, pool *pgxpool.Pool, fn func(pgx.Tx) error) error {
	// Taking turns may wait for a whole migration: no round-trip bound.
	waits := WithRoundTrip(ctx, 0)
	return RetryConcurrent(ctx, func() error {
		return pgx.BeginFunc(waits, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(waits, `SELECT pg_advisory_xact_lock($1)`, MigrationLockKey); err != nil {
				return err
			}
			return fn(tx)
		})
	})
}

// RetryConcurrent runs fn, a transaction that changes catalog rows every
// database of the server shares (a role's), again while it fails as a
// concurrent change (IsConcurrentChange), a few times with a short
// backoff; other errors end it at once.
func RetryConcurrent(ctx context.Context, fn func() error) error {
	attempt := func() error {
		err := fn()
		if err != nil && !IsConcurrentChange(err) {
			return backoff.Permanent(err)
		}
		return err
	}
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval = 20*time.Millisecond, time.Second
	return backoff.Retry(attempt, backoff.WithContext(backoff.WithMaxRetries(b, setupRetries), ctx))
}

// IsConcurrentChange reports PostgreSQL failing a statement because
// another transaction changed what it changes, the same row of a catalog,
// meanwhile: "tuple concurrently updated" (or deleted), an internal error
// with no code of its own; a unique violation on a catalog's index, or
// duplicate_object, when both created it; a deadlock or serialization
// failure. Run again, the transaction reads the other's change.
func IsConcurrentChange(err error) bool {
	pgErr, ok := errors.AsType[*pgconn.PgError](err)
	if !ok {
		return false
	}
	switch pgErr.Code {
	case "XX000":
		return strings.HasPrefix(pgErr.Message, "tuple concurrently ")
	case "23505":
		return strings.HasPrefix(pgErr.ConstraintName, "pg_")
	case "42710", "40P01", "40001":
		return true
	}
	return false
}
