package cubewarehouse

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// A Cube data model with no public cube leaves nothing to answer from:
// the catalog's error is no_data (docs/workflow.md, error kinds), a setup
// problem, not an empty catalog the generator would be shown.
func TestNoPublicCubesIsNoData(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, model string }{
		{name: "no cubes", model: `{"cubes": []}`},
		{name: "only a private cube", model: `{"cubes": [{"name": "Apps", "title": "Games", "public": false,
			"measures": [{"name": "Apps.count", "title": "Count", "type": "number", "aggType": "count", "isVisible": true}],
			"dimensions": [], "segments": []}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cat, err := New(&fakeCube{models: []string{tt.model}}, Config{}).Catalog(context.Background())
			require.Error(t, err, "got the catalog %+v", cat)
			assert.Equal(t, warehouse.NoData, warehouse.KindOf(err), "error kind of %v", err)
		})
	}
}
