package grounding_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/grounding"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// A caller's lookup finds values only of the columns they may see: none
// of a table or column their policy denies, none of a column it masks
// (which they may filter by, but whose values are not theirs to read).
func TestValueLookupUnderAPolicy(t *testing.T) {
	ix := demoIndex(t, 0)
	ctx := context.Background()
	_, err := ix.Refresh(ctx)
	require.NoError(t, err)
	rules, err := access.Parse([]byte(`
policies:
  - name: full
    users: [UFULL]
    tables: ["analytics.*"]
  - name: narrow
    tables: ["analytics.*"]
    deny_tables: ["analytics.publishers"]
    mask_columns: ["analytics.apps.name"]
default: narrow
`))
	require.NoError(t, err)
	policies := map[string]warehouse.Access{}
	for _, p := range rules.List() {
		policies[p.Policy()] = p
	}
	columns := func(policy, question string) []string {
		ctx := warehouse.WithCaller(ctx, warehouse.Caller{UserID: "U1", Access: policies[policy]})
		matches, err := ix.Lookup(ctx, question)
		require.NoError(t, err)
		var cols []string
		for _, m := range matches {
			cols = append(cols, m.Table+"."+m.Column)
		}
		return cols
	}
	const game, publisher = `Release year of "counter strike"`, "How many games did Ubisoft publish?"
	assert.Contains(t, columns("full", game), "apps.name", "titles are the full policy's to see")
	assert.Contains(t, columns("full", publisher), "publishers.name")
	assert.NotContains(t, columns("narrow", game), "apps.name", "a masked column's values")
	assert.NotContains(t, columns("narrow", publisher), "publishers.name", "a denied table's values")
	assert.Contains(t, columns("narrow", "Which games are tagged open world?"), "tags.name", "what the policy leaves visible")
}

// The values listed whole (columns with few) are only those of columns
// the caller may see: not of a denied table, not of a masked column.
func TestListedUnderAPolicy(t *testing.T) {
	ix := demoIndex(t, 0)
	ctx := context.Background()
	_, err := ix.Refresh(ctx)
	require.NoError(t, err)
	rules, err := access.Parse([]byte(`
policies:
  - name: full
    users: [UFULL]
    tables: ["analytics.*"]
  - name: masked
    users: [UMASKED]
    tables: ["analytics.*"]
    mask_columns: ["analytics.platforms.name"]
  - name: denied
    tables: ["analytics.*"]
    deny_tables: ["analytics.platforms"]
default: denied
`))
	require.NoError(t, err)
	platforms := warehouse.ColumnRef{Schema: "analytics", Table: "platforms", Column: "name"}
	for _, p := range rules.List() {
		ctx := warehouse.WithCaller(ctx, warehouse.Caller{UserID: "U1", Access: p})
		listed, err := ix.Listed(ctx)
		require.NoError(t, err)
		if p.Policy() == "full" {
			assert.Equal(t, map[warehouse.ColumnRef][]string{platforms: {"linux", "mac", "windows"}}, listed,
				"the demo's one column with at most 20 values")
			continue
		}
		assert.Empty(t, listed, "policy %s", p.Policy())
	}
}

// renamed is a backend under another name: its value index rows are its
// own, apart from those the other tests share.
type renamed struct {
	warehouse.Backend
	name string
}

func (r renamed) Name() string { return r.name }

// The values listed whole are read from the index once and kept until the
// next refresh, which reads them again: a question costs no query for
// them, and a refresh brings what the data holds now.
func TestListedKeptUntilRefresh(t *testing.T) {
	base := demoIndex(t, 0)
	ix := &grounding.ValueIndex{DB: base.DB, Backend: renamed{base.Backend, "listed-cache-test"}}
	ctx := context.Background()
	_, err := ix.Refresh(ctx)
	require.NoError(t, err)
	platforms := warehouse.ColumnRef{Schema: "analytics", Table: "platforms", Column: "name"}
	listed, err := ix.Listed(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"linux", "mac", "windows"}, listed[platforms])

	// The index changes behind this bot's back (another process, a hand
	// edit): a bot that has read it already does not see it.
	_, err = base.DB.Pool().Exec(ctx, `UPDATE value_index SET value = 'bsd'
		WHERE backend = 'listed-cache-test' AND table_name = 'platforms' AND value = 'linux'`)
	require.NoError(t, err)
	listed, err = ix.Listed(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"linux", "mac", "windows"}, listed[platforms], "kept from the first read")
	fresh := &grounding.ValueIndex{DB: base.DB, Backend: ix.Backend}
	listed, err = fresh.Listed(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"bsd", "mac", "windows"}, listed[platforms], "what the index holds now")

	// A refresh reads the data and the listed values again.
	_, err = fresh.Refresh(ctx)
	require.NoError(t, err)
	listed, err = fresh.Listed(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"linux", "mac", "windows"}, listed[platforms], "read again at the refresh")
}
