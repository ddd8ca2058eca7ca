package grounding

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// The value cap is spent by match quality: an exact match ('English' in a
// language column) is shown though its table is not described, before
// fuzzy matches of described tables fill the cap.
func TestShownValuesByQuality(t *testing.T) {
	t.Parallel()
	match := func(table, column, value, why string) store.ValueMatch {
		return store.ValueMatch{ValueColumn: store.ValueColumn{Schema: "s", Table: table, Column: column}, Value: value,
			Similarity: 0.6, Exact: why == store.MatchExact, Why: why}
	}
	var matches []store.ValueMatch
	var described []warehouse.Table
	for i := range ValueColumns {
		matches = append(matches, match(fmt.Sprintf("t%d", i), "name", "Englishman", store.MatchFuzzy))
		described = append(described, warehouse.Table{Schema: "s", Name: fmt.Sprintf("t%d", i)})
	}
	matches = append(matches, match("countrylanguage", "language", "English", store.MatchExact),
		match("weeks", "day", "Weekend", store.MatchStem), match("users", "country", "FR", store.MatchPlace))
	var got []string
	for _, m := range shownValues(matches, described) {
		got = append(got, m.Table+"."+m.Column+"="+m.Value)
	}
	assert.Equal(t, []string{"countrylanguage.language=English", "weeks.day=Weekend", "users.country=FR",
		"t0.name=Englishman", "t1.name=Englishman", "t2.name=Englishman"}, got)
}

func TestPlaceNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		phrase string
		want   []string
	}{
		{"French", []string{"France", "FR", "FRA"}},
		{"france", []string{"FR", "FRA"}}, // "france" itself is looked up already
		{"United States", []string{"US", "USA", "U.S.", "U.S.A.", "United States of America", "America"}},
		{"USA", []string{"United States", "US", "U.S.", "U.S.A.", "United States of America", "America"}},
		{"US", []string{"United States", "USA", "U.S.", "U.S.A.", "United States of America", "America"}},
		{"us", nil}, // the pronoun, not a code
		{"Dutch", []string{"Netherlands", "NL", "NLD", "Holland", "The Netherlands"}},
		{"Canada", []string{"CA", "CAN"}},
		{"Ubisoft", nil},
	}
	for _, tt := range tests {
		t.Run(tt.phrase, func(t *testing.T) {
			assert.Equal(t, tt.want, placeNames(tt.phrase))
		})
	}
}

// listing describes tables with their listed values (describeListed).
var listing = Describer{Name: "listing", Describe: describeListed}

// describeListed lists tables as the SQL dialect does, with the values of
// the columns that list them.
func describeListed(tables []warehouse.Table) string {
	var b strings.Builder
	for _, t := range tables {
		b.WriteString("\nTABLE " + t.QualifiedName() + "\n")
		for _, c := range t.Columns {
			b.WriteString("  " + c.Name + " " + c.Type)
			if len(c.Values) > 0 {
				b.WriteString(" -- values: " + warehouse.DescribeValues(c.Values))
			}
			b.WriteByte('\n')
		}
		if t.LeftOut > 0 {
			b.WriteString("  " + warehouse.DescribeLeftOut(t.LeftOut) + "\n")
		}
	}
	return b.String()
}

// The values of a column with few are listed in the description of the
// tables shown, best table first, while the budget allows; never at the
// cost of a table the question is about.
func TestListedValuesWithinTheBudget(t *testing.T) {
	t.Parallel()
	cat := &warehouse.Catalog{Tables: []warehouse.Table{
		table("world", "country", "", "code", "name", "continent"),
		table("world", "countrylanguage", "", "countrycode", "language", "is_official"),
	}}
	for i := range 30 {
		cat.Tables = append(cat.Tables, table("ops", fmt.Sprintf("audit_log_%03d", i), "", "entry_id", "created_at", "job_name", "host"))
	}
	listed := map[warehouse.ColumnRef][]string{
		{Schema: "world", Table: "countrylanguage", Column: "is_official"}: {"F", "T"},
		{Schema: "world", Table: "country", Column: "continent"}:           {"Africa", "Asia", "Europe", "North America", "Oceania", "South America"},
		{Schema: "ops", Table: "audit_log_000", Column: "host"}:            {"a", "b"},
	}
	r := Request{Question: "Which languages are official in each country?", Budget: 100, Listed: listed}
	c := Build(cat, listing, r)
	require.Equal(t, []string{"world.countrylanguage", "world.country"}, names(c))
	assert.Contains(t, c.Catalog, "  is_official integer -- values: 'F', 'T'\n")
	assert.Contains(t, c.Catalog, "'South America'")
	assert.NotContains(t, c.Catalog, "audit_log_000 ", "a table not shown lists nothing")
	assert.LessOrEqual(t, c.Tokens, 100)
	assert.Contains(t, c.String(), "all values listed (low cardinality, at most 20; top table, room kept): world.countrylanguage.is_official: 'F', 'T'")

	// Too little room for the continents: the flags, of the better table,
	// are listed; the tables are still both described.
	r.Budget = 50
	c = Build(cat, listing, r)
	require.Equal(t, []string{"world.countrylanguage", "world.country"}, names(c))
	assert.Contains(t, c.Catalog, "'F', 'T'")
	assert.NotContains(t, c.Catalog, "'South America'")
	assert.LessOrEqual(t, c.Tokens, 50)
	assert.Nil(t, cat.Tables[1].Columns[2].Values, "the catalog itself is left as it was")
}

