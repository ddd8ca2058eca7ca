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

// startNumbers starts a real Cube on numbersModel (10,000 and 10,001
// rows) whose CUBEJS_DB_QUERY_LIMIT is queryLimit, and returns the backend.
func startNumbers(t *testing.T, queryLimit string) *cubewarehouse.Backend {
	t.Helper()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(context.Background(), `CREATE SCHEMA shop;
		CREATE TABLE shop.numbers AS SELECT n FROM generate_series(1, 10001) n`)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "numbers.yml"), []byte(numbersModel), 0o600))
	srv := cubetest.Start(t, url, cubetest.WithModelDir(dir), cubetest.WithEnv("CUBEJS_DB_QUERY_LIMIT", queryLimit))
	client, err := cube.New(cube.Config{APIURL: srv.URL, Secret: srv.Secret})
	require.NoError(t, err)
	return cubewarehouse.New(client, cubewarehouse.Config{})
}

// exported runs an export of text on b and returns its stats and the CSV's
// lines (header first).
func exported(t *testing.T, b *cubewarehouse.Backend, text string) (warehouse.ExportStats, []string) {
	t.Helper()
	var csv bytes.Buffer
	st, err := b.Export(context.Background(), warehouse.Query{Backend: cubewarehouse.Name, Text: text}, &csv, warehouse.ExportLimit{})
	require.NoError(t, err)
	return st, strings.Split(strings.TrimSuffix(csv.String(), "\n"), "\n")
}

// docs/cube.md: a Cube whose CUBEJS_DB_QUERY_LIMIT is 10,000 refuses the
// export's ask of 10,001 rows ("The query limit has been exceeded."); the
// export asks again for what Cube gives, with Cube's count of every row,
// and says how many rows it wrote of how many.
func TestExportWithinCubeQueryLimit(t *testing.T) {
	t.Parallel()
	b := startNumbers(t, "10000")
	tests := []struct {
		name, cube string
		want       warehouse.ExportStats
	}{
		{name: "a row more than 10,000", cube: "More", want: warehouse.ExportStats{Rows: 10_000, Truncated: true, Total: 10_001}},
		{name: "10,000 rows", cube: "Exact", want: warehouse.ExportStats{Rows: 10_000, Total: 10_000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, lines := exported(t, b, `{"dimensions": ["`+tt.cube+`.n"], "order": {"`+tt.cube+`.n": "asc"}}`)
			assert.Equal(t, tt.want, st)
			require.Len(t, lines, 10_001, "header and rows")
			assert.Equal(t, "10000", lines[len(lines)-1], "the last row exported")
		})
	}
}

// A Cube whose CUBEJS_DB_QUERY_LIMIT is below what an answer asks (its cap
// of 50 and a row more, or a limit the model chose) answers with the rows
// it allows, cut and said to be; exports and the value index work too.
func TestAnswerWithinCubeQueryLimit(t *testing.T) {
	t.Parallel()
	b := startNumbers(t, "30")
	ctx := context.Background()

	t.Run("answers", func(t *testing.T) {
		tests := []struct {
			name, text    string
			wantRows      int
			wantTruncated bool
		}{
			{name: "the cap", text: `{"dimensions": ["More.n"], "order": {"More.n": "asc"}}`, wantRows: 30, wantTruncated: true},
			{name: "the model's limit", text: `{"dimensions": ["More.n"], "order": {"More.n": "asc"}, "limit": 40}`, wantRows: 30, wantTruncated: true},
			{name: "within the limit", text: `{"dimensions": ["More.n"], "order": {"More.n": "asc"}, "limit": 20}`, wantRows: 20},
			{name: "fewer rows than the limit", text: `{"dimensions": ["More.n"], "filters": [{"member": "More.n", "operator": "lte", "values": [25]}], "order": {"More.n": "asc"}, "limit": 40}`, wantRows: 25},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r, err := b.Check(ctx, tt.text, 0)
				require.NoError(t, err)
				res, err := b.Run(ctx, r)
				require.NoError(t, err)
				assert.Equal(t, tt.wantRows, res.RowCount, "rows")
				assert.Equal(t, tt.wantTruncated, res.Truncated, "cut")
				assert.Equal(t, int64(tt.wantRows), res.Rows[len(res.Rows)-1][0], "the last row")
			})
		}
	})

	t.Run("export", func(t *testing.T) {
		st, lines := exported(t, b, `{"dimensions": ["More.n"], "order": {"More.n": "asc"}}`)
		assert.Equal(t, warehouse.ExportStats{Rows: 30, Truncated: true, Total: 10_001}, st)
		require.Len(t, lines, 31, "header and rows")
		st, _ = exported(t, b, `{"dimensions": ["More.n"], "order": {"More.n": "asc"}, "limit": 40}`)
		assert.Equal(t, warehouse.ExportStats{Rows: 30, Truncated: true, Total: 40}, st, "of the 40 the query asks")
	})

	t.Run("show sql", func(t *testing.T) {
		shown := b.Show(ctx, warehouse.Query{Backend: cubewarehouse.Name, Text: `{"dimensions": ["More.n"], "limit": 40}`})
		assert.Contains(t, shown.SQL, "SELECT", "the SQL Cube runs for the query asked within its limit")
	})

	t.Run("values", func(t *testing.T) {
		v, err := b.Values(ctx, warehouse.ColumnRef{Table: "More", Column: "More.n"}, 0)
		require.NoError(t, err)
		assert.Len(t, v.Distinct, 30)
	})
}

// A real Cube's dimension of 10,001 values, asked for the value index's
// 50,001: an error, not its first 10,000; one of 10,000 is read whole.
func TestValuesBeyond10000WithCube(t *testing.T) {
	t.Parallel()
	b := startNumbers(t, "50000")
	ctx := context.Background()
	_, err := b.Values(ctx, warehouse.ColumnRef{Table: "More", Column: "More.n"}, 50_001)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "more than 10000 values")
	v, err := b.Values(ctx, warehouse.ColumnRef{Table: "Exact", Column: "Exact.n"}, 50_001)
	require.NoError(t, err)
	assert.Len(t, v.Distinct, 10_000)
}
