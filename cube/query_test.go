package cube

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOrderJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    Order
		wantErr string
	}{
		{name: "array form", in: `[["Apps.count","desc"],["Apps.name","asc"]]`, want: Order{{"Apps.count", "desc"}, {"Apps.name", "asc"}}},
		{name: "object form keeps key order", in: `{"Apps.name":"asc","Apps.count":"desc","Apps.avgPrice":"asc"}`,
			want: Order{{"Apps.name", "asc"}, {"Apps.count", "desc"}, {"Apps.avgPrice", "asc"}}},
		{name: "object form reversed", in: `{"Apps.count":"desc","Apps.name":"asc"}`, want: Order{{"Apps.count", "desc"}, {"Apps.name", "asc"}}},
		{name: "form Cube echoes", in: `[{"id":"Apps.count","desc":true},{"id":"Apps.name","desc":false}]`,
			want: Order{{"Apps.count", "desc"}, {"Apps.name", "asc"}}},
		{name: "member without direction", in: `[["Apps.count"]]`, want: Order{{"Apps.count", ""}}},
		{name: "empty object", in: `{}`, want: Order{}},
		{name: "null", in: `null`, want: nil},
		{name: "direction not a string", in: `{"Apps.count":1}`, wantErr: `order of Apps.count: want "asc" or "desc"`},
		{name: "three-element pair", in: `[["a","b","c"]]`, wantErr: "want [member, direction]"},
		{name: "a number", in: `5`, wantErr: "order: want [[member, direction], ...] or {member: direction}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got Order
			err := json.Unmarshal([]byte(tt.in), &got)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr, "got error %q, want it to contain %q", err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestQueryJSON(t *testing.T) {
	t.Parallel()
	var q Query
	require.NoError(t, json.Unmarshal([]byte(`{
		"measures": ["Apps.count"], "dimensions": ["Apps.name"],
		"filters": [{"or": [{"member": "Apps.price", "operator": "gt", "values": ["5"]}, {"member": "Apps.isFree", "operator": "equals", "values": [true]}]}],
		"timeDimensions": [{"dimension": "Apps.releaseDate", "granularity": "year", "dateRange": ["2018-01-01", "2018-12-31"]}],
		"order": {"Apps.count": "desc", "Apps.name": "asc"}, "limit": 10}`), &q))
	assert.Equal(t, Order{{"Apps.count", "desc"}, {"Apps.name", "asc"}}, q.Order)

	got, err := json.Marshal(q)
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"measures": ["Apps.count"], "dimensions": ["Apps.name"],
		"filters": [{"or": [{"member": "Apps.price", "operator": "gt", "values": ["5"]}, {"member": "Apps.isFree", "operator": "equals", "values": [true]}]}],
		"timeDimensions": [{"dimension": "Apps.releaseDate", "granularity": "year", "dateRange": ["2018-01-01", "2018-12-31"]}],
		"order": [["Apps.count", "desc"], ["Apps.name", "asc"]], "limit": 10}`, string(got))

	got, err = json.Marshal(Query{Measures: []string{"Apps.count"}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"measures": ["Apps.count"]}`, string(got), "got %s, want empty fields left out", got)
}
