package grounding

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// sqlLike describes tables as the SQL dialect does (describe).
var sqlLike = Describer{Name: "sql-like", Describe: describe}

// describe lists tables as the SQL dialect does.
func describe(tables []warehouse.Table) string {
	var b strings.Builder
	for _, t := range tables {
		b.WriteString("\nTABLE " + t.QualifiedName())
		if t.Comment != "" {
			b.WriteString(" -- " + t.Comment)
		}
		b.WriteByte('\n')
		for _, c := range t.Columns {
			b.WriteString("  " + c.Name + " " + c.Type + "\n")
		}
		if t.LeftOut > 0 {
			b.WriteString("  " + warehouse.DescribeLeftOut(t.LeftOut) + "\n")
		}
	}
	return b.String()
}

func table(schema, name, comment string, columns ...string) warehouse.Table {
	t := warehouse.Table{Schema: schema, Name: name, Comment: comment}
	for _, c := range columns {
		t.Columns = append(t.Columns, warehouse.TableColumn{Name: c, Type: "integer"})
	}
	return t
}

// steam is a catalog shaped like the demo's, with filler tables that make
// it too big for a small budget.
func steam(filler int) *warehouse.Catalog {
	cat := &warehouse.Catalog{Tables: []warehouse.Table{
		table("analytics", "apps", "One row per game on the Steam store.", "app_id", "name", "release_date", "release_year", "price", "positive_ratings"),
		table("analytics", "publishers", "Game publishers.", "publisher_id", "name"),
		table("analytics", "app_publishers", "Links games and publishers.", "app_id", "publisher_id"),
		table("analytics", "genres", "Store genres.", "genre_id", "name"),
		table("analytics", "app_genres", "Links games and genres.", "app_id", "genre_id"),
		table("analytics", "categories", "Store feature categories.", "category_id", "name"),
		table("analytics", "app_categories", "", "app_id", "category_id"),
	}}
	for i := range filler {
		cat.Tables = append(cat.Tables, table("ops", fmt.Sprintf("audit_log_%03d", i), "Internal audit records of the warehouse jobs.",
			"entry_id", "created_at", "job_name", "status", "duration_ms", "host", "attempt", "message"))
	}
	return cat
}

func names(c Context) []string {
	var out []string
	for _, t := range c.Tables {
		out = append(out, t.QualifiedName())
	}
	return out
}

func TestWholeCatalogWhenItFits(t *testing.T) {
	t.Parallel()
	cat := steam(0)
	c := Build(cat, sqlLike, Request{Question: "How many games were released in 2018?"})
	assert.True(t, c.Whole, "a small catalog is shown whole")
	assert.Equal(t, describe(cat.Tables), c.Catalog, "exactly as the dialect describes it, in catalog order")
	assert.Equal(t, c.WholeTokens, c.Tokens)
	assert.Empty(t, c.Others)
}

func TestRankingWithinTheBudget(t *testing.T) {
	t.Parallel()
	cat := steam(200)
	tests := []struct {
		name      string
		req       Request
		wantFirst []string // in this order, at the head of the chosen tables
		wantAlso  []string
		wantNot   []string
	}{
		{name: "words of the question, then what they join", req: Request{Question: "Which publishers released the most games?", Budget: 400},
			wantFirst: []string{"analytics.publishers", "analytics.app_publishers", "analytics.apps"},
			wantNot:   []string{"analytics.categories", "ops.audit_log_000"}},
		{name: "camelCase and plurals", req: Request{Question: "Average price per genre", Budget: 400},
			wantAlso: []string{"analytics.genres", "analytics.app_genres", "analytics.apps"}},
		{name: "a follow-up keeps the earlier query's tables", req: Request{Question: "And in 2017?", Budget: 300,
			Earlier: []string{"SELECT count(*) FROM analytics.app_categories ac JOIN analytics.categories c USING (category_id)"}},
			wantAlso: []string{"analytics.app_categories", "analytics.categories"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Build(cat, sqlLike, tt.req)
			require.False(t, c.Whole)
			got := names(c)
			if len(tt.wantFirst) > 0 {
				require.GreaterOrEqual(t, len(got), len(tt.wantFirst), "chosen %v", got)
				assert.Equal(t, tt.wantFirst, got[:len(tt.wantFirst)], "best first: %v", got)
			}
			for _, w := range tt.wantAlso {
				assert.Contains(t, got, w, "chosen %v", got)
			}
			for _, w := range tt.wantNot {
				assert.NotContains(t, got, w, "chosen %v", got)
			}
			assert.LessOrEqual(t, c.Tokens, tt.req.Budget, "within the budget")
			assert.Equal(t, len(cat.Tables), len(c.Tables)+len(c.Others)+c.Omitted, "every table described, named or counted")
			assert.Equal(t, c.Tokens, llm.EstimateTokens(c.Catalog))
		})
	}
}

