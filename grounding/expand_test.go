package grounding

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/lexicon"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// shop is a catalog whose words a question may not use: the budget holds
// two or three of its tables, so a table no word reaches is left out.
func shop() *warehouse.Catalog {
	return &warehouse.Catalog{Tables: []warehouse.Table{
		table("sales", "accounts", "Ledger accounts.", "account_id", "code", "balance"),
		table("sales", "customers", "", "customer_id", "name", "country"),
		table("sales", "employees", "", "employee_id", "name", "hired_on"),
		table("sales", "invoices", "Billing documents.", "invoice_id", "customer_id", "issued_on", "amount"),
		table("sales", "parcels", "", "parcel_id", "weight", "shipped_on"),
		table("sales", "polls", "", "poll_id", "title"),
		table("sales", "stores", "", "store_id", "city"),
		table("sales", "votes", "", "vote_id", "poll_id", "choice"),
	}}
}

func testLexicon(t *testing.T) *lexicon.Lexicon {
	t.Helper()
	wn, err := lexicon.OpenWordNet("../lexicon/testdata/wordnet")
	require.NoError(t, err)
	g, err := lexicon.ParseGlossary([]byte("terms:\n  - term: employee\n    synonyms: [staff, worker]\n"))
	require.NoError(t, err)
	return &lexicon.Lexicon{WordNet: wn, Glossary: g}
}

func TestWordFormsAndRelatedWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, question string
		lexicon        bool
		terms          []string
		want, reason   string
	}{
		{name: "a verb's form reaches a plural name", question: "How many people voted in each poll?",
			want: "sales.votes", reason: "word form: voted → vote"},
		{name: "an agent noun reaches its verb", question: "Count the voters", want: "sales.votes", reason: "word form: voter → vote"},
		{name: "a WordNet synonym", question: "Which clients spent most?", lexicon: true,
			want: "sales.customers", reason: "wordnet synonym: client → customer"},
		{name: "a WordNet attribute of an adjective's form", question: "which one is the heaviest?",
			lexicon: true, want: "sales.parcels", reason: "wordnet attribute: heaviest → weight"},
		{name: "the glossary's term for a synonym", question: "how many staff do we have?", lexicon: true,
			want: "sales.employees", reason: "glossary: staff → employee"},
		{name: "the model's term", question: "where do people shop the most?", terms: []string{"stores", "!!", ""},
			want: "sales.stores", reason: "model term: stores"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := Request{Question: tc.question, Budget: 90, Terms: tc.terms}
			if tc.lexicon {
				r.Lexicon = testLexicon(t)
			}
			c := Build(shop(), sqlLike, r)
			require.False(t, c.Whole)
			got := byName(c)
			require.Contains(t, got, tc.want, "chosen: %v", names(c))
			assert.Contains(t, got[tc.want].Reasons, tc.reason)
			assert.Equal(t, tc.want, c.Tables[0].QualifiedName(), "ranked first: %v", names(c))

			// Without the related word, nothing reaches it.
			if tc.lexicon || tc.terms != nil {
				c = Build(shop(), sqlLike, Request{Question: tc.question, Budget: 90})
				assert.Zero(t, byName(c)[tc.want].Score, "%v", byName(c)[tc.want].Reasons)
			}
		})
	}
}

// A related word counts less than the question's own word would; and a
// word the catalog has is not expanded through WordNet at all.
func TestRelatedWordsScoreBelowDirectMatches(t *testing.T) {
	t.Parallel()
	cat := &warehouse.Catalog{Tables: []warehouse.Table{
		table("a", "stores", "", "store_id", "city"),
		table("a", "regions", "", "region_id", "name"),
	}}
	lex := testLexicon(t)
	synonym := byName(Build(cat, sqlLike, Request{Question: "which shop has most regions?", Lexicon: lex}))["a.stores"]
	direct := byName(Build(cat, sqlLike, Request{Question: "which store has most regions?", Lexicon: lex}))["a.stores"]
	assert.Contains(t, synonym.Reasons, "wordnet synonym: shop → store")
	assert.Positive(t, synonym.Score)
	assert.Less(t, synonym.Score, direct.Score)

	cat.Tables = append(cat.Tables, table("a", "shops", "", "shop_id"))
	got := byName(Build(cat, sqlLike, Request{Question: "which shop has most regions?", Lexicon: lex}))
	assert.Zero(t, got["a.stores"].Score, "shop names a table: %v", got["a.stores"].Reasons)
}

