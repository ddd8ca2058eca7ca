package nodes

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// docs/schedules.md: an alert naming a column the answer has no number
// column for is refused when it is made, and only then: an answer whose
// value is missing today (no rows, or a NULL: the sum of no rows) may have
// one by the next check, so its alert is offered.
func TestAlertOnAMissingValue(t *testing.T) {
	t.Parallel()
	n, _ := newNodes(t, nil)
	ctx := context.Background()
	const sql = "SELECT sum(price) AS total FROM analytics.apps WHERE false"
	number := []warehouse.Column{{Name: "total", Type: "numeric", Kind: warehouse.KindNumber}}
	req := schedule.Request{HasWhen: true, When: alertCheck(time.UTC),
		Condition: schedule.Condition{Kind: schedule.CondAbove, Threshold: 100, Column: "total"}}
	for _, tt := range []struct {
		name   string
		result warehouse.Result
		column string
		want   string
	}{
		{"a NULL today", warehouse.Result{Columns: number, Rows: [][]any{{nil}}, RowCount: 1}, "total", ""},
		{"no rows today", warehouse.Result{Columns: number}, "total", ""},
		{"the name in any case", warehouse.Result{Columns: number}, "TOTAL", ""},
		{"no such column", warehouse.Result{Columns: number, Rows: [][]any{{nil}}, RowCount: 1}, "count",
			"The answer has no number column “count”: its columns are total."},
		{"a column that is not a number", oneCell("steam"), "source", "The answer has no number column “source”: its columns are source."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			thread := threadID(t)
			require.NoError(t, n.Cache.Put(ctx, store.CachedResult{ThreadID: thread, QueryID: pgID(sql),
				Query: pgQuery(sql), Question: "total price", Result: tt.result}))
			r := req
			r.Condition.Column = tt.column
			got := n.unclear(ctx, &State{ThreadTS: thread, UserID: "U1", ChannelID: "C1"}, store.Turn{QueryID: pgID(sql)}, r)
			assert.Equal(t, tt.want, got)
		})
	}
}