func TestReasonsAndJoins(t *testing.T) {
	t.Parallel()
	cat := steam(100)
	cat.Tables[1].ForeignKeys = nil
	// A declared key joins too.
	cat.Tables = append(cat.Tables, table("analytics", "reviews", "User reviews.", "review_id", "game", "stars"))
	cat.Tables[len(cat.Tables)-1].ForeignKeys = []warehouse.ForeignKey{{Columns: []string{"game"}, RefSchema: "analytics", RefTable: "apps", RefColumns: []string{"app_id"}}}
	c := Build(cat, sqlLike, Request{Question: "Show stars of reviews", Budget: 500})
	byName := map[string]Table{}
	for _, tb := range c.Tables {
		byName[tb.QualifiedName()] = tb
	}
	require.Contains(t, byName, "analytics.reviews")
	assert.Equal(t, []string{"question: star, review"}, byName["analytics.reviews"].Reasons)
	require.Contains(t, byName, "analytics.apps", "the declared key's target")
	assert.Contains(t, byName["analytics.apps"].Reasons, "joins analytics.reviews (reviews.game ↔ apps.app_id)", "by the columns of its key")
}

func TestOthersAreNamedWhileRoomRemains(t *testing.T) {
	t.Parallel()
	cat := steam(40)
	c := Build(cat, sqlLike, Request{Question: "Which publishers released the most games?", Budget: 450})
	require.NotEmpty(t, c.Others, "room left names other tables")
	assert.Contains(t, c.Catalog, "\nOther tables, not described here: "+c.Others[0])
	for _, o := range c.Others {
		assert.False(t, slices.Contains(names(c), o), "%s is described and named", o)
	}
	assert.LessOrEqual(t, c.Tokens, 450, "within the budget")

	// Named as the dialect writes names (PostgreSQL's quotes).
	quoting := sqlLike
	quoting.Name = "quoting"
	quoting.TableName = func(t warehouse.Table) string { return `"` + t.Schema + `"."` + t.Name + `"` }
	c = Build(cat, quoting, Request{Question: "Which publishers released the most games?", Budget: 450})
	require.NotEmpty(t, c.Others)
	assert.Contains(t, c.Catalog, "\nOther tables, not described here: \"analytics\".\"")
}

func TestCubeMembers(t *testing.T) {
	t.Parallel()
	cube := func(name string, members ...string) warehouse.Table {
		t := warehouse.Table{Name: name}
		for _, m := range members {
			t.Columns = append(t.Columns, warehouse.TableColumn{Name: name + "." + m, Type: "number"})
		}
		return t
	}
	cat := &warehouse.Catalog{Tables: []warehouse.Table{cube("Apps", "count", "averagePrice", "releaseYear"), cube("Publishers", "name")}}
	for i := range 100 {
		cat.Tables = append(cat.Tables, cube(fmt.Sprintf("Filler%d", i), "jobCount", "hostName", "durationMs", "attemptNumber"))
	}
	c := Build(cat, sqlLike, Request{Question: "What is the average price of games released in 2018?", Budget: 100})
	require.NotEmpty(t, c.Tables)
	assert.Equal(t, "Apps", c.Tables[0].Name, "members' own words rank their cube")
}

// A camelCase member's words count as a snake_case column's do
// (ageRating as age_rating), and a cube's first member is no key: cubes
// list their members in no such order.
func TestCamelCaseMemberScores(t *testing.T) {
	t.Parallel()
	apps := warehouse.Table{Name: "Apps", Columns: []warehouse.TableColumn{
		{Name: "Apps.averagePrice", Type: "number"}, {Name: "Apps.ageRating", Type: "string"}, {Name: "Apps.age_rating", Type: "string"},
		{Name: "Apps.appId", Type: "number"},
	}}
	cr := columnRequest{terms: terms("games by age rating")}
	camel, _ := cr.score(apps, 1, apps.Columns[1])
	snake, _ := cr.score(apps, 2, apps.Columns[2])
	assert.Equal(t, snake, camel, "ageRating scores as age_rating")
	first, why := cr.score(apps, 0, apps.Columns[0])
	assert.NotEqual(t, whyKey, why, "the cube's first member is no key")
	assert.Zero(t, first)
	_, why = cr.score(apps, 3, apps.Columns[3])
	assert.Equal(t, whyKey, why, "appId is")
}

