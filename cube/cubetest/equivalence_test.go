package cubetest_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCubeMatchesSQL runs questions through the demo Cube model and as hand-written SQL on the
// same database, and wants the same rows: the model's measures, segments and joins mean what
// their descriptions say. The SQL casts every column to text; Cube's values are rendered as
// Postgres prints them (see text), so the comparison is exact, digits and all.
func TestCubeMatchesSQL(t *testing.T) {
	t.Parallel()
	db, s := demoCube(t)

	tests := []struct {
		name    string
		query   string   // Cube /load query
		columns []string // Cube members, in the SQL's column order
		sql     string
	}{
		{
			name: "games per release year 2017 and 2018",
			query: `{"measures":["Apps.count"],"dimensions":["Apps.release_year"],
				"filters":[{"member":"Apps.release_year","operator":"equals","values":["2017","2018"]}],
				"order":[["Apps.release_year","asc"]]}`,
			columns: []string{"Apps.release_year", "Apps.count"},
			sql: `SELECT release_year::text, count(*)::text FROM analytics.apps
				WHERE release_year IN (2017, 2018) GROUP BY release_year ORDER BY release_year`,
		},
		{
			name: "games per year through the release_date time dimension",
			query: `{"measures":["Apps.count"],
				"timeDimensions":[{"dimension":"Apps.release_date","granularity":"year","dateRange":["2017-01-01","2018-12-31"]}],
				"order":[["Apps.release_date","asc"]]}`,
			columns: []string{"Apps.release_date.year", "Apps.count"},
			sql: `SELECT to_char(date_trunc('year', release_date), 'YYYY-MM-DD"T"HH24:MI:SS.MS'), count(*)::text
				FROM analytics.apps WHERE release_date BETWEEN '2017-01-01' AND '2018-12-31'
				GROUP BY 1 ORDER BY 1`,
		},
		{
			name:    "free games through the free segment",
			query:   `{"measures":["Apps.count"],"segments":["Apps.free"]}`,
			columns: []string{"Apps.count"},
			sql:     `SELECT count(*)::text FROM analytics.apps WHERE price = 0`,
		},
		{
			name:    "average and median price of paid games",
			query:   `{"measures":["Apps.average_price","Apps.median_price"],"segments":["Apps.paid"]}`,
			columns: []string{"Apps.average_price", "Apps.median_price"},
			sql: `SELECT avg(price)::text, (percentile_cont(0.5) WITHIN GROUP (ORDER BY price))::text
				FROM analytics.apps WHERE price > 0`,
		},
		{
			name: "top 5 publishers by game count",
			query: `{"measures":["Apps.count"],"dimensions":["Publishers.name"],
				"order":[["Apps.count","desc"],["Publishers.name","asc"]],"limit":5}`,
			columns: []string{"Publishers.name", "Apps.count"},
			sql: `SELECT p.name, count(*)::text FROM analytics.publishers p
				JOIN analytics.app_publishers ap USING (publisher_id)
				GROUP BY p.name ORDER BY count(*) DESC, p.name LIMIT 5`,
		},
		{
			name:    "highly rated games",
			query:   `{"measures":["Apps.count"],"segments":["Apps.highly_rated"]}`,
			columns: []string{"Apps.count"},
			sql:     `SELECT count(*)::text FROM analytics.apps WHERE positive_pct >= 80`,
		},
		{
			name:    "popular and very positive games",
			query:   `{"measures":["Apps.count"],"segments":["Apps.popular","Apps.very_positive"]}`,
			columns: []string{"Apps.count"},
			sql:     `SELECT count(*)::text FROM analytics.apps WHERE total_ratings >= 1000 AND positive_pct >= 90`,
		},
		{
			// Sums over a one-to-many join: each Ubisoft game must count once, not once per row
			// of the link table; and a ratio of two sums, not an average of ratios.
			name: "reviews of one publisher's games",
			query: `{"measures":["Apps.count","Apps.total_reviews","Apps.overall_positive_pct","Apps.average_review_pct"],
				"filters":[{"member":"Publishers.name","operator":"equals","values":["Ubisoft"]}]}`,
			columns: []string{"Apps.count", "Apps.total_reviews", "Apps.overall_positive_pct", "Apps.average_review_pct"},
			sql: `SELECT count(*)::text, sum(a.total_ratings)::text,
					round(100.0 * sum(a.positive_ratings) / nullif(sum(a.total_ratings), 0), 2)::text,
					avg(a.positive_pct)::text
				FROM analytics.apps a WHERE a.app_id IN (SELECT ap.app_id FROM analytics.app_publishers ap
					JOIN analytics.publishers p USING (publisher_id) WHERE p.name = 'Ubisoft')`,
		},
		{
			name: "games per platform",
			query: `{"measures":["Apps.count"],"dimensions":["Platforms.name"],
				"order":[["Apps.count","desc"]]}`,
			columns: []string{"Platforms.name", "Apps.count"},
			sql: `SELECT pl.name, count(*)::text FROM analytics.app_platforms ap
				JOIN analytics.platforms pl USING (platform_id) GROUP BY pl.name ORDER BY count(*) DESC`,
		},
		{
			name: "top 3 main tags of small-audience games",
			query: `{"measures":["Apps.count"],"dimensions":["Tags.name"],"segments":["AppTags.main_tag","Apps.small_audience"],
				"order":[["Apps.count","desc"],["Tags.name","asc"]],"limit":3}`,
			columns: []string{"Tags.name", "Apps.count"},
			sql: `SELECT tg.name, count(*)::text FROM analytics.apps a
				JOIN analytics.app_tags at USING (app_id) JOIN analytics.tags tg USING (tag_id)
				WHERE at.rank = 1 AND a.owners_max <= 50000
				GROUP BY tg.name ORDER BY count(*) DESC, tg.name LIMIT 3`,
		},
		{
			name: "developers and their games in the Indie genre of 2018",
			query: `{"measures":["Developers.count","Apps.count"],
				"filters":[{"member":"Genres.name","operator":"equals","values":["Indie"]},
					{"member":"Apps.release_year","operator":"equals","values":["2018"]}]}`,
			columns: []string{"Developers.count", "Apps.count"},
			sql: `SELECT count(DISTINCT ad.developer_id)::text, count(DISTINCT a.app_id)::text
				FROM analytics.apps a JOIN analytics.app_genres ag USING (app_id)
				JOIN analytics.genres g USING (genre_id) JOIN analytics.app_developers ad USING (app_id)
				WHERE g.name = 'Indie' AND a.release_year = 2018`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := sqlRows(t, db.Pool(), tt.sql)
			require.NotEmpty(t, want, "the SQL returns no rows, so the case proves nothing")

			var got [][]string
			for _, row := range load(t, s, tt.query) {
				var r []string
				for _, c := range tt.columns {
					v, ok := row[c]
					require.True(t, ok, "Cube row %v has no %s", row, c)
					r = append(r, text(v))
				}
				got = append(got, r)
			}
			assert.Equal(t, want, got, "Cube rows (got) vs SQL rows (want)")
		})
	}
}

// sqlRows runs a query whose columns are all text and returns its rows, NULL as "NULL".
func sqlRows(t *testing.T, pool *pgxpool.Pool, sql string) [][]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rows, err := pool.Query(ctx, sql)
	require.NoError(t, err, sql)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]string, error) {
		vals, err := r.Values()
		if err != nil {
			return nil, err
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = "NULL"
			if v != nil {
				row[i] = v.(string)
			}
		}
		return row, nil
	})
	require.NoError(t, err, sql)
	return out
}
