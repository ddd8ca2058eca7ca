package eval

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/grounding"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// A gold value counts only where the prompt shows it as a value of its
// column. Before, 'Saturday' counted for yelp.checkin.day because the
// comment of an unrelated table's column quoted it.
func TestShownAsValue(t *testing.T) {
	t.Parallel()
	checkin := warehouse.Table{Schema: "yelp", Name: "checkin", Columns: []warehouse.TableColumn{
		{Name: "cid"}, {Name: "day", Comment: "Day of the week when the check-ins occurred. Eg. 'Monday', 'Tuesday', etc."}}}
	days := warehouse.Table{Schema: "atis", Name: "days", Columns: []warehouse.TableColumn{
		{Name: "day_name", Comment: "Eg. 'Saturday', 'Sunday'"}}}
	cat := &warehouse.Catalog{Tables: []warehouse.Table{checkin, days}}
	day := store.ValueColumn{Backend: "postgres", Schema: "yelp", Table: "checkin", Column: "day"}
	inPart := checkin
	inPart.Columns, inPart.LeftOut = checkin.Columns[:1], 1
	tests := []struct {
		name    string
		tables  []warehouse.Table
		listed  []grounding.ListedColumn
		matches []store.ValueMatch
		queries []string
		value   string
		want    bool
	}{
		{name: "quoted in another table's column comment", tables: []warehouse.Table{checkin, days}, value: "Saturday"},
		{name: "quoted in its own column's comment", tables: []warehouse.Table{checkin, days}, value: "Monday", want: true},
		{name: "its comment, its column left out", tables: []warehouse.Table{inPart}, value: "Monday"},
		{name: "its table not described", tables: []warehouse.Table{days}, value: "Monday"},
		{name: "listed among its values", tables: []warehouse.Table{checkin},
			listed: []grounding.ListedColumn{{ColumnRef: warehouse.ColumnRef{Schema: "yelp", Table: "checkin", Column: "day"},
				Values: []string{"Friday", "Saturday"}}}, value: "Saturday", want: true},
		{name: "listed for another column", tables: []warehouse.Table{checkin, days},
			listed: []grounding.ListedColumn{{ColumnRef: warehouse.ColumnRef{Schema: "atis", Table: "days", Column: "day_name"},
				Values: []string{"Friday", "Saturday"}}}, value: "Saturday"},
		{name: "matched in its column", matches: []store.ValueMatch{{ValueColumn: day, Value: "Saturday"}}, value: "Saturday", want: true},
		{name: "matched in another column", matches: []store.ValueMatch{{ValueColumn: store.ValueColumn{Backend: "postgres",
			Schema: "atis", Table: "days", Column: "day_name"}, Value: "Saturday"}}, value: "Saturday"},
		{name: "compared with its column by the earlier query", queries: []string{"SELECT count(*) FROM yelp.checkin c WHERE c.day = 'Saturday'"},
			value: "Saturday", want: true},
		{name: "compared with another column by the earlier query", queries: []string{"SELECT 1 FROM atis.days WHERE day_name = 'Saturday'"},
			value: "Saturday"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := &grounding.Context{Listed: tt.listed}
			for _, tb := range tt.tables {
				g.Tables = append(g.Tables, grounding.Table{Table: tb})
			}
			gc := bot.GeneratorContext{State: &nodes.State{Grounding: g, Matches: tt.matches}, Queries: tt.queries}
			assert.Equal(t, tt.want, shownAsValue(gc, day, tt.value, cat))
		})
	}
}