func TestWords(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"release", "year", "release", "date", "category", "box", "game", "status"},
		words("releaseYear release_date CATEGORIES boxes games status"))
	assert.Equal(t, []string{"game", "publisher", "release", "2018", "ubisoft"},
		terms("How many games did the publishers release in 2018 for Ubisoft? Games!"))
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"empty", "", nil},
		{"camelCase at the end", "avgPrice", []string{"avg", "price"}},
		{"capitals after capitals stay one word", "HTTPStatus", []string{"httpstatus"}},
		{"a capital after a digit starts no word", "top10Games", []string{"top10game"}},
		{"accented letters are letters", "Éditeurs_jeux", []string{"éditeur", "jeux"}},
		{"a capital after a space starts no extra word", "Release Year", []string{"release", "year"}},
		{"invalid UTF-8 splits", "game\xffprice", []string{"game", "price"}},
		{"punctuation alone", "--_ ,", nil},
	} {
		assert.Equal(t, tc.want, words(tc.text), tc.name)
	}
}

// A table that links two relevant tables comes along even when nothing in
// the question names it: without it they cannot be joined.
func TestBridgeTables(t *testing.T) {
	t.Parallel()
	cat := steam(100)
	bridge := table("analytics", "ownership", "", "left_key", "right_key")
	bridge.ForeignKeys = []warehouse.ForeignKey{
		{Columns: []string{"left_key"}, RefSchema: "analytics", RefTable: "apps", RefColumns: []string{"app_id"}},
		{Columns: []string{"right_key"}, RefSchema: "analytics", RefTable: "publishers", RefColumns: []string{"publisher_id"}},
	}
	cat.Tables = append(cat.Tables, bridge)
	c := Build(cat, sqlLike, Request{Question: "Which publishers released games priced over 10?", Budget: 400})
	byName := map[string]Table{}
	for _, tb := range c.Tables {
		byName[tb.QualifiedName()] = tb
	}
	require.Contains(t, byName, "analytics.ownership", "chosen: %v", names(c))
	assert.Equal(t, []string{"links analytics.apps and analytics.publishers (ownership.left_key ↔ apps.app_id, ownership.right_key ↔ publishers.publisher_id)"}, byName["analytics.ownership"].Reasons,
		"apps first: \"released\" reaches release_year as a word form")

	// Referring to one relevant table, it holds facts about it: it ranks
	// well below it, and says so.
	c = Build(cat, sqlLike, Request{Question: "What is the average price?", Budget: 400})
	byName = map[string]Table{}
	for _, tb := range c.Tables {
		byName[tb.QualifiedName()] = tb
	}
	require.Contains(t, byName, "analytics.apps", "chosen: %v", names(c))
	require.Contains(t, byName, "analytics.ownership", "chosen: %v", names(c))
	assert.InDelta(t, referrerShare*byName["analytics.apps"].Score, byName["analytics.ownership"].Score, 1e-9)
	assert.Equal(t, []string{"refers to analytics.apps (ownership.left_key ↔ apps.app_id)"}, byName["analytics.ownership"].Reasons)
	assert.Less(t, slices.IndexFunc(c.Tables, func(tb Table) bool { return tb.Name == "apps" }),
		slices.IndexFunc(c.Tables, func(tb Table) bool { return tb.Name == "ownership" }), "after apps")
}

