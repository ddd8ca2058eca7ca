package grounding_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/grounding"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// A word shared by many long values does not cost the lookup its
// deadline: "microphone" in each of 30,000 headset titles of 139
// characters was scored in all of them, the lookup was canceled after its
// two seconds, and the question found no value at all, not even the exact
// 'Ubisoft' of its other word. Exact and stemmed matches still come first.
func TestValueLookupOfAWordInManyValues(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, `
		CREATE SCHEMA shop;
		CREATE TABLE shop.listings (id int PRIMARY KEY, title text);
		INSERT INTO shop.listings
			SELECT i, left(format('Item %s %s Wireless Gaming Headset with Microphone and Noise Cancelling Headphones for %s PC PS5 Xbox ',
			                      i, md5(i::text), md5((i * 7)::text)) || repeat('x', 200), 139)
			FROM generate_series(1, 30000) AS i;
		CREATE TABLE shop.publishers (id int PRIMARY KEY, name text);
		INSERT INTO shop.publishers VALUES (1, 'Ubisoft'), (2, 'Valve'), (3, 'Ubisoft Entertainment');
		CREATE TABLE shop.features (id int PRIMARY KEY, label text);
		INSERT INTO shop.features VALUES (1, 'Microphone'), (2, 'Controller support'), (3, 'Headphones');
		GRANT USAGE ON SCHEMA shop TO analyticsbot_reader;
		GRANT SELECT ON ALL TABLES IN SCHEMA shop TO analyticsbot_reader;`)
	require.NoError(t, err, "load the shop")
	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{DatabaseURL: url, Schemas: []string{"shop"}}})
	t.Cleanup(b.Close)
	// The titles are written as a refresh writes them, with the trigram
	// index built once after them rather than kept up at each of 30,000
	// inserts (half a minute).
	ix := &grounding.ValueIndex{DB: db, Backend: b, MaxDistinct: 100}
	st, err := ix.Refresh(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, st.Skipped, "the titles, left to write below")
	values, err := b.Values(ctx, warehouse.ColumnRef{Schema: "shop", Table: "listings", Column: "title"}, 30_001)
	require.NoError(t, err)
	require.Equal(t, 30_000, len(values.Distinct), "the titles")
	_, err = db.Pool().Exec(ctx, `DROP INDEX value_index_trgm_idx`)
	require.NoError(t, err)
	titles := store.ValueColumn{Backend: "postgres", Schema: "shop", Table: "listings", Column: "title"}
	require.NoError(t, db.ReplaceValues(ctx, titles, len(values.Distinct), values.Rows, values.Distinct))
	require.NoError(t, db.PrepareValueIndex(ctx))
	require.NoError(t, db.AnalyzeValueIndex(ctx))

	tests := []struct {
		name     string
		question string
		want     []string // table.column: value
	}{
		{name: "the common word alone", question: "listings with a microphone",
			want: []string{"features.label: Microphone"}},
		{name: "beside another word", question: "Ubisoft games with a microphone",
			want: []string{"publishers.name: Ubisoft", "features.label: Microphone"}},
		{name: "two common words", question: "headphones with a microphone from valve",
			want: []string{"features.label: Headphones", "features.label: Microphone", "publishers.name: Valve"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			matches, err := ix.Lookup(ctx, tt.question)
			require.NoError(t, err, "the lookup ends within its deadline")
			var got []string
			for _, m := range matches {
				got = append(got, m.Table+"."+m.Column+": "+m.Value)
			}
			for _, w := range tt.want {
				assert.Contains(t, got, w, "matches of %q", tt.question)
			}
		})
	}
}
