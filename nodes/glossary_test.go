package nodes

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// A meaning names a table outside the caller's catalog by schema.table,
// or by its name alone when no table the caller may read has that name.
func TestMeaningNamesTablesOutside(t *testing.T) {
	t.Parallel()
	whole := &warehouse.Catalog{Tables: []warehouse.Table{
		{Schema: "analytics", Name: "apps"}, {Schema: "analytics", Name: "publishers"},
		{Schema: "analytics", Name: "app_publishers"}, {Schema: "hr", Name: "apps"}, {Schema: "hr", Name: "Salaries"},
	}}
	cat := &warehouse.Catalog{Tables: []warehouse.Table{{Schema: "analytics", Name: "apps"}}}
	hidden := namesOutside(whole, cat)
	for _, tc := range []struct {
		name, means string
		want        bool
	}{
		{name: "qualified", means: "a row of analytics.publishers", want: true},
		{name: "quoted", means: `rows of "analytics"."app_publishers"`, want: true},
		{name: "a name alone", means: "joined through app_publishers", want: true},
		{name: "in another case", means: "see SALARIES", want: true},
		{name: "a visible table", means: "a row of analytics.apps", want: false},
		{name: "a name the caller's table has too", means: "a row of apps", want: false},
		{name: "that name in a schema outside", means: "a row of hr.apps", want: true},
		{name: "a word, not the name", means: "a publisher of games", want: false},
		{name: "inside another name", means: "the publishers_count column", want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := namesAny(identWords(tc.means), hidden); got != tc.want {
				t.Errorf("namesAny(%q) = %v, want %v", tc.means, got, tc.want)
			}
		})
	}
	assert.Empty(t, namesOutside(whole, whole), "the whole catalog hides nothing")
}