// A fuzzy match lifts its table less than an exact one of the same
// similarity: "Strategy games" tells more of the genre 'Strategy' than of
// the publisher 'Pro Strategy Games'.
func TestFuzzyMatchesLiftLess(t *testing.T) {
	t.Parallel()
	cat := &warehouse.Catalog{Tables: []warehouse.Table{
		table("s", "publishers", "", "publisher_id", "label"),
		table("s", "genres", "", "genre_id", "label"),
	}}
	match := func(table, value, why string) store.ValueMatch {
		return store.ValueMatch{ValueColumn: store.ValueColumn{Schema: "s", Table: table, Column: "label"}, Value: value,
			Phrase: "Strategy", Similarity: 1, Exact: why == store.MatchExact, Why: why}
	}
	c := Build(cat, sqlLike, Request{Question: "Average playtime of Strategy titles", Budget: 10_000, Matches: []store.ValueMatch{
		match("publishers", "Pro Strategy Games", store.MatchFuzzy), match("genres", "Strategy", store.MatchExact)}})
	got := byName(c)
	assert.Greater(t, got["s.genres"].Score, got["s.publishers"].Score)
	assert.Positive(t, got["s.publishers"].Score)
}

// The top table's codes have a claim on the budget: when lower tables
// fill it, the values of the table the question is most about ('Saturday'
// of its day column) are listed and the lowest tables give way, by their
// columns of least worth. Before, the codes were listed only in the room
// the tables left, which was none.
func TestTopTableValuesBeforeLowerTables(t *testing.T) {
	t.Parallel()
	cat := checkinsAmongKiosks(12)
	listed := map[warehouse.ColumnRef][]string{
		{Schema: "yelp", Table: "checkins", Column: "day"}:   weekdays,
		{Schema: "ops", Table: "kiosk_07", Column: "status"}: {"failed", "ok"},
	}
	size := func(tables ...warehouse.Table) int { return llm.EstimateTokens(describeListed(tables)) }
	// Room for the top table and eight lower ones, whole: nothing left.
	budget := size(cat.Tables[0]) + 8*size(cat.Tables[1])
	c := Build(cat, listing, Request{Question: "How many checkins were there on weekend weekdays?", Budget: budget, Listed: listed})

	require.NotEmpty(t, c.Tables)
	assert.Equal(t, "yelp.checkins", c.Tables[0].QualifiedName(), "the top table: %v", names(c))
	assert.Contains(t, c.Catalog, "  day integer -- values: "+warehouse.DescribeValues(weekdays)+"\n", "its codes are listed")
	require.NotEmpty(t, c.Listed)
	assert.Equal(t, ListedColumn{ColumnRef: warehouse.ColumnRef{Schema: "yelp", Table: "checkins", Column: "day"}, Values: weekdays, Why: ListedTop}, c.Listed[0])
	assert.Contains(t, c.String(), "all values listed (low cardinality, at most 20; top table, room kept): yelp.checkins.day: 'Friday'")
	assert.LessOrEqual(t, c.Tokens, budget)

	// The lower tables gave way, the lowest first, by their columns of
	// least worth: none is dropped, the best of them is still whole.
	require.Equal(t, []string{"yelp.checkins", "ops.kiosk_00", "ops.kiosk_01", "ops.kiosk_02", "ops.kiosk_03",
		"ops.kiosk_04", "ops.kiosk_05", "ops.kiosk_06", "ops.kiosk_07"}, names(c))
	assert.Nil(t, c.Tables[1].Kept, "the best lower table is described whole")
	lowest := c.Tables[len(c.Tables)-1]
	require.NotNil(t, lowest.Kept, "the lowest is described in part")
	assert.Equal(t, []Column{{Name: "event_id", Why: "key"}}, lowest.Kept)
	assert.Contains(t, c.Catalog, "\nTABLE ops.kiosk_07\n  event_id integer\n  … 4 more columns, not shown\n")
	for _, l := range c.Listed[1:] {
		assert.Equal(t, ListedRoom, l.Why, "a lower table's values only take the room left: %v", l)
	}
}