// defogLike holds schemas shaped like Defog's benchmark databases: names
// that do not split into words (broker's sbCustomer, created unquoted),
// link tables with no declared keys, and schemas that share words.
func defogLike() *warehouse.Catalog {
	commented := func(t warehouse.Table, comments map[string]string) warehouse.Table {
		for i, c := range t.Columns {
			t.Columns[i].Comment = comments[c.Name]
		}
		return t
	}
	cat := &warehouse.Catalog{Tables: []warehouse.Table{
		table("academic", "author", "", "aid", "homepage", "name", "oid"),
		table("academic", "publication", "", "abstract", "cid", "citation_num", "pid", "title", "year"),
		table("academic", "writes", "", "aid", "pid"),
		table("academic", "conference", "", "cid", "homepage", "name"),
		table("broker", "sbcustomer", "", "sbcustid", "sbcustname", "sbcustemail", "sbcustcountry", "sbcustjoindate"),
		table("broker", "sbticker", "", "sbtickerid", "sbtickersymbol", "sbtickername"),
		commented(table("broker", "sbtransaction", "", "sbtxid", "sbtxcustid", "sbtxtickerid", "sbtxdatetime", "sbtxamount", "sbtxstatus"),
			map[string]string{"sbtxstatus": "status of the transaction"}),
		table("ewallet", "wallet_transactions_daily", "", "txid", "sender_id", "amount", "status", "created_at"),
		table("ewallet", "users", "", "uid", "username", "email", "country"),
		table("advising", "offering_instructor", "", "offering_instructor_id", "offering_id", "instructor_id"),
		table("advising", "student", "", "student_id", "lastname", "total_credit", "total_gpa"),
		table("atis", "airline", "", "airline_code", "airline_name"),
		table("atis", "flight", "", "flight_id", "airline_code", "from_airport", "to_airport"),
		table("atis", "flight_stop", "", "flight_id", "stop_airport"),
		table("atis", "airport", "", "airport_code", "airport_name", "airport_location"),
	}}
	for i := range 60 {
		cat.Tables = append(cat.Tables, table("ops", fmt.Sprintf("audit_log_%03d", i), "", "entry_id", "created_at", "job_name", "host"))
	}
	return cat
}

func byName(c Context) map[string]Table {
	out := map[string]Table{}
	for _, tb := range c.Tables {
		out[tb.QualifiedName()] = tb
	}
	return out
}

// Where no foreign key is declared, key columns named alike join: a link
// table's aid and pid reach author (whose first column is aid) and
// publication (the one table with more than keys that has pid), and
// sbtxcustid ends like sbcustid, the key of sbcustomer.
func TestKeyNameLinks(t *testing.T) {
	t.Parallel()
	cat := defogLike()
	c := Build(cat, sqlLike, Request{Question: "What is the total number of citations received by each author?", Budget: 150})
	got := byName(c)
	require.Contains(t, got, "academic.writes", "chosen: %v", names(c))
	assert.Contains(t, got["academic.writes"].Reasons, "links academic.author and academic.publication (writes.aid ↔ author.aid, writes.pid ↔ publication.pid)")
	assert.NotContains(t, got, "advising.student", "total and number are the question's arithmetic, not its data")

	c = Build(cat, sqlLike, Request{Question: "Return the customer ID and name of customers who have not made any transactions.", Budget: 150})
	got = byName(c)
	require.Contains(t, got, "broker.sbtransaction", "chosen: %v", names(c))
	require.Contains(t, got, "broker.sbcustomer", "chosen: %v", names(c))
	assert.Contains(t, got["broker.sbcustomer"].Reasons, "joins broker.sbtransaction (sbtransaction.sbtxcustid ↔ sbcustomer.sbcustid)", "by the end of sbtxcustid")

	partners, _ := joinPartners(cat)
	index := map[string]int{}
	for i, tb := range cat.Tables {
		index[tb.QualifiedName()] = i
	}
	refersTo := func(from string) []string {
		var out []string
		for _, j := range partners[index[from]] {
			out = append(out, cat.Tables[j].QualifiedName())
		}
		return out
	}
	assert.ElementsMatch(t, []string{"academic.author", "academic.publication"}, refersTo("academic.writes"))
	assert.ElementsMatch(t, []string{"broker.sbcustomer", "broker.sbticker"}, refersTo("broker.sbtransaction"))
	assert.ElementsMatch(t, []string{"academic.conference"}, refersTo("academic.publication"), "cid opens conference")
	assert.Empty(t, refersTo("academic.author"), "its own key refers to nothing; oid has no owner")
}

