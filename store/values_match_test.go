package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/pgpool"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// matchesOf returns "table.column: value (why)" for each match.
func matchesOf(ms []store.ValueMatch) []string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s.%s: %s (%s)", m.Table, m.Column, m.Value, m.Why))
	}
	return out
}

// A match says why it matched; values with the same word stems as the
// phrase match though their trigrams differ ("successful" and 'success'),
// just below exact matches; a word of the schema keeps only its exact and
// stemmed matches, and none in a column of titles; a place's other name
// matches as a place.
func TestMatchValuesWhy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	require.NoError(t, db.PrepareValueIndex(ctx))
	col := func(table, column string) store.ValueColumn {
		return store.ValueColumn{Backend: "postgres", Schema: "pay", Table: table, Column: column}
	}
	require.NoError(t, db.ReplaceValues(ctx, col("transactions", "status"), 3, -1, []string{"success", "failed", "pending"}))
	require.NoError(t, db.ReplaceValues(ctx, col("checkins", "day"), 2, -1, []string{"Weekend", "Weekday"}))
	require.NoError(t, db.ReplaceValues(ctx, col("notifications", "type"), 2, -1, []string{"transaction", "promotion"}))
	require.NoError(t, db.ReplaceValues(ctx, col("users", "country"), 3, -1, []string{"FR", "US", "France Télécom"}))
	titles := []string{"Transaction"}
	for i := range 1200 {
		titles = append(titles, fmt.Sprintf("Game number %d", i))
	}
	require.NoError(t, db.ReplaceValues(ctx, col("games", "title"), len(titles), -1, titles))

	match := func(phrases ...store.ValuePhrase) []string {
		t.Helper()
		ms, err := db.MatchValues(ctx, "postgres", phrases, 0.5, 5, 40)
		require.NoError(t, err)
		return matchesOf(ms)
	}
	assert.Equal(t, []string{"transactions.status: success (stem)"}, match(store.ValuePhrase{Text: "successful"}),
		"same stem, too few shared trigrams for a fuzzy match")
	assert.Equal(t, []string{"checkins.day: Weekend (stem)"}, match(store.ValuePhrase{Text: "weekends"}))
	assert.Equal(t, []string{"notifications.type: transaction (stem)"}, match(store.ValuePhrase{Text: "transactions", Strict: true}),
		"a word of the schema: stemmed matches only, and not the game titled 'Transaction' among 1,201 titles")
	got := match(store.ValuePhrase{Text: "transaction"})
	assert.Contains(t, got, "notifications.type: transaction (exact)")
	assert.Contains(t, got, "games.title: Transaction (exact)", "not a word of the schema: every match")
	assert.Equal(t, []string{"users.country: FR (place)"}, match(store.ValuePhrase{Text: "FR", Phrase: "French", Why: store.MatchPlace}))
	ms, err := db.MatchValues(ctx, "postgres", []store.ValuePhrase{{Text: "France", Phrase: "French", Why: store.MatchPlace}}, 0.5, 5, 40)
	require.NoError(t, err)
	assert.Empty(t, matchesOf(ms), "a place's name matches only exactly or by stems: not 'France Télécom'")

	// An exact match ranks above a stemmed one.
	require.NoError(t, db.ReplaceValues(ctx, col("checkins", "label"), 2, -1, []string{"weekends", "weekend"}))
	ms, err = db.MatchValues(ctx, "postgres", []store.ValuePhrase{{Text: "weekends"}}, 0.5, 5, 40)
	require.NoError(t, err)
	require.NotEmpty(t, ms)
	assert.Equal(t, "checkins.label: weekends (exact)", matchesOf(ms)[0])
}

// Columns whose best values match equally well come back in one order,
// by table, column and schema: the same table and column in two schemas
// (atis.city and geography.city, both with 'Dallas') are not ordered by
// chance, lookup after lookup.
func TestMatchValuesTiesInColumnOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	require.NoError(t, db.PrepareValueIndex(ctx))
	for _, schema := range []string{"geography", "atis"} {
		col := store.ValueColumn{Backend: "postgres", Schema: schema, Table: "city", Column: "city_name"}
		require.NoError(t, db.ReplaceValues(ctx, col, 2, -1, []string{"Dallas", "Austin"}))
	}
	for range 20 {
		ms, err := db.MatchValues(ctx, "postgres", []store.ValuePhrase{{Text: "Dallas"}}, 0.5, 5, 40)
		require.NoError(t, err)
		var got []string
		for _, m := range ms {
			got = append(got, m.Schema+"."+m.Table+"."+m.Column+": "+m.Value)
		}
		if !assert.Equal(t, []string{"atis.city.city_name: Dallas", "geography.city.city_name: Dallas"}, got) {
			return
		}
	}
}

