package pgwarehouse

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/sqlguard"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// The same query however it is written has one fingerprint; another
// constant, column or table makes another.
func TestFingerprint(t *testing.T) {
	t.Parallel()
	base := "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018"
	same := []string{
		"select COUNT(*) as games\n  from analytics.apps\n where release_year = 2018 -- the year",
		`SELECT count(*) AS "games" FROM "analytics"."apps" WHERE (release_year = 2018);`,
		"/* c */ SELECT  count( * )  AS games FROM analytics.apps WHERE release_year=2018",
	}
	other := []string{
		"SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2017",
		"SELECT count(*) AS n FROM analytics.apps WHERE release_year = 2018",
		"SELECT count(*) AS games FROM analytics.apps WHERE release_year = '2018'",
		"SELECT count(DISTINCT app_id) AS games FROM analytics.apps WHERE release_year = 2018",
		"SELECT count(*) AS games FROM public.apps WHERE release_year = 2018",
	}
	want, err := fingerprint(base)
	require.NoError(t, err)
	for _, q := range same {
		got, err := fingerprint(q)
		require.NoError(t, err)
		assert.Equal(t, want, got, "%s", q)
	}
	for _, q := range other {
		got, err := fingerprint(q)
		require.NoError(t, err)
		assert.NotEqual(t, want, got, "%s", q)
	}
	_, err = fingerprint("SELECT FROM WHERE (")
	assert.Error(t, err)
}

// A result's id follows the fingerprint: the same query written another
// way is the same dataset; SQL that does not parse, or a query of another
// backend, is named by its text.
func TestQueryID(t *testing.T) {
	t.Parallel()
	b := New(Config{})
	id := func(text string) string { return warehouse.IDOf(b, warehouse.Query{Backend: Name, Text: text}) }
	base := id("SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018")
	assert.Regexp(t, `^[0-9a-f]{8}$`, base)
	assert.Equal(t, base, id("select COUNT(*) as games\n  from analytics.apps\n where release_year = 2018 -- the year"))
	assert.NotEqual(t, base, id("SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2017"))
	assert.Equal(t, warehouse.QueryID("SELECT FROM WHERE ("), id("SELECT FROM WHERE ("))
	other := warehouse.Query{Backend: "cube", Text: "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018"}
	assert.Equal(t, warehouse.QueryID(other.Text), warehouse.IDOf(b, other))
}

// The fingerprint Check takes from the guard's encoded parse tree is the one the
// dialect gives the query as written, whether the guard lowers, adds or
// wraps a LIMIT or leaves the text alone: stored examples keep matching.
func TestFingerprintOfTheGuardsTree(t *testing.T) {
	t.Parallel()
	for _, q := range []string{
		"SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018",
		"select name from analytics.apps order by name limit 5 -- five",
		"SELECT name FROM analytics.apps ORDER BY name LIMIT 100000",
		"SELECT name FROM analytics.apps ORDER BY name LIMIT ALL",
		"SELECT name FROM analytics.apps ORDER BY name FETCH FIRST 3 ROWS WITH TIES",
		"WITH y AS (SELECT release_year, count(*) AS n FROM analytics.apps GROUP BY 1) SELECT * FROM y WHERE n > 10;",
		"/* c */ SELECT a.name, similarity(a.name, 'dota') FROM analytics.apps a WHERE a.name ILIKE '%dota%'",
	} {
		g, err := sqlguard.GuardTree(q, GuardPolicy([]string{"analytics"}, nil, 50))
		require.NoError(t, err, q)
		run, err := sqlguard.Guard(q, GuardPolicy([]string{"analytics"}, nil, 50))
		require.NoError(t, err, q)
		assert.Equal(t, run, g.Run, "GuardTree runs what Guard runs: %s", q)
		want, err := fingerprint(q)
		require.NoError(t, err, q)
		got, err := fingerprintEncoded(g.Encoded)
		require.NoError(t, err, q)
		assert.Equal(t, want, got, "%s", q)
	}
}

// A query's tables are read once and remembered: asked again, the same
// list comes back, and a caller changing its list changes no one else's.
func TestTablesRemembered(t *testing.T) {
	t.Parallel()
	sql := "WITH recent AS (SELECT * FROM analytics.apps WHERE release_year > 2017) " +
		"SELECT p.name, count(*) FROM recent JOIN analytics.app_publishers ap USING (app_id) JOIN Analytics.Publishers p USING (publisher_id) GROUP BY 1 -- remembered"
	want := []string{"analytics.app_publishers", "analytics.publishers", "analytics.apps"}
	first, err := tables(sql)
	require.NoError(t, err)
	assert.Equal(t, want, first)
	first[0] = "changed"
	again, err := tables(sql)
	require.NoError(t, err)
	assert.Equal(t, want, again, "asked again")
	_, err = tables("SELECT FROM WHERE apps")
	assert.Error(t, err, "a query that does not parse")
}

// The memo starts again empty when full, and forgets nothing before.
func TestTextMemoBounded(t *testing.T) {
	t.Parallel()
	m := textMemo{max: 2}
	m.put("a", []string{"x"})
	m.put("b", []string{"y"})
	got, ok := m.get("b")
	assert.True(t, ok)
	assert.Equal(t, []string{"y"}, got)
	m.put("c", []string{"z"})
	_, ok = m.get("a")
	assert.False(t, ok, "a full memo starts again")
	got, ok = m.get("c")
	assert.True(t, ok)
	assert.Equal(t, []string{"z"}, got)
}