// Inside names that do not split (sbcustomer), a related word is found
// as the question's own words are.
func TestRelatedWordsInsideNames(t *testing.T) {
	t.Parallel()
	cat := &warehouse.Catalog{Tables: []warehouse.Table{
		table("broker", "sbcustomer", "", "sbcustid", "sbcustname"),
		table("broker", "sbticker", "", "sbtickerid", "sbtickersymbol"),
	}}
	c := Build(cat, sqlLike, Request{Question: "list our clients", Lexicon: testLexicon(t)})
	got := byName(c)
	assert.Positive(t, got["broker.sbcustomer"].Score)
	assert.Equal(t, []string{"wordnet synonym: client → customer"}, got["broker.sbcustomer"].Reasons)
	assert.Zero(t, got["broker.sbticker"].Score)
}

// A related word both in a table's comment and inside its name counts as
// inside the name, where it weighs more: sbcustomer ranks above a table
// whose comment alone has the word.
func TestRelatedWordInCommentAndInsideName(t *testing.T) {
	t.Parallel()
	cat := &warehouse.Catalog{Tables: []warehouse.Table{
		table("broker", "sbcustomer", "Customer master data.", "sbcustid", "sbcustname"),
		table("broker", "sbnote", "Notes about a customer.", "sbnoteid", "body"),
	}}
	c := Build(cat, sqlLike, Request{Question: "list our clients", Lexicon: testLexicon(t)})
	got := byName(c)
	assert.Equal(t, []string{"wordnet synonym: client → customer"}, got["broker.sbcustomer"].Reasons)
	assert.Greater(t, got["broker.sbcustomer"].Score, got["broker.sbnote"].Score)
}

// embeddedLexicon is the WordNet the bot embeds, for the relations the
// small test copy lacks.
func embeddedLexicon() *lexicon.Lexicon {
	return &lexicon.Lexicon{WordNet: lexicon.EmbeddedWordNet()}
}

// flights is an airline catalog too big for a small budget, whose
// restriction table spells "stopover" and whose stops are in flight_stop.
func flights() *warehouse.Catalog {
	return &warehouse.Catalog{Tables: []warehouse.Table{
		table("atis", "flight", "", "flight_id", "airline_code", "from_airport", "to_airport"),
		table("atis", "restriction", "", "restriction_code", "stopovers", "application"),
		table("atis", "flight_stop", "", "flight_id", "stop_number", "stop_days", "stop_airport", "arrival_time",
			"arrival_airline", "arrival_flight_number", "departure_time", "departure_airline", "departure_flight_number", "stop_time"),
		table("atis", "fare", "", "fare_id", "from_airport", "to_airport", "one_direction_cost", "round_trip_cost"),
		table("atis", "city", "", "city_code", "city_name", "state_code", "country_name"),
		table("atis", "airport", "", "airport_code", "airport_name", "airport_location", "state_code"),
	}}
}

// A word the catalog has is still related, through WordNet, to words of
// its own root the catalog spells otherwise: "stopover" (a word of
// restriction.stopovers) to stop, which reaches flight_stop and keeps its
// stop columns when it is described in part.
func TestKnownWordReachesItsRoot(t *testing.T) {
	t.Parallel()
	q := "Which flights have a stopover in Dallas?"
	c := Build(flights(), sqlLike, Request{Question: q, Budget: 80, Lexicon: embeddedLexicon()})
	got := byName(c)
	require.Contains(t, got, "atis.flight_stop", "chosen: %v", names(c))
	assert.Contains(t, got["atis.flight_stop"].Reasons, "wordnet synonym: stopover → stop")
	why := map[string]string{}
	for _, k := range got["atis.flight_stop"].Kept {
		why[k.Name] = k.Why
	}
	require.NotNil(t, got["atis.flight_stop"].Kept, "described in part")
	assert.Equal(t, "wordnet synonym: stopover → stop", why["stop_airport"])

	without := byName(Build(flights(), sqlLike, Request{Question: q, Budget: 80}))["atis.flight_stop"]
	assert.NotContains(t, without.Reasons, "wordnet synonym: stopover → stop")
	assert.Less(t, without.Score, got["atis.flight_stop"].Score)
}