// ListedValues returns the whole of the columns with few, short values,
// with the rows that hold them (-1 when not known), for the caller to tell
// codes from names: not a column of 21 values, one with a long value, an
// empty column or one not indexed.
func TestListedValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	require.NoError(t, db.PrepareValueIndex(ctx))
	col := func(table, column string) store.ValueColumn {
		return store.ValueColumn{Backend: "postgres", Schema: "hr", Table: table, Column: column}
	}
	numbered := func(format string, n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf(format, i))
		}
		return out
	}
	require.NoError(t, db.ReplaceValues(ctx, col("people", "sex"), 2, 20, []string{"M", "F"}))
	require.NoError(t, db.ReplaceValues(ctx, col("people", "note"), 2, 20, []string{"ok", "a very long note that says a good deal about a person"}))
	require.NoError(t, db.ReplaceValues(ctx, col("people", "department"), 21, 400, numbered("dept %d", 21)))
	require.NoError(t, db.ReplaceValues(ctx, col("people", "empty"), 0, 0, []string{}))
	require.NoError(t, db.ReplaceValues(ctx, col("people", "name"), 60_000, -1, nil))
	require.NoError(t, db.ReplaceValues(ctx, col("people", "email"), 20, 20, numbered("p%d@example.com", 20)))
	require.NoError(t, db.ReplaceValues(ctx, col("offices", "code"), 3, -1, []string{"LYS", "CDG", "NCE"}))

	emails := numbered("p%d@example.com", 20)
	slices.Sort(emails)
	got, err := db.ListedValues(ctx, "postgres", 20, 40)
	require.NoError(t, err)
	assert.Equal(t, map[store.ValueColumn]store.FewValues{
		col("people", "sex"):   {Values: []string{"F", "M"}, Rows: 20},
		col("people", "email"): {Values: emails, Rows: 20},
		col("offices", "code"): {Values: []string{"CDG", "LYS", "NCE"}, Rows: -1},
	}, got, "not 21 values, not a long one, not an empty or unindexed column")

	// The next refresh counts the offices' rows; a backend that stops
	// counting leaves the emails' unknown.
	require.NoError(t, db.ReplaceValues(ctx, col("offices", "code"), 3, 3, []string{"LYS", "CDG", "NCE"}))
	require.NoError(t, db.ReplaceValues(ctx, col("people", "email"), 20, -1, numbered("p%d@example.com", 20)))
	got, err = db.ListedValues(ctx, "postgres", 20, 40)
	require.NoError(t, err)
	assert.EqualValues(t, 3, got[col("offices", "code")].Rows)
	assert.EqualValues(t, -1, got[col("people", "email")].Rows)
}

