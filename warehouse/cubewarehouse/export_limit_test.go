package cubewarehouse

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// An export asks Cube for every row up to 10,000, Cube's default limit
// (docs/cube.md): however large EXPORT_MAX_ROWS is, the query Cube gets
// asks for 10,001 rows, the last only telling a cut; a query of more rows
// exports 10,000 and says it was cut. A smaller limit is kept.
func TestExportAsksForAtMost10000Rows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		limit         int
		wantLoadLimit int
		wantRows      int
	}{
		{name: "a limit beyond Cube's cap", limit: 1_000_000, wantLoadLimit: 10_001, wantRows: 10_000},
		{name: "no limit", limit: 0, wantLoadLimit: 10_001, wantRows: 10_000},
		{name: "a smaller limit", limit: 500, wantLoadLimit: 501, wantRows: 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fc := &fakeCube{names: 20_000}
			var csv bytes.Buffer
			st, err := New(fc, Config{}).Export(context.Background(), warehouse.Query{Backend: Name, Text: `{"dimensions": ["Apps.name"]}`}, &csv, warehouse.ExportLimit{Rows: tt.limit})
			require.NoError(t, err)
			require.Len(t, fc.loaded, 1, "one query to Cube")
			assert.Equal(t, tt.wantLoadLimit, fc.loaded[0].Limit, "the rows asked of Cube")
			assert.False(t, fc.loaded[0].Total, "no count asked: it is a second query for Cube")
			assert.Equal(t, warehouse.ExportStats{Rows: tt.wantRows, Truncated: true}, st, "rows exported, and cut")
			assert.Equal(t, tt.wantRows+1, bytes.Count(csv.Bytes(), []byte("\n")), "header and rows")
		})
	}
}

// Cube's count of every row (total) is a second query for Cube, so it is
// asked only of a Cube that refused the export's limit, in the one query
// asked again within Cube's own limit.
func TestExportCountsOnlyAfterARefusal(t *testing.T) {
	t.Parallel()
	fc := &fakeCube{names: 20_000, queryLimit: 5_000}
	var csv bytes.Buffer
	st, err := New(fc, Config{}).Export(context.Background(), warehouse.Query{Backend: Name, Text: `{"dimensions": ["Apps.name"]}`}, &csv, warehouse.ExportLimit{})
	require.NoError(t, err)
	require.Len(t, fc.loaded, 2, "the refused query, then one within Cube's limit")
	assert.Equal(t, []int{10_001, 0}, []int{fc.loaded[0].Limit, fc.loaded[1].Limit}, "the limits asked")
	assert.Equal(t, []bool{false, true}, []bool{fc.loaded[0].Total, fc.loaded[1].Total}, "the count asked")
	assert.Equal(t, warehouse.ExportStats{Rows: 5_000, Truncated: true, Total: 20_000}, st)
}

// Should Cube refuse even a query naming no limit, the user is not told
// Cube is unavailable: it is a query Cube refused (its limit), which a
// smaller limit fixes.
func TestQueryLimitRefusalIsNoOutage(t *testing.T) {
	t.Parallel()
	fc := &fakeCube{refuseAll: true}
	_, err := New(fc, Config{}).Export(context.Background(), warehouse.Query{Backend: Name, Text: `{"dimensions": ["Apps.name"]}`}, &bytes.Buffer{}, warehouse.ExportLimit{})
	require.Error(t, err)
	assert.Equal(t, warehouse.Invalid, warehouse.KindOf(err), "got %v", err)
	var we *warehouse.Error
	require.ErrorAs(t, err, &we)
	assert.Equal(t, "query_limit", we.Class)
}
