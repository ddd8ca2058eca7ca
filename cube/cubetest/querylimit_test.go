package cubetest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/cube"
	"github.com/analyticsbot/analyticsbot/cube/cubetest"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// rowsModel is a cube of 12 rows.
const rowsModel = `cubes:
  - name: Rows
    sql_table: shop.rows
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

// A Cube whose CUBEJS_DB_QUERY_LIMIT is 5 refuses a query asking for 6
// rows with ErrQueryLimit (not as unavailable: Cube answers, and asking
// within the limit works), and counts every row when asked (total).
func TestQueryLimit(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(context.Background(), `CREATE SCHEMA shop;
		CREATE TABLE shop.rows AS SELECT n FROM generate_series(1, 12) n`)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rows.yml"), []byte(rowsModel), 0o600))
	srv := cubetest.Start(t, url, cubetest.WithModelDir(dir), cubetest.WithEnv("CUBEJS_DB_QUERY_LIMIT", "5"))
	client, err := cube.New(cube.Config{APIURL: srv.URL, Secret: srv.Secret})
	require.NoError(t, err)
	ctx := context.Background()
	q := cube.Query{Dimensions: []string{"Rows.n"}, Order: cube.Order{{Member: "Rows.n", Direction: "asc"}}}

	over := q
	over.Limit = 6
	_, err = client.Load(ctx, over)
	require.ErrorIs(t, err, cube.ErrQueryLimit)
	assert.NotErrorIs(t, err, cube.ErrUnavailable)

	tests := []struct {
		name      string
		limit     int
		total     bool
		wantRows  int
		wantTotal int64
	}{
		{name: "at the limit", limit: 5, wantRows: 5},
		{name: "no limit, counted", total: true, wantRows: 5, wantTotal: 12},
		{name: "a lower limit, counted", limit: 3, total: true, wantRows: 3, wantTotal: 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := q
			q.Limit, q.Total = tt.limit, tt.total
			res, err := client.Load(ctx, q)
			require.NoError(t, err)
			assert.Len(t, res.Rows, tt.wantRows, "rows")
			assert.Equal(t, tt.wantTotal, res.Total, "Cube's count")
		})
	}
}