// A key column names its table whatever the table's case, and an ORM's
// camelCase key (customerId, productID) names one as customer_id does; a
// table spelt as the key is found first, and of two tables that differ
// only by case and neither so spelt, neither is guessed.
func TestKeyColumnsFindTablesOfAnyCase(t *testing.T) {
	t.Parallel()
	cat := &warehouse.Catalog{Tables: []warehouse.Table{
		table("public", "Orders", "", "id", "customerId", "productID", "region_id", "amount"),
		table("public", "Customer", "", "id", "name"),
		table("public", "Products", "", "id", "title"),
		table("public", "region", "", "id", "label"),
		table("public", "Region", "", "id", "label"),
		table("public", "Stories", "", "id", "storyId2", "body"),
	}}
	partners, joins := joinPartners(cat)
	var got []string
	for _, j := range partners[0] {
		got = append(got, cat.Tables[j].QualifiedName())
	}
	assert.ElementsMatch(t, []string{"public.Customer", "public.Products", "public.region"}, got,
		"region_id finds region as spelt, not Region")
	assert.Equal(t, "Orders.customerId ↔ Customer.id", joins.via[[2]int{0, 1}])
	assert.Empty(t, partners[5], "storyId2 is no key of a story table")

	// Where two tables differ only by case, the one spelt as the key is
	// found, as before.
	cat = &warehouse.Catalog{Tables: []warehouse.Table{
		table("s", "items", "", "id", "order_id"), table("s", "orders", "", "id", "total"), table("s", "Orders", "", "id", "total"),
	}}
	partners, _ = joinPartners(cat)
	assert.Equal(t, []int{1}, partners[0], "order_id finds orders, not Orders")
	cat = &warehouse.Catalog{Tables: []warehouse.Table{
		table("s", "items", "", "id", "Order_id"), table("s", "ORDERS", "", "id", "total"), table("s", "Orders", "", "id", "total"),
	}}
	partners, _ = joinPartners(cat)
	assert.Empty(t, partners[0], "neither ORDERS nor Orders is orders as spelt")
}

// A word found inside a name that does not split into words counts, and
// more than the same word in a comment.
func TestWordsInsideNames(t *testing.T) {
	t.Parallel()
	cat := defogLike()
	c := Build(cat, sqlLike, Request{Question: "How many transactions did each customer make?", Budget: 150})
	got := byName(c)
	require.Contains(t, got, "broker.sbtransaction", "chosen: %v", names(c))
	assert.Contains(t, got["broker.sbtransaction"].Reasons, "question: transaction")
	require.Contains(t, got, "broker.sbcustomer")
	assert.Contains(t, got["broker.sbcustomer"].Reasons, "question: customer")
	assert.Greater(t, got["broker.sbtransaction"].Score, got["ewallet.wallet_transactions_daily"].Score,
		"the schema that also has the customer is the stronger")
}

// A word the question shares with one table of an unrelated schema counts
// for less than the words of the schema the question is about.
func TestSchemaCoherence(t *testing.T) {
	t.Parallel()
	cat := defogLike()
	c := Build(cat, sqlLike, Request{Question: "Which airlines offer flights with a stopover at an airport?", Budget: 400})
	got := byName(c)
	require.Contains(t, got, "advising.offering_instructor", "chosen: %v", names(c))
	for _, name := range []string{"atis.airline", "atis.flight", "atis.flight_stop", "atis.airport"} {
		require.Contains(t, got, name)
		assert.Greater(t, got[name].Score, got["advising.offering_instructor"].Score, name)
	}

	// One schema: the scores are the question's alone.
	one := &warehouse.Catalog{Tables: cat.Tables[:4]}
	scored := make([]Table, len(one.Tables))
	for i := range scored {
		scored[i].Score = float64(i + 1)
	}
	schemaCoherence(one, scored)
	for i := range scored {
		assert.Equal(t, float64(i+1), scored[i].Score)
	}
}

func TestTermsSkipArithmeticAndLengthsOfTime(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"citation", "received", "author"},
		terms("What is the total number of citations received by each author?"))
	assert.Equal(t, []string{"country", "transaction", "amount", "30", "day"},
		terms("Top countries by total transaction amount in the past 30 days, per day"),
		"30 days is a length of time; a day alone may be data")
}

