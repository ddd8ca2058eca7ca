package cubewarehouse_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/cube"
	"github.com/analyticsbot/analyticsbot/cube/cubetest"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/cubewarehouse"
)

// numbersModel has two cubes: one of 10,000 rows, Cube's default limit,
// and one of a row more.
const numbersModel = `cubes:
  - name: Exact
    sql: SELECT n FROM shop.numbers WHERE n <= 10000
    measures:
      - name: count
        type: count
    dimensions:
      - name: n
        sql: n
        type: number
        primary_key: true
        public: true
  - name: More
    sql_table: shop.numbers
    measures:
      - name: count
        type: count
    dimensions:
      - name: n
        sql: n
        type: number
        primary_key: true
        public: true
`

// docs/cube.md: an export asks Cube for every row up to 10,000. A real
// Cube 0.33.65 with its default limits (CUBEJS_DB_QUERY_LIMIT) takes the
// export's ask of 10,001 rows: a query of 10,001 rows exports 10,000 and
// says it was cut; one of 10,000 exports them all, uncut.
func TestExportCutByRealCube(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(context.Background(), `CREATE SCHEMA shop;
		CREATE TABLE shop.numbers AS SELECT n FROM generate_series(1, 10001) n`)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "numbers.yml"), []byte(numbersModel), 0o600))
	srv := cubetest.Start(t, url, cubetest.WithModelDir(dir))
	client, err := cube.New(cube.Config{APIURL: srv.URL, Secret: srv.Secret})
	require.NoError(t, err)
	b := cubewarehouse.New(client, cubewarehouse.Config{})

	tests := []struct {
		name, cube string
		want       warehouse.ExportStats
	}{
		{name: "a row more than 10,000", cube: "More", want: warehouse.ExportStats{Rows: 10_000, Truncated: true}},
		{name: "10,000 rows", cube: "Exact", want: warehouse.ExportStats{Rows: 10_000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var csv bytes.Buffer
			q := warehouse.Query{Backend: cubewarehouse.Name,
				Text: `{"dimensions": ["` + tt.cube + `.n"], "order": {"` + tt.cube + `.n": "asc"}}`}
			st, err := b.Export(context.Background(), q, &csv, warehouse.ExportLimit{})
			require.NoError(t, err, "Cube's log:\n%s", srv.Log())
			assert.Equal(t, tt.want, st)
			lines := strings.Split(strings.TrimSuffix(csv.String(), "\n"), "\n")
			require.Len(t, lines, 10_001, "header and rows")
			assert.Equal(t, "10000", lines[len(lines)-1], "the last row exported")
		})
	}
}
