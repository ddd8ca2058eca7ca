package pgpool_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/pgpool"
)

// Which failures SetupTx runs a transaction again after: the ones a
// concurrent twin causes, and no other (a refusal or a mistake would only
// fail again).
func TestIsConcurrentChange(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"a row two transactions updated", &pgconn.PgError{Code: "XX000", Message: "tuple concurrently updated"}, true},
		{"a row one transaction deleted", &pgconn.PgError{Code: "XX000", Message: "tuple concurrently deleted"}, true},
		{"wrapped", fmt.Errorf("set up the reader role r: ALTER ROLE r: %w",
			&pgconn.PgError{Code: "XX000", Message: "tuple concurrently updated"}), true},
		{"a role two transactions created", &pgconn.PgError{Code: "23505", ConstraintName: "pg_authid_rolname_index"}, true},
		{"a role created meanwhile", &pgconn.PgError{Code: "42710", Message: `role "r" already exists`}, true},
		{"a deadlock", &pgconn.PgError{Code: "40P01"}, true},
		{"another internal error", &pgconn.PgError{Code: "XX000", Message: "cache lookup failed for role 1"}, false},
		{"a unique violation on a table of the bot", &pgconn.PgError{Code: "23505", ConstraintName: "examples_pkey"}, false},
		{"no right to grant", &pgconn.PgError{Code: "42501"}, false},
		{"not from PostgreSQL", errors.New("connection reset"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, pgpool.IsConcurrentChange(tt.err))
		})
	}
}
