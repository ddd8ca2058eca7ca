package cubewarehouse

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/cube"
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

// testClock is a time that moves only when the test moves it.
type testClock struct{ now time.Time }

func (c *testClock) Now() time.Time { return c.now }

// Cube's data model is kept 5 minutes (docs/cube.md, docs/workflow.md):
// questions within them read it once; the first after them reads it again.
func TestModelKeptFiveMinutes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := &testClock{now: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)}
	fc := &fakeCube{}
	b := New(fc, Config{Now: clock.Now})

	_, err := b.Catalog(ctx)
	require.NoError(t, err)
	clock.now = clock.now.Add(5*time.Minute - time.Second)
	_, err = b.Catalog(ctx)
	require.NoError(t, err)
	_, err = b.Check(ctx, `{"measures": ["Apps.count"]}`, 100)
	require.NoError(t, err)
	assert.Equal(t, 1, fc.metaCalls, "the model read once within 5 minutes")

	clock.now = clock.now.Add(time.Second)
	_, err = b.Catalog(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, fc.metaCalls, "read again after 5 minutes")
}

// A query naming a member the kept model lacks fetches the model again at
// once (docs/cube.md): the model may have changed since. A member the
// fresh model has too is refused, and a known one reads nothing.
func TestUnknownMemberFetchesTheModelAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := &testClock{now: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)}
	withPlayers := strings.Replace(oneCube, `"measures": [`,
		`"measures": [{"name": "Apps.players", "title": "Players", "type": "number", "aggType": "sum", "isVisible": true}, `, 1)
	fc := &fakeCube{models: []string{oneCube, withPlayers}}
	b := New(fc, Config{Now: clock.Now})
	_, err := b.Catalog(ctx)
	require.NoError(t, err)

	r, err := b.Check(ctx, `{"measures": ["Apps.players"]}`, 100)
	require.NoError(t, err, "a member the model gained within the 5 minutes")
	assert.Contains(t, r.Query.Text, "Apps.players")
	assert.Equal(t, 2, fc.metaCalls, "the model read again at once")

	_, err = b.Check(ctx, `{"measures": ["Apps.count"]}`, 100)
	require.NoError(t, err)
	assert.Equal(t, 2, fc.metaCalls, "a known member reads nothing")

	_, err = b.Check(ctx, `{"measures": ["Apps.revenue"]}`, 100)
	assert.Equal(t, warehouse.Invalid, warehouse.KindOf(err), "a member no model has: %v", err)
	assert.Equal(t, 3, fc.metaCalls, "checked against a fresh model before it is refused")
}

// A member the kept model still has but Cube no longer does (renamed or
// removed within the 5 minutes) is refused by Cube itself, "not found for
// path": the model is read again at once, so the generator's retry is
// shown, and checked against, the model as it is now.
func TestCubeMissingMemberFetchesTheModelAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	withPlayers := strings.Replace(oneCube, `"measures": [`,
		`"measures": [{"name": "Apps.players", "title": "Players", "type": "number", "aggType": "sum", "isVisible": true}, `, 1)
	fc := &fakeCube{models: []string{withPlayers, oneCube},
		refuse: &cube.QueryError{Message: "'players' not found for path 'Apps.players'"}}
	b := New(fc, Config{})

	r, err := b.Check(ctx, `{"measures": ["Apps.players"]}`, 100)
	require.NoError(t, err, "the kept model has it")
	_, err = b.Run(ctx, r)
	assert.Equal(t, warehouse.Invalid, warehouse.KindOf(err), "for the generator to rewrite: %v", err)
	assert.Equal(t, 2, fc.metaCalls, "the model read again after Cube's refusal")

	cat, err := b.Catalog(ctx)
	require.NoError(t, err)
	require.Len(t, cat.Tables, 1)
	for _, c := range cat.Tables[0].Columns {
		assert.NotEqual(t, "Apps.players", c.Name, "the retry's prompt no longer offers the member")
	}
	_, err = b.Check(ctx, `{"measures": ["Apps.players"]}`, 100)
	assert.Equal(t, warehouse.Invalid, warehouse.KindOf(err), "the retry is checked against the model as it is: %v", err)
}
