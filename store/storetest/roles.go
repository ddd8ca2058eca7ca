package storetest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/analyticsbot/analyticsbot/pgpool"
	"github.com/analyticsbot/analyticsbot/store"
)

// SetupRoles runs sql, statements that create or grant to roles, on db as
// the migrations' role changes run (pgpool.SetupTx): roles belong to the
// whole server, and test packages running at once that change them
// directly fail now and then with "tuple concurrently updated".
func SetupRoles(t testing.TB, db *store.DB, sql string) {
	t.Helper()
	ctx := context.Background()
	err := pgpool.SetupTx(ctx, db.Pool(), func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, sql)
		return err
	})
	if err != nil {
		t.Fatalf("set up roles: %v", err)
	}
}
