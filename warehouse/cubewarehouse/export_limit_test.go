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

// Values reads at most 10,000 values of a dimension, asking Cube for one
// more to tell whether there are more: a column of more than 10,000 with
// a larger limit asked (VALUE_INDEX_MAX_DISTINCT's 50,000 and one) is an
// error, never its first 10,000 passed off as all of them
// (warehouse.Backend.Values), so the value index counts it as failed.
func TestValuesOfMoreThan10000IsAnError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		names, limit  int
		wantLoadLimit int
		wantValues    int // -1: an error
	}{
		{name: "more than 10,000, asked for more", names: 20_000, limit: 50_001, wantLoadLimit: 10_001, wantValues: -1},
		{name: "10,001, asked for more", names: 10_001, limit: 50_001, wantLoadLimit: 10_001, wantValues: -1},
		{name: "10,000, asked for more", names: 10_000, limit: 50_001, wantLoadLimit: 10_001, wantValues: 10_000},
		{name: "a few, asked for more", names: 60, limit: 50_001, wantLoadLimit: 10_001, wantValues: 60},
		{name: "more than the limit asked", names: 20_000, limit: 10_001, wantLoadLimit: 10_001, wantValues: 10_001},
		{name: "a smaller limit", names: 20_000, limit: 500, wantLoadLimit: 500, wantValues: 500},
		{name: "no limit: Cube's 10,000", names: 20_000, limit: 0, wantLoadLimit: 10_000, wantValues: 10_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fc := &fakeCube{names: tt.names}
			got, err := New(fc, Config{}).Values(context.Background(), warehouse.ColumnRef{Table: "Apps", Column: "Apps.name"}, tt.limit)
			require.Len(t, fc.loaded, 1, "one query to Cube")
			assert.Equal(t, tt.wantLoadLimit, fc.loaded[0].Limit, "the values asked of Cube")
			if tt.wantValues < 0 {
				require.Error(t, err, "got %d values", len(got.Distinct))
				assert.Contains(t, err.Error(), "more than 10000 values")
				return
			}
			require.NoError(t, err)
			assert.Len(t, got.Distinct, tt.wantValues, "values")
		})
	}
}
