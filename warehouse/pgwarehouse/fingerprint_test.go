package pgwarehouse

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
