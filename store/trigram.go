package store

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// trigramCache remembers what every question would otherwise ask the
// database again before matching values and searching examples: the
// schema pg_trgm is installed in, and whether the values' stem index
// exists. Both change only when an operator installs, moves or drops the
// extension (or the first refresh creates the index), so they are asked
// once per DB: a statement that then fails because a trigram function,
// operator or schema is missing (staleTrigram) makes the caller forget
// them and try once more with what the database says now. pg_trgm not
// installed yet is not remembered: it is asked again each time, until it
// is; a stem index not created yet is asked again after stemsRecheck.
type trigramCache struct {
	// schema is where pg_trgm is; nil when not known.
	schema atomic.Pointer[string]
	// stems says the stem index exists; once seen (or created here:
	// PrepareValueIndex), it is assumed to stay (without it, a stemmed
	// match is slower, not wrong).
	stems atomic.Bool
	// stemsAsked is when the database last said whether the stem index
	// exists (Unix nanoseconds): an index found missing is asked about
	// again after stemsRecheck, so one that another process's first
	// refresh created is used from then on.
	stemsAsked atomic.Int64
}

// stemsRecheck is how long the stem index is taken to be missing once
// the database said so.
const stemsRecheck = time.Minute

// noStemsFresh reports that the database said, less than stemsRecheck
// ago, that the stem index is missing.
func (c *trigramCache) noStemsFresh() bool {
	at := c.stemsAsked.Load()
	return at != 0 && time.Since(time.Unix(0, at)) < stemsRecheck
}

// trigramSchemaQuery finds the schema pg_trgm is installed in: no row
// when it is not.
const trigramSchemaQuery = `SELECT n.nspname FROM pg_catalog.pg_extension e
		JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`

// trigramSchema returns the schema pg_trgm is installed in, or
// ErrNoTrigram: remembered once found (see trigramCache).
func (d *DB) trigramSchema(ctx context.Context) (string, error) {
	if s := d.trgm.schema.Load(); s != nil {
		return *s, nil
	}
	return d.lookupTrigramSchema(ctx)
}

// lookupTrigramSchema asks the database where pg_trgm is, and remembers
// it.
func (d *DB) lookupTrigramSchema(ctx context.Context) (string, error) {
	var schema string
	err := d.pool.QueryRow(ctx, trigramSchemaQuery).Scan(&schema)
	if errors.Is(err, pgx.ErrNoRows) {
		d.trgm.schema.Store(nil)
		return "", ErrNoTrigram
	}
	if err != nil {
		return "", fmt.Errorf("find pg_trgm: %w", classify(err))
	}
	d.trgm.schema.Store(&schema)
	return schema, nil
}

// staleTrigram reports an error saying that what trigramCache remembered
// is gone: a function or operator that does not exist (pg_trgm dropped or
// moved), a schema or an operator class that does not exist. It forgets
// what it remembered, so the caller's one retry asks again.
func (d *DB) staleTrigram(err error) bool {
	pgErr, ok := errors.AsType[*pgconn.PgError](err)
	if !ok {
		return false
	}
	switch pgErr.Code {
	case "42883", // undefined_function: a function or an operator
		"3F000", // invalid_schema_name
		"42704": // undefined_object: an operator class
		d.trgm.schema.Store(nil)
		d.trgm.stems.Store(false)
		d.trgm.stemsAsked.Store(0)
		return true
	}
	return false
}
