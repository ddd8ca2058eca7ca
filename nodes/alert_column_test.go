package nodes

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// docs/schedules.md: an alert reads, in the first row, the number column
// its words named: by its name in any case, spaces as underscores, else
// one with it as a word of its name ("count" finds game_count, never
// discount), an exact name winning wherever it stands; with no name, the
// first number column; nothing when none is a number.
func TestAlertColumnByWord(t *testing.T) {
	t.Parallel()
	num := func(name string) warehouse.Column {
		return warehouse.Column{Name: name, Type: "bigint", Kind: warehouse.KindNumber}
	}
	text := warehouse.Column{Name: "count_label", Type: "text", Kind: warehouse.KindText}
	for _, tt := range []struct {
		name   string
		cols   []warehouse.Column
		column string
		want   any // the value read, nil for none
	}{
		{"a word of the name", []warehouse.Column{num("discount"), num("game_count")}, "count", int64(1)},
		{"an exact name later wins", []warehouse.Column{num("game_count"), num("count")}, "count", int64(1)},
		{"any case, spaces as underscores", []warehouse.Column{num("discount"), num("Game_Count")}, "game count", int64(1)},
		{"a name with a space, as the alert stored it", []warehouse.Column{num("year"), num("Total Games")}, "Total Games", int64(1)},
		{"not inside a word", []warehouse.Column{num("discount")}, "count", nil},
		{"a text column is no number", []warehouse.Column{text}, "count", nil},
		{"no name: the first number column", []warehouse.Column{text, num("discount"), num("game_count")}, "", int64(1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			row := make([]any, len(tt.cols))
			for i := range row {
				row[i] = int64(i)
			}
			r := warehouse.Result{Columns: tt.cols, Rows: [][]any{row}, RowCount: 1}
			got := valueOf(r, tt.column)
			if tt.want == nil {
				assert.Nil(t, got)
				return
			}
			if assert.NotNil(t, got) {
				assert.Equal(t, float64(tt.want.(int64)), *got)
			}
		})
	}
}