// The prompt shows the values of at most ValueColumns columns: those of
// described tables first, in the order the tables are described.
func TestShownValues(t *testing.T) {
	t.Parallel()
	match := func(table, column, value string) store.ValueMatch {
		return store.ValueMatch{ValueColumn: store.ValueColumn{Schema: "s", Table: table, Column: column}, Value: value, Similarity: 1}
	}
	matches := []store.ValueMatch{
		match("far", "name", "Dallas"),
		match("city", "name", "Dallas"),
		match("airport", "location", "Dallas"),
		match("airport", "location", "Dallas, TX"),
	}
	for i := range ValueColumns {
		matches = append(matches, match(fmt.Sprintf("other%d", i), "name", "x"))
	}
	described := []warehouse.Table{{Schema: "s", Name: "airport"}, {Schema: "s", Name: "city"}}
	got := shownValues(matches, described)
	var cols []string
	for _, m := range got {
		cols = append(cols, m.Table+"."+m.Column+"="+m.Value)
	}
	assert.Equal(t, []string{"airport.location=Dallas", "airport.location=Dallas, TX", "city.name=Dallas", "far.name=Dallas",
		"other0.name=x", "other1.name=x", "other2.name=x"}, cols)
}

// The values the prompt shows stay within a bound of their own, whatever
// the index holds: a value longer than MaxValueLength (a 54,000-character
// note that says "Acme Rocket", left by an index written before it left
// such values out) is not shown though it matched exactly, and long
// values stop at maxShownChars, the short ones after them still shown.
func TestShownValuesAreBounded(t *testing.T) {
	t.Parallel()
	match := func(table, value string) store.ValueMatch {
		return store.ValueMatch{ValueColumn: store.ValueColumn{Schema: "s", Table: table, Column: "c"}, Value: value,
			Similarity: 1, Exact: true, Why: store.MatchExact}
	}
	note := "Orders of Acme Rocket " + strings.Repeat("lorem ipsum dolor sit amet ", 2000)
	matches := []store.ValueMatch{match("notes", note), match("names", "Acme Rocket Corp")}
	for i := range ValueColumns - 2 {
		for j := range valuesPerColumn {
			matches = append(matches, match(fmt.Sprintf("long%d", i), fmt.Sprintf("%d %d %s", i, j, strings.Repeat("x", MaxValueLength-10))))
		}
	}
	matches = append(matches, match("codes", "AR"))
	got := shownValues(matches, nil)
	chars := 0
	var short []string
	for _, m := range got {
		assert.NotEqual(t, "notes", m.Table, "the note is not shown")
		chars += utf8.RuneCountInString(m.Value)
		if len(m.Value) < 20 {
			short = append(short, m.Value)
		}
	}
	assert.LessOrEqual(t, chars, maxShownChars)
	assert.Greater(t, chars, maxShownChars-MaxValueLength, "the bound is used")
	assert.Equal(t, []string{"Acme Rocket Corp", "AR"}, short)
}

// Where the question names a table by a word of its own but not the
// tables it needs with it, the join graph brings them: the table that
// refers to the named one (what authors wrote). Another form of a word
// counts inside a name too ("joined" in sbcustjoindate).
func TestReferrersAndForms(t *testing.T) {
	t.Parallel()
	cat := defogLike()
	c := Build(cat, sqlLike, Request{Question: "Which authors were most productive?", Budget: 400})
	got := byName(c)
	require.Contains(t, got, "academic.writes", "chosen: %v", names(c))
	assert.Equal(t, []string{"refers to academic.author (writes.aid ↔ author.aid)"}, got["academic.writes"].Reasons)
	assert.InDelta(t, got["academic.author"].Score*referrerShare, got["academic.writes"].Score, 1e-9, "well below the table the question names")

	c = Build(cat, sqlLike, Request{Question: "How many people joined in 2023?", Budget: 400})
	got = byName(c)
	require.Contains(t, got, "broker.sbcustomer", "chosen: %v", names(c))
	assert.Contains(t, got["broker.sbcustomer"].Reasons, "word form: joined → join… in a name")
	assert.Contains(t, got, "broker.sbtransaction", "it refers to sbcustomer: %v", names(c))
}

// A table a partner refers to comes too, at half the partner's score: the
// conference of the publications a link table joins.
func TestPartnersOfPartners(t *testing.T) {
	t.Parallel()
	cat := defogLike()
	c := Build(cat, sqlLike, Request{Question: "Which writes rows are there?", Budget: 400})
	got := byName(c)
	require.Contains(t, got, "academic.writes", "chosen: %v", names(c))
	require.Contains(t, got, "academic.publication", "chosen: %v", names(c))
	require.Contains(t, got, "academic.conference", "publication refers to it: %v", names(c))
	assert.Contains(t, got["academic.conference"].Reasons, "joins academic.publication (publication.cid ↔ conference.cid)")
	assert.InDelta(t, got["academic.publication"].Score*partnerShare, got["academic.conference"].Score, 1e-9)
}
