package grounding

import (
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
