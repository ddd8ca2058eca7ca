package grounding_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/grounding"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// testDB holds the demo data and, once TestMain has refreshed it, the value
// index of its text columns.
var testDB storetest.Shared

func TestMain(m *testing.M) {
	os.Exit(storetest.Main(m, "grounding", &testDB, func(ctx context.Context, db *store.DB) error {
		_, err := demo.Load(ctx, db.Pool(), demo.Options{})
		return err
	}))
}

// demoIndex is a value index over the demo data.
func demoIndex(t testing.TB, maxDistinct int) *grounding.ValueIndex {
	t.Helper()
	db := testDB.Need(t)
	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{DatabaseURL: testDB.URL}})
	t.Cleanup(b.Close)
	return &grounding.ValueIndex{DB: db, Backend: b, MaxDistinct: maxDistinct, Domain: "Steam store games"}
}

// TestValueLookup finds the values the demo data really stores for names
// as people type them: other spellings, cases, suffixes and accents.
func TestValueLookup(t *testing.T) {
	ix := demoIndex(t, 0)
	ctx := context.Background()
	st, err := ix.Refresh(ctx)
	require.NoError(t, err)
	assert.Equal(t, 7, st.Columns, "the demo's text columns")
	assert.Equal(t, 7, st.Indexed)
	assert.Greater(t, st.Values, 59_000, "names of games, developers, publishers, genres, tags, categories, platforms")

	tests := []struct {
		question string
		column   string // table.column
		want     []string
	}{
		{"How many games did Ubisoft publish?", "publishers.name", []string{"Ubisoft", "Ubisoft®", "Ubisoft Entertainment"}},
		{"How many games did ubisoft shanghai make?", "developers.name", []string{"Ubisoft Shanghai", "Ubisoft  Shanghaï"}},
		{"Games by hubiao", "developers.name", []string{"HuBiao", "Hubiao", "hubiao"}},
		{"Which games are tagged open world?", "tags.name", []string{"Open World"}},
		{"Average price of rpg games", "genres.name", []string{"RPG"}},
		{"How many roguelike games are there?", "tags.name", []string{"Rogue-like"}},
		{"Games published by Bethesda Softworks", "publishers.name", []string{"Bethesda Softworks", "Bethesda-Softworks"}},
		{`Release year of "counter strike"`, "apps.name", []string{"Counter-Strike"}},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			matches, err := ix.Lookup(ctx, tt.question)
			require.NoError(t, err)
			var got []string
			for _, m := range matches {
				if m.Table+"."+m.Column == tt.column {
					got = append(got, m.Value)
				}
			}
			for _, w := range tt.want {
				assert.Contains(t, got, w, "values of %s among %v", tt.column, matches)
			}
		})
	}

	t.Run("words of the data as a whole are not looked up", func(t *testing.T) {
		matches, err := ix.Lookup(ctx, "How many games are there?")
		require.NoError(t, err)
		assert.Empty(t, matches, "'games' names the data, not a value")
	})

	t.Run("another form of a schema word finds only exact and stemmed values", func(t *testing.T) {
		// "publish" is a form of the table publishers' word: it names the
		// schema, so 'Self-Publish' and 'Publisher Tycoon' are noise.
		matches, err := ix.Lookup(ctx, "How many games did Bethesda publish?")
		require.NoError(t, err)
		for _, m := range matches {
			if m.Phrase == "publish" {
				assert.Contains(t, []string{store.MatchExact, store.MatchStem}, m.Why, "%q matched %q", m.Phrase, m.Value)
			}
		}
	})

	t.Run("nor long phrases that start or end with them", func(t *testing.T) {
		matches, err := ix.Lookup(ctx, "How many games did Ubisoft Shanghai release in 2018?")
		require.NoError(t, err)
		var values []string
		for _, m := range matches {
			assert.NotContains(t, []string{"release in 2018", "games did Ubisoft", "games did Ubisoft Shanghai", "Ubisoft Shanghai release"},
				m.Phrase, "%q matched %q", m.Phrase, m.Value)
			values = append(values, m.Value)
		}
		assert.Contains(t, values, "Ubisoft  Shanghaï", "the inner phrase still finds the developer")
	})
}

// A column with more distinct values than the cap is not indexed; the
// index says so.
func TestValueIndexSkipsBigColumns(t *testing.T) {
	ix := demoIndex(t, 20_000)
	ix.Backend = pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{DatabaseURL: testDB.URL}})
	st, err := ix.Refresh(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, st.Skipped, "27,075 game names are over 20,000")
	assert.Equal(t, 6, st.Indexed)
	stats, err := ix.DB.ValueIndexStats(context.Background(), "postgres")
	require.NoError(t, err)
	assert.Equal(t, 7, stats.Columns)
	assert.Equal(t, 6, stats.Indexed)

	// The next refresh, with the cap raised, indexes it again.
	ix.MaxDistinct = 0
	st, err = ix.Refresh(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 7, st.Indexed)
}

func TestPhrases(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"counter strike", "games by Ubisoft Shanghai", "games by Ubisoft", "Ubisoft Shanghai",
		"games", "Ubisoft", "Shanghai", "counter", "strike"},
		grounding.Phrases(`How many games by Ubisoft Shanghai, and "counter strike"?`),
		"quoted text first, then runs of four to one words within the punctuation")
	assert.Equal(t, []string{"Tom's Hardware in 2018", "Hardware in 2018", "Tom's Hardware", "Tom's", "Hardware"},
		grounding.Phrases("Tom's Hardware in 2018"), "a number alone is no phrase")
	assert.Empty(t, grounding.Phrases("how many?"))
	assert.Equal(t, []string{"users from the US", "users", "US", "wallet"},
		grounding.Phrases("How many users from the US in the past 30 days? wallet, in 2 weeks"),
		"a code in capitals is a phrase even when it is a stop word; a length of time is none")
	assert.Equal(t, []string{"taught the most classes", "teacher taught", "teacher", "taught", "classes"},
		grounding.Phrases("Which teacher taught the most classes, and how many have they taught?"),
		"a pronoun is no phrase: \"they\" would match every stored value starting \"The …\"")
}

// BenchmarkValueLookup matches the phrases of a question against the
// demo's 59,622 indexed values.
func BenchmarkValueLookup(b *testing.B) {
	ix := demoIndex(b, 0)
	ctx := context.Background()
	if _, err := ix.Refresh(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		matches, err := ix.Lookup(ctx, "How many games did Ubisoft Shanghai release in 2018?")
		if err != nil || len(matches) == 0 {
			b.Fatalf("lookup: %v, %d matches", err, len(matches))
		}
	}
}
