package cube

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMeta(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.script("meta", ok(readFile(t, "testdata/meta-0.33.json")))

	m, err := f.client().Meta(t.Context())
	require.NoError(t, err)

	calls := f.calls()
	require.Len(t, calls, 1)
	assert.Equal(t, "GET", calls[0].method)
	assert.Equal(t, "/cubejs-api/v1/meta", calls[0].path)

	require.Len(t, m.Cubes, 2, "got %d cubes, want Apps and Publishers", len(m.Cubes))
	apps := m.Cubes[0]
	assert.Equal(t, "Apps", apps.Name)
	assert.Equal(t, "Steam apps", apps.Title)
	assert.Equal(t, "One row per game on the Steam store (2019 snapshot).", apps.Description)
	assert.Equal(t, []Member{
		{Name: "Apps.avgPrice", Title: "Steam apps Avg Price", ShortTitle: "Avg Price", Description: "Average price in USD", Type: "number", AggType: "avg"},
		{Name: "Apps.count", Title: "Steam apps Count", ShortTitle: "Count", Description: "Number of apps", Type: "number", AggType: "count"},
		{Name: "Apps.totalPositive", Title: "Steam apps Total Positive", ShortTitle: "Total Positive", Type: "number", AggType: "sum"},
	}, apps.Measures, "measures, sorted by name")
	var dims []string
	for _, d := range apps.Dimensions {
		dims = append(dims, d.Name+":"+d.Type)
	}
	assert.Equal(t, []string{"Apps.isFree:boolean", "Apps.name:string", "Apps.positiveRatings:number", "Apps.price:number", "Apps.releaseDate:time"}, dims)
	assert.Equal(t, []Member{{Name: "Apps.free", Title: "Steam apps Free", ShortTitle: "Free", Description: "Free-to-play apps only"}}, apps.Segments)
	assert.Equal(t, "Publishers", m.Cubes[1].Name)
}

func TestMetaHidden(t *testing.T) {
	t.Parallel()
	// Cube 1.x lists private members with "public": false to some callers;
	// "isVisible": false is a member its author hid.
	m, err := ParseMeta([]byte(`{"cubes": [
		{"name": "Orders", "type": "cube", "public": true,
		 "measures": [{"name": "Orders.count", "type": "number", "aggType": "count"},
		              {"name": "Orders.internal", "type": "number", "public": false},
		              {"name": "Orders.hidden", "type": "number", "isVisible": false}],
		 "dimensions": [{"name": "Orders.status", "type": "string", "public": true, "isVisible": true}],
		 "segments": []},
		{"name": "Secret", "type": "cube", "public": false,
		 "measures": [{"name": "Secret.count", "type": "number"}], "dimensions": [], "segments": []},
		{"name": "OrdersView", "type": "view",
		 "measures": [{"name": "OrdersView.count", "type": "number"}], "dimensions": [], "segments": []}
	]}`))
	require.NoError(t, err)
	var names []string
	for _, c := range m.Cubes {
		for _, list := range [][]Member{c.Measures, c.Dimensions, c.Segments} {
			for _, mem := range list {
				names = append(names, mem.Name)
			}
		}
	}
	assert.Equal(t, []string{"Orders.count", "Orders.status", "OrdersView.count"}, names, "got %v, want private and hidden members left out", names)

	_, err = ParseMeta([]byte(`{"cubes": 3}`))
	require.Error(t, err)
}

func TestLookup(t *testing.T) {
	t.Parallel()
	m := testMeta(t)
	tests := []struct {
		name     string
		member   string
		wantKind Kind
		wantType string
		wantOK   bool
	}{
		{name: "measure", member: "Apps.count", wantKind: KindMeasure, wantType: "number", wantOK: true},
		{name: "time dimension", member: "Apps.releaseDate", wantKind: KindDimension, wantType: "time", wantOK: true},
		{name: "string dimension of another cube", member: "Publishers.name", wantKind: KindDimension, wantType: "string", wantOK: true},
		{name: "segment", member: "Apps.free", wantKind: KindSegment, wantOK: true},
		{name: "unknown member", member: "Apps.pricee"},
		{name: "unknown cube", member: "Games.count"},
		{name: "not qualified", member: "count"},
		{name: "case matters, as in Cube", member: "apps.count"},
		{name: "private measure", member: "Apps.secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mem, kind, ok := m.Lookup(tt.member)
			require.Equal(t, tt.wantOK, ok, "Lookup(%q): got ok %v, want %v", tt.member, ok, tt.wantOK)
			if !ok {
				return
			}
			assert.Equal(t, tt.member, mem.Name)
			assert.Equal(t, tt.wantKind, kind, "got kind %s, want %s", kind, tt.wantKind)
			assert.Equal(t, tt.wantType, mem.Type)
		})
	}
}

func TestKindString(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "measure", KindMeasure.String())
	assert.Equal(t, "dimension", KindDimension.String())
	assert.Equal(t, "segment", KindSegment.String())
	assert.Equal(t, "Kind(0)", Kind(0).String())
}