// Only codes claim room: not a key, nor a column whose values, few in a
// small table, are long (names, addresses).
func TestCodesOf(t *testing.T) {
	t.Parallel()
	tb := table("yelp", "business", "", "bid", "business_id", "name", "state")
	names := []string{"Anna’s Diner", "Izza’s Pizza", "Joe’s Pizza", "Lily’s Bakery", "Mark’s Bistro", "Peter’s Cafe",
		"Sashays Cafe", "Tom’s Tavern", "Uma’s Udon"}
	ref := func(column string) warehouse.ColumnRef {
		return warehouse.ColumnRef{Schema: "yelp", Table: "business", Column: column}
	}
	listed := map[warehouse.ColumnRef][]string{
		ref("bid"): {"1", "2"}, ref("business_id"): {"abc123", "def456"}, ref("name"): names, ref("state"): {"CA", "NY"},
	}
	assert.Equal(t, map[warehouse.ColumnRef][]string{ref("state"): {"CA", "NY"}}, codesOf([]warehouse.Table{tb}, listed))
}

// A table the question names keeps its best column besides its keys when
// the lower tables give way to the top table's codes: "each program"
// needs the program's name, and program(program_id) alone gave the
// generator nothing to show (Defog at 700 tokens, gen-advising-49).
func TestNamedTableKeepsMoreThanKeys(t *testing.T) {
	t.Parallel()
	student := table("school", "student", "", "student_id", "program_id", "total_credit", "credits_earned", "declare_major", "degree")
	for i := range 24 {
		student.Columns = append(student.Columns, warehouse.TableColumn{Name: fmt.Sprintf("student_note_%02d", i), Type: "text"})
	}
	cat := &warehouse.Catalog{Tables: []warehouse.Table{student,
		table("school", "student_record", "", "student_id", "course_id", "semester", "earn_credit"),
		table("school", "program", "", "program_id", "name", "college", "introduction", "director", "founded")}}
	for i := range 10 {
		cat.Tables = append(cat.Tables, table("ops", fmt.Sprintf("audit_log_%02d", i), "", "entry_id", "created_at", "host"))
	}
	ref := func(column string) warehouse.ColumnRef {
		return warehouse.ColumnRef{Schema: "school", Table: "student", Column: column}
	}
	listed := map[warehouse.ColumnRef][]string{
		ref("declare_major"): {"Computer Science", "Mathematics", "Physics"},
		ref("degree"):        {"BA", "BS"},
	}
	size := func(tables ...warehouse.Table) int { return llm.EstimateTokens(describeListed(tables)) }
	budget := size(cat.Tables[0]) + size(cat.Tables[1]) + size(cat.Tables[2]) // all whole, no room for the codes
	c := Build(cat, listing, Request{Question: "What is the total number of credits earned by students in each program?",
		Budget: budget, Listed: listed})

	require.Equal(t, []string{"school.student", "school.student_record", "school.program"}, names(c))
	assert.LessOrEqual(t, c.Tokens, budget)
	assert.Contains(t, c.Catalog, "  degree integer -- values: 'BA', 'BS'\n", "the top table's codes are listed")
	assert.Contains(t, c.Catalog, "\nTABLE school.program\n  program_id integer\n  name integer\n  … 4 more columns, not shown\n")
	assert.Equal(t, []Column{{Name: "program_id", Why: "key"}, {Name: "name", Why: "named table, its best column besides keys"}},
		c.Tables[2].Kept)
	assert.Contains(t, c.String(), "2 of 6 columns: program_id (key), name (named table, its best column besides keys); 4 left out")
}

