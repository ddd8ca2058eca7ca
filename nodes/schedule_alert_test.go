package nodes

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// docs/schedules.md: an alert naming a column the answer has no number
// column for is refused when it is made, and only then: an answer whose
// value is missing today (no rows, or a NULL: the sum of no rows) may have
// one by the next check, so its alert is offered.
func TestAlertOnAMissingValue(t *testing.T) {
	t.Parallel()
	n, _ := newNodes(t, nil)
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
			r := req
			r.Condition.Column = tt.column
			got := n.unclear(&State{ThreadTS: "1700000000.000100", UserID: "U1", ChannelID: "C1"}, r, &tt.result)
			assert.Equal(t, tt.want, got)
		})
	}
}

// docs/schedules.md: an alert on a value whose words name no column reads
// the answer's one number column, and says which; an answer with several
// numbers, or none, is asked about instead of watching whichever comes
// first (a year beside a count would always be above 100).
func TestAlertWatchesTheAnswersOneNumber(t *testing.T) {
	t.Parallel()
	num := func(name string) warehouse.Column {
		return warehouse.Column{Name: name, Type: "bigint", Kind: warehouse.KindNumber}
	}
	text := warehouse.Column{Name: "genre", Type: "text", Kind: warehouse.KindText}
	above := schedule.Condition{Kind: schedule.CondAbove, Threshold: 100}
	for _, tt := range []struct {
		name    string
		cols    []warehouse.Column // nil: the answer's result is not at hand
		cond    schedule.Condition
		want    string // the condition's words
		wantAsk string
	}{
		{name: "one number", cols: []warehouse.Column{text, num("games")}, cond: above, want: "when games is above 100"},
		{name: "several numbers", cols: []warehouse.Column{num("year"), num("games")}, cond: above,
			want:    "when the value is above 100",
			wantAsk: "The answer has several numbers (year, games): say which to watch, e.g. “alert me when games is above 100”."},
		{name: "no number", cols: []warehouse.Column{text}, cond: schedule.Condition{Kind: schedule.CondChange},
			want:    "when the value changes",
			wantAsk: "The answer has no number to watch: its columns are genre."},
		{name: "a column named", cols: []warehouse.Column{num("year"), num("games")},
			cond: schedule.Condition{Kind: schedule.CondBelow, Threshold: 5, Column: "year"}, want: "when year is below 5"},
		{name: "rows, not a value", cols: []warehouse.Column{num("year"), num("games")},
			cond: schedule.Condition{Kind: schedule.CondAnyRows}, want: "when any row appears"},
		{name: "no result at hand", cond: above, want: "when the value is above 100"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var res *warehouse.Result
			if tt.cols != nil {
				res = &warehouse.Result{Columns: tt.cols}
			}
			got, ask := watchedColumn(tt.cond, res)
			assert.Equal(t, tt.want, got.Describe())
			assert.Equal(t, tt.wantAsk, ask)
		})
	}
}
