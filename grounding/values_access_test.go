package grounding_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/grounding"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
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

// The values listed whole (codes) are only those of columns the caller may
// see: not of a denied table, not of a masked column. Which columns hold
// codes is the data's fact, not the caller's: a policy that leaves only
// the customers' id, name and email does not make their table a lookup
// table whose names and emails are listed.
func TestListedUnderAPolicy(t *testing.T) {
	t.Parallel()
	ix := shopIndex(t)
	ctx := context.Background()
	_, err := ix.Refresh(ctx)
	require.NoError(t, err)
	rules, err := access.Parse([]byte(`
policies:
  - name: full
    users: [UFULL]
    tables: ["shop.*"]
  - name: masked
    users: [UMASKED]
    tables: ["shop.*"]
    mask_columns: ["shop.customers.status"]
  - name: narrowed
    users: [UNARROW]
    tables: ["shop.*"]
    deny_columns: ["shop.customers.phone", "shop.customers.status", "shop.customers.gender", "shop.customers.state"]
  - name: denied
    tables: ["shop.*"]
    deny_tables: ["shop.customers"]
default: denied
`))
	require.NoError(t, err)
	want := map[string]map[warehouse.ColumnRef][]string{
		"full": shopCodes,
		"masked": {gender: shopCodes[gender], state: shopCodes[state], country: shopCodes[country], region: shopCodes[region],
			currency: shopCodes[currency], currencyName: shopCodes[currencyName]},
		"narrowed": {country: shopCodes[country], region: shopCodes[region], currency: shopCodes[currency], currencyName: shopCodes[currencyName]},
		"denied":   {country: shopCodes[country], region: shopCodes[region], currency: shopCodes[currency], currencyName: shopCodes[currencyName]},
	}
	for _, p := range rules.List() {
		ctx := warehouse.WithCaller(ctx, warehouse.Caller{UserID: "U1", Access: p})
		// A process that has not read the listing yet reads it for this
		// caller's question.
		fresh := &grounding.ValueIndex{DB: ix.DB, Backend: ix.Backend}
		listed, err := fresh.Listed(ctx)
		require.NoError(t, err)
		assert.Equal(t, want[p.Policy()], listed, "policy %s", p.Policy())
	}
}

// The values listed whole are read from the index once and kept until the
// next refresh, which reads them again: a question costs no query for
// them, and a refresh brings what the data holds now.
func TestListedKeptUntilRefresh(t *testing.T) {
	t.Parallel()
	ix := shopIndex(t)
	ctx := context.Background()
	_, err := ix.Refresh(ctx)
	require.NoError(t, err)
	codes := []string{"active", "churned", "trial"}
	listed, err := ix.Listed(ctx)
	require.NoError(t, err)
	assert.Equal(t, codes, listed[status])

	// The index changes behind this bot's back (another process, a hand
	// edit): a bot that has read it already does not see it.
	_, err = ix.DB.Pool().Exec(ctx, `UPDATE value_index SET value = 'lapsed'
		WHERE table_name = 'customers' AND column_name = 'status' AND value = 'churned'`)
	require.NoError(t, err)
	listed, err = ix.Listed(ctx)
	require.NoError(t, err)
	assert.Equal(t, codes, listed[status], "kept from the first read")
	fresh := &grounding.ValueIndex{DB: ix.DB, Backend: ix.Backend}
	listed, err = fresh.Listed(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"active", "lapsed", "trial"}, listed[status], "what the index holds now")

	// A refresh reads the data and the listed values again.
	_, err = fresh.Refresh(ctx)
	require.NoError(t, err)
	listed, err = fresh.Listed(ctx)
	require.NoError(t, err)
	assert.Equal(t, codes, listed[status], "read again at the refresh")
}

// staffSQL is a table with an inheritance child and a partitioned table:
// reading the parent reads the child's and the partitions' rows.
const staffSQL = `
CREATE SCHEMA staffing;
CREATE TABLE staffing.staff (id int, name text);
CREATE TABLE staffing.contractors (agency text) INHERITS (staffing.staff);
INSERT INTO staffing.staff VALUES (1, 'Ann Archer'), (2, 'Ben Brook');
INSERT INTO staffing.contractors VALUES (3, 'Cat Cole', 'Acme'), (4, 'Dan Dale', 'Acme');
CREATE TABLE staffing.payroll (id int, region text, amount int) PARTITION BY LIST (region);
CREATE TABLE staffing.payroll_eu PARTITION OF staffing.payroll FOR VALUES IN ('eu-secret');
CREATE TABLE staffing.payroll_us PARTITION OF staffing.payroll FOR VALUES IN ('us-secret');
INSERT INTO staffing.payroll SELECT i, (ARRAY['eu-secret', 'us-secret'])[i % 2 + 1], 1000 * i FROM generate_series(1, 20) i;
GRANT USAGE ON SCHEMA staffing TO analyticsbot_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA staffing TO analyticsbot_reader;
`

// A column masked on a table is masked on its inheritance children, and
// one masked on a partition is masked on its parent (warehouse.Decide):
// the guard refuses returning them, and the values the lookup matches and
// the listing shows hold none of them either, though the parent's values
// are its children's rows.
func TestValuesOfColumnsMaskedThroughInheritance(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, staffSQL)
	require.NoError(t, err, "load the staff")
	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{DatabaseURL: url, Schemas: []string{"staffing"}}})
	t.Cleanup(b.Close)
	ix := &grounding.ValueIndex{DB: db, Backend: b}
	_, err = ix.Refresh(ctx)
	require.NoError(t, err)
	rules, err := access.Parse([]byte(`
policies:
  - name: masked
    tables: ["staffing.*"]
    mask_columns: ["staffing.staff.name", "staffing.payroll_eu.region"]
default: masked
`))
	require.NoError(t, err)
	ctx = warehouse.WithCaller(ctx, warehouse.Caller{UserID: "U1", Access: rules.List()[0]})

	require.Error(t, warehouse.Permits(ctx, b, "SELECT name FROM staffing.contractors"), "the guard holds the child's name masked")
	require.Error(t, warehouse.Permits(ctx, b, "SELECT region FROM staffing.payroll"), "and the parent's region")

	matches, err := ix.Lookup(ctx, `Where does "Dan Dale" work?`)
	require.NoError(t, err)
	for _, m := range matches {
		assert.NotEqual(t, "Dan Dale", m.Value, "a masked name matched in %s.%s", m.Table, m.Column)
	}
	listed, err := ix.Listed(ctx)
	require.NoError(t, err)
	for col, values := range listed {
		assert.NotContains(t, values, "eu-secret", "a masked region listed in %s", col)
	}
}