// papers is a bibliography whose table cite names the verb and whose
// publications count citations.
func papers() *warehouse.Catalog {
	return &warehouse.Catalog{Tables: []warehouse.Table{
		table("academic", "cite", "", "citing", "cited"),
		table("academic", "publication", "", "pid", "title", "citation_num", "year"),
		table("academic", "author", "", "aid", "name", "homepage"),
		table("academic", "journal", "", "jid", "name", "homepage"),
	}}
}

// "cited" is a word of the catalog (cite.cited), so WordNet's synonyms of
// it (mention, name, refer) are not looked for; its derived word citation
// is, and reaches publication.citation_num.
func TestKnownWordReachesItsDerivedWord(t *testing.T) {
	t.Parallel()
	q := "What are the top 3 articles with the highest times cited?"
	c := Build(papers(), sqlLike, Request{Question: q, Budget: 40, Lexicon: embeddedLexicon()})
	got := byName(c)
	require.Contains(t, got, "academic.publication", "chosen: %v", names(c))
	assert.Equal(t, []string{"wordnet derived: cited → citation"}, got["academic.publication"].Reasons)
	assert.Contains(t, got["academic.cite"].Reasons, "question: cited")
	for name, tb := range got {
		for _, r := range tb.Reasons {
			assert.NotContains(t, r, "→ name", "a synonym of another root reaches %s", name)
		}
	}
	assert.Zero(t, byName(Build(papers(), sqlLike, Request{Question: q, Budget: 40}))["academic.publication"].Score)
}

// Of a word the catalog has, neither an agent noun ("used" → user: who
// uses, another thing) nor a base form (the catalog spells "highest") is
// looked for.
func TestKnownWordKeepsNoAgentNorBaseForm(t *testing.T) {
	t.Parallel()
	cat := &warehouse.Catalog{Tables: []warehouse.Table{
		table("med", "drugs", "", "drug_id", "drug_name", "times_used"),
		table("med", "users", "", "user_id", "name"),
		table("geo", "highlow", "", "state_name", "highest_point", "lowest_point"),
		table("geo", "high_schools", "", "school_id", "name"),
	}}
	c := Build(cat, sqlLike, Request{Question: "Which drugs were used at the highest point?", Lexicon: embeddedLexicon()})
	require.True(t, c.Whole, "every table is scored")
	got := byName(c)
	assert.Zero(t, got["med.users"].Score, "%v", got["med.users"].Reasons)
	assert.Zero(t, got["geo.high_schools"].Score, "%v", got["geo.high_schools"].Reasons)
	assert.Positive(t, got["geo.highlow"].Score)
}

// A question's word the catalog does not have, written as one word of two
// of its words, counts as them: "timezone" as time and zone. Not a word
// of English (WordNet's "weekend", no week and end); and without WordNet
// to tell, none.
func TestClosedCompoundSplitsIntoCatalogWords(t *testing.T) {
	t.Parallel()
	cat := flights()
	cat.Tables = append(cat.Tables, table("atis", "time_zone", "", "time_zone_code", "time_zone_name", "hours_from_gmt"),
		table("atis", "days", "", "day_name", "week_number", "end_of_month"))
	q := "Which airports are in each timezone on weekends?"
	c := Build(cat, sqlLike, Request{Question: q, Lexicon: embeddedLexicon()})
	require.True(t, c.Whole)
	got := byName(c)
	assert.Contains(t, got["atis.time_zone"].Reasons, "compound: timezone → time, timezone → zone")
	assert.Greater(t, got["atis.time_zone"].Score, got["atis.flight_stop"].Score, "time alone is in flight_stop's stop_time")
	assert.Zero(t, got["atis.days"].Score, "%v", got["atis.days"].Reasons)

	got = byName(Build(cat, sqlLike, Request{Question: q}))
	assert.Zero(t, got["atis.time_zone"].Score, "%v", got["atis.time_zone"].Reasons)

	catalog := func(words ...string) func(string) bool {
		return func(w string) bool { return slices.Contains(words, w) }
	}
	assert.Equal(t, []string{"user", "name"}, splitCompound("username", catalog("user", "name")))
	assert.Equal(t, []string{"stop"}, splitCompound("stopover", catalog("stop")), "a catalog word and a stop word")
	assert.Nil(t, splitCompound("payload", catalog("pay")), "load is no word of the catalog")
	assert.Nil(t, splitCompound("within", catalog("with", "in")), "parts of three letters or more")
	assert.Nil(t, splitCompound("thereof", catalog()), "two stop words")
}
