package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// IdentityKey returns the key the bot signs who a query runs for with
// (migration 00020 makes it, once per bot schema; replicas share it), so
// that the functions of IdentitySchema can tell the bot's settings from a
// query's forgery. ErrNotFound before the migration.
func (d *DB) IdentityKey(ctx context.Context) ([]byte, error) {
	var key []byte
	err := d.pool.QueryRow(ctx, `SELECT key FROM identity_key`).Scan(&key)
	if errors.Is(err, pgx.ErrNoRows) || isUndefinedTable(err) {
		return nil, fmt.Errorf("the identity key (run analyticsbot migrate): %w", ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read the identity key: %w", classify(err))
	}
	return key, nil
}

// IdentitySchema is the schema of the functions that return who a query
// runs for once the signature checks out (user_email(), user_id(),
// channel_id()): the bot's schema's name and "_identity".
func IdentitySchema(botSchema string) string {
	if botSchema == "" {
		botSchema = DefaultSchema
	}
	return botSchema + "_identity"
}
