package pgwarehouse_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/warehousetest"
)

// PostgreSQL passes the suite every backend passes.
func TestConformance(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(context.Background(), fmt.Sprintf(warehousetest.FixtureSQL, "shop"))
	require.NoError(t, err, "load the fixture")
	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{DatabaseURL: url, Schemas: []string{"shop"}}})
	t.Cleanup(b.Close)
	down := pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{
		URL: "postgres://analyticsbot_reader@127.0.0.1:1/nowhere?sslmode=disable&connect_timeout=2", Schemas: []string{"shop"}}})
	t.Cleanup(down.Close)
	warehousetest.RunConformance(t, warehousetest.Harness{
		Backend:      b,
		Schema:       "shop",
		Table:        warehousetest.FixtureTable,
		All:          "SELECT id, name, price, active FROM shop.items ORDER BY id",
		AllRewritten: "select id, name,\n       price, active\n  from shop.items\n order by id;",
		Invalid:      "SELECT colour FROM shop.items",
		Unsafe:       "DELETE FROM shop.items",
		Reply:        `{"sql": "SELECT count(*) AS n FROM shop.items", "assumptions": [], "explanation": "Counts items."}`,
		Unreachable:  down,
	})
}