// A catalog that fits the budget whole but leaves too little room for the
// codes of the table the question is most about lists them all the same:
// the lowest tables give way, by their columns of least worth, as they do
// when the catalog does not fit. Before, it was shown whole and 'Saturday'
// was not listed, while a catalog a few tokens bigger listed it.
func TestWholeCatalogMakesRoomForTopCodes(t *testing.T) {
	t.Parallel()
	cat := checkinsAmongKiosks(6)
	day := warehouse.ColumnRef{Schema: "yelp", Table: "checkins", Column: "day"}
	listed := map[warehouse.ColumnRef][]string{day: weekdays}
	whole := llm.EstimateTokens(describeListed(cat.Tables))
	r := Request{Question: "How many checkins were there on weekend weekdays?", Listed: listed}

	// Room for the codes: the catalog is shown whole, the codes first.
	r.Budget = whole + 40
	c := Build(cat, listing, r)
	assert.True(t, c.Whole)
	assert.Equal(t, []ListedColumn{{ColumnRef: day, Values: weekdays, Why: ListedTop}}, c.Listed)

	// Room for the catalog alone: the lowest table gives way.
	r.Budget = whole + 2
	c = Build(cat, listing, r)
	assert.False(t, c.Whole, "a table is described in part")
	assert.LessOrEqual(t, c.Tokens, r.Budget)
	assert.Len(t, c.Tables, len(cat.Tables), "every table is still described")
	assert.Contains(t, c.Catalog, "  day integer -- values: "+warehouse.DescribeValues(weekdays)+"\n")
	assert.Contains(t, c.String(), "all values listed (low cardinality, at most 20; top table, room kept): yelp.checkins.day: 'Friday'")
	lowest := c.Tables[len(c.Tables)-1]
	assert.Equal(t, "ops.kiosk_05", lowest.QualifiedName())
	require.NotNil(t, lowest.Kept, "the lowest is described in part")
	assert.Contains(t, c.Catalog, "\nTABLE ops.kiosk_05\n  event_id integer\n")
}

// However little room a catalog that fits whole leaves, the codes of its
// top table drop no table: each budget from the whole catalog's size up
// keeps every table described, whole or in part.
func TestWholeCatalogDropsNoTableForCodes(t *testing.T) {
	t.Parallel()
	cat := &warehouse.Catalog{Tables: []warehouse.Table{table("yelp", "checkins", "", "cid", "business_id", "count", "day")}}
	for i := range 12 {
		cat.Tables = append(cat.Tables, table("ops", fmt.Sprintf("kiosk_%02d", i),
			"Kiosk events, not checkins: one row per event a kiosk sent, kept for a year"+strings.Repeat(".", i),
			"event_id", "host"))
	}
	listed := map[warehouse.ColumnRef][]string{{Schema: "yelp", Table: "checkins", Column: "day"}: weekdays}
	// As the dialect describes them: comments and values.
	describe := func(tables []warehouse.Table) string {
		var b strings.Builder
		for _, t := range tables {
			b.WriteString(strings.Replace(describeListed([]warehouse.Table{t}), "\n", " -- "+t.Comment+"\n", 2))
		}
		return b.String()
	}
	whole := llm.EstimateTokens(describe(cat.Tables))
	for budget := whole; budget <= whole+30; budget++ {
		c := Build(cat, Describer{Describe: describe}, Request{Question: "How many checkins were there on weekend days?", Budget: budget, Listed: listed})
		assert.Equal(t, len(cat.Tables), len(c.Tables), "budget %d: every table is described: %v", budget, names(c))
		assert.LessOrEqual(t, c.Tokens, budget)
	}
}

// weekdays are the values of checkins.day, a code of few values.
var weekdays = []string{"Friday", "Monday", "Saturday", "Sunday", "Thursday", "Tuesday", "Wednesday"}

// checkinsAmongKiosks is yelp.checkins (its day a code) and n tables of
// kiosk events after it, which fill a budget while the question is about
// checkins.
func checkinsAmongKiosks(n int) *warehouse.Catalog {
	cat := &warehouse.Catalog{Tables: []warehouse.Table{table("yelp", "checkins", "", "cid", "business_id", "count", "day")}}
	for i := range n {
		cat.Tables = append(cat.Tables, table("ops", fmt.Sprintf("kiosk_%02d", i), "Kiosk events, not checkins.",
			"event_id", "created_at", "host", "status", "payload"))
	}
	return cat
}
