package nodes

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/cube"
)

// fakeCube serves a one-cube model whose names dimension has 60 values.
type fakeCube struct{ loaded []cube.Query }

func (f *fakeCube) Meta(context.Context) (*cube.Meta, error) {
	return cube.ParseMeta([]byte(`{"cubes": [{"name": "Apps", "title": "Games", "public": true,
		"measures": [{"name": "Apps.count", "title": "Count", "type": "number", "aggType": "count", "isVisible": true}],
		"dimensions": [{"name": "Apps.name", "title": "Name", "type": "string", "isVisible": true}],
		"segments": []}]}`))
}

func (f *fakeCube) Load(_ context.Context, q cube.Query) (*cube.Result, error) {
	f.loaded = append(f.loaded, q)
	r := &cube.Result{Columns: []cube.Column{{Name: "name", Member: "Apps.name", Type: "string"}}}
	for i := range min(q.Limit, 60) {
		r.Rows = append(r.Rows, []any{string(rune('A'+i%26)) + string(rune('a'+i/26))})
	}
	return r, nil
}

func (f *fakeCube) SQL(context.Context, cube.Query) (string, error) { return "SELECT 1", nil }

// A limit the validator imposed is a cap the result may have been cut at;
// a limit the model chose is part of the answer.
func TestCubeLimitCapOrAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		query         string
		wantRunLimit  int
		wantRows      int
		wantTruncated bool
	}{
		{name: "no limit: the default cap cut 60 names", query: `{"dimensions": ["Apps.name"]}`,
			wantRunLimit: cube.DefaultLimit + 1, wantRows: cube.DefaultLimit, wantTruncated: true},
		{name: "too large a limit: clamped", query: `{"dimensions": ["Apps.name"], "limit": 500}`,
			wantRunLimit: cube.MaxLimit + 1, wantRows: 60},
		{name: "the model's top 5", query: `{"dimensions": ["Apps.name"], "limit": 5}`,
			wantRunLimit: 5, wantRows: 5},
		{name: "the model asked for exactly the default", query: `{"dimensions": ["Apps.name"], "limit": 50}`,
			wantRunLimit: 50, wantRows: 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, _ := newNodes(t, nil)
			fc := &fakeCube{}
			n.Cube = fc
			s := State{UserQuery: "q", SQL: tt.query, ThreadTS: threadID(t)}
			require.NoError(t, n.ValidateSQL(context.Background(), &s))
			require.True(t, s.Valid, s.ErrorDetail)
			var run cube.Query
			require.NoError(t, json.Unmarshal([]byte(s.RunSQL), &run))
			assert.Equal(t, tt.wantRunLimit, run.Limit, "limit of the query that runs")

			require.NoError(t, n.ExecuteSQL(context.Background(), &s))
			require.Empty(t, s.ErrorKind, s.ErrorDetail)
			assert.Equal(t, tt.wantRows, s.Result.RowCount, "rows shown")
			assert.Equal(t, tt.wantTruncated, s.Result.Truncated, "marked as cut")
		})
	}
}
