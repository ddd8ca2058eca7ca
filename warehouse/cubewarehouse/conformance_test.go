package cubewarehouse_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/cube"
	"github.com/analyticsbot/analyticsbot/cube/cubetest"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/cubewarehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/warehousetest"
)

// itemsModel is a Cube model over the fixture table.
const itemsModel = `cubes:
  - name: Items
    sql_table: shop.items
    title: Items
    description: The conformance fixture.
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        sql: "{CUBE}.id"
        type: number
        primary_key: true
        public: true
      - name: name
        sql: "{CUBE}.name"
        type: string
      - name: price
        sql: "{CUBE}.price"
        type: number
      - name: active
        sql: "{CUBE}.active"
        type: boolean
`

// A real Cube server passes the suite every backend passes (its language
// cannot change data, so the unsafe check is left out).
func TestConformance(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(context.Background(), fmt.Sprintf(warehousetest.FixtureSQL, "shop"))
	require.NoError(t, err, "load the fixture")
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "items.yml"), []byte(itemsModel), 0o600))
	srv := cubetest.Start(t, url, cubetest.WithModelDir(dir))

	client, err := cube.New(cube.Config{APIURL: srv.URL, Secret: srv.Secret})
	require.NoError(t, err)
	down, err := cube.New(cube.Config{APIURL: "http://127.0.0.1:1/cubejs-api/v1", Secret: srv.Secret})
	require.NoError(t, err)
	warehousetest.RunConformance(t, warehousetest.Harness{
		Backend: cubewarehouse.New(client, cubewarehouse.Config{}),
		Table:   "Items",
		Column:  func(name string) string { return "Items." + name },
		All: `{"dimensions": ["Items.id", "Items.name", "Items.price", "Items.active"],
			"order": {"Items.id": "asc"}}`,
		AllRewritten: `{"order": [["Items.id", "asc"]],
		    "dimensions": ["Items.id", "Items.name", "Items.price", "Items.active"]}`,
		Invalid:       `{"dimensions": ["Items.colour"]}`,
		Reply:         `{"query": {"measures": ["Items.count"]}, "assumptions": [], "reasoning": "Counts items."}`,
		Unreachable:   cubewarehouse.New(down, cubewarehouse.Config{}),
		UncountedRows: true,
	})
}