// The lookup finds pg_trgm wherever it is installed, also after it moved
// to another schema, uses the stem index only once it exists, and reports
// ErrNoTrigram, as it is, once pg_trgm is gone.
func TestMatchValuesFindsTrigram(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	city := store.ValueColumn{Backend: "postgres", Schema: "shop", Table: "stores", Column: "city"}
	require.NoError(t, db.ReplaceValues(ctx, city, 3, -1, []string{"Lyon", "Paris", "Nice"}))
	match := func(text string) ([]string, error) {
		t.Helper()
		ms, err := db.MatchValues(ctx, "postgres", []store.ValuePhrase{{Text: text}}, 0.5, 5, 40)
		return matchesOf(ms), err
	}
	got, err := match("Pariss")
	require.NoError(t, err)
	assert.Equal(t, []string{"stores.city: Paris (fuzzy)"}, got, "no stem index yet: trigrams alone")

	require.NoError(t, db.PrepareValueIndex(ctx))
	got, err = match("Pariss")
	require.NoError(t, err)
	assert.Equal(t, []string{"stores.city: Paris (fuzzy)"}, got, "with the stem index")
	// Where pg_trgm is and the stem index are remembered now: a match is
	// one round trip, the batch of its settings and phrases.
	var rt pgpool.RoundTrips
	ms, err := db.MatchValues(pgpool.CountRoundTrips(ctx, &rt), "postgres", []store.ValuePhrase{{Text: "Nice"}, {Text: "Lyon"}}, 0.5, 5, 40)
	require.NoError(t, err)
	assert.Equal(t, []string{"stores.city: Lyon (exact)", "stores.city: Nice (exact)"}, matchesOf(ms))
	assert.Equal(t, 1, rt.Len(), "round trips of a match once pg_trgm is known:\n%s", &rt)

	// pg_trgm moves after it was found: the match fails on the schema it
	// remembered, forgets it and finds it again.
	_, err = db.Pool().Exec(ctx, `CREATE SCHEMA trgm_elsewhere; ALTER EXTENSION pg_trgm SET SCHEMA trgm_elsewhere`)
	require.NoError(t, err)
	got, err = match("Paris")
	require.NoError(t, err)
	assert.Equal(t, []string{"stores.city: Paris (exact)"}, got, "pg_trgm in another schema")

	_, err = db.Pool().Exec(ctx, `DROP EXTENSION pg_trgm CASCADE`)
	require.NoError(t, err)
	_, err = match("Paris")
	assert.Equal(t, store.ErrNoTrigram, err, "without pg_trgm")
}

// The match finds every value at least minSimilarity alike to a phrase,
// as a whole (trigram similarity) or by its best extent (word
// similarity), as pg_trgm computes them on their own: the match looks for
// them with the word similarity operator alone (queueMatchStatements),
// since a value as alike as a whole is at least as alike by its best
// extent. Names, titles, codes and addresses, each in a column of its own
// (so no column's cap leaves one out), asked with themselves, their words,
// pairs of their words, misspellings and longer phrases.
func TestMatchValuesFindsEveryAlikeValue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	require.NoError(t, db.PrepareValueIndex(ctx))
	values := []string{
		"Bethesda Softworks", "Ubisoft Shanghai", "Valve", "Counter-Strike: Global Offensive",
		"The Witcher 3: Wild Hunt", "FIFA 19", "Free to Play", "Massively Multiplayer", "Single-player",
		"Steam Achievements", "linux", "Anytown", "Upper East Side", "123 Main St, Anytown US 12345",
		"San Francisco", "United States", "success", "mobile_app", "ann@corp.test", "Machine Learning",
		"Journal of Artificial Intelligence Research", "Midtown", "30% off workout gear",
	}
	for i, v := range values {
		c := store.ValueColumn{Backend: "postgres", Schema: "s", Table: "t", Column: fmt.Sprintf("c%02d", i)}
		require.NoError(t, db.ReplaceValues(ctx, c, 1, -1, []string{v}))
	}
	var phrases []string
	for i, v := range values {
		phrases = append(phrases, v, v[1:], v[:len(v)-1]) // the value, and misspelt
		words := strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == '-' || r == ':' || r == ',' })
		for j, w := range words {
			if len(w) > 2 {
				phrases = append(phrases, w)
			}
			if j > 0 {
				phrases = append(phrases, words[j-1]+" "+w)
			}
		}
		phrases = append(phrases, v+" "+values[(i+1)%len(values)])
	}
	var schema string
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
		WHERE e.extname = 'pg_trgm'`).Scan(&schema))
	q := pgx.Identifier{schema}.Sanitize()
	const minSimilarity = 0.5
	found := 0
	for _, p := range slices.Compact(slices.Sorted(slices.Values(phrases))) {
		var want []string
		require.NoError(t, db.Pool().QueryRow(ctx, `
			SELECT coalesce(array_agg(v ORDER BY v), '{}') FROM unnest($1::text[]) v
			WHERE greatest(`+q+`.similarity(v, $2), `+q+`.word_similarity($2, v)) >= $3`,
			values, p, minSimilarity).Scan(&want))
		ms, err := db.MatchValues(ctx, "postgres", []store.ValuePhrase{{Text: p}}, minSimilarity, 5, len(values))
		require.NoError(t, err)
		var got []string
		for _, m := range ms {
			got = append(got, m.Value)
		}
		for _, v := range want {
			assert.Contains(t, got, v, "%q is alike to %q", v, p)
		}
		found += len(want)
	}
	assert.Greater(t, found, len(values), "values found by their words and misspellings too")
}
