package grounding_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/grounding"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// shopSQL is a small shop, where every column has at most 20 values: 20
// customers, each with their own name, email and phone, a status (3
// values), a gender (2) and a state (10, two customers each); three
// regions, one row each, in a table of a key and a code; two currencies,
// one row each, in a table of a key, a code and a name; four offices, each
// in its own city, in two countries, in a table of four columns.
const shopSQL = `
CREATE SCHEMA shop;
CREATE TABLE shop.customers (id int PRIMARY KEY, name text, email text, phone text, status text, gender text, state text);
INSERT INTO shop.customers
SELECT i, 'Customer ' || i, 'customer' || i || '@example.com', '555-01' || lpad(i::text, 2, '0'),
       (ARRAY['active', 'active', 'churned', 'trial'])[i % 4 + 1],
       CASE WHEN i % 2 = 0 THEN 'F' ELSE 'M' END,
       (ARRAY['CA', 'FL', 'GA', 'IL', 'MI', 'NC', 'NY', 'OH', 'TX', 'WA'])[i % 10 + 1]
FROM generate_series(1, 20) AS i;
CREATE TABLE shop.regions (id int PRIMARY KEY, code text);
INSERT INTO shop.regions VALUES (1, 'APAC'), (2, 'EMEA'), (3, 'NA');
CREATE TABLE shop.currencies (id int PRIMARY KEY, code text, name text);
INSERT INTO shop.currencies VALUES (1, 'EUR', 'Euro'), (2, 'USD', 'US dollar');
CREATE TABLE shop.offices (id int PRIMARY KEY, city text, country text, opened date);
INSERT INTO shop.offices VALUES (1, 'Paris', 'FR', '2020-01-01'), (2, 'Lyon', 'FR', '2021-01-01'),
	(3, 'New York', 'US', '2022-01-01'), (4, 'Austin', 'US', '2023-01-01');
GRANT USAGE ON SCHEMA shop TO analyticsbot_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA shop TO analyticsbot_reader;`

// The columns of the shop whose values repeat across rows.
var (
	status  = warehouse.ColumnRef{Schema: "shop", Table: "customers", Column: "status"}
	gender  = warehouse.ColumnRef{Schema: "shop", Table: "customers", Column: "gender"}
	state   = warehouse.ColumnRef{Schema: "shop", Table: "customers", Column: "state"}
	country = warehouse.ColumnRef{Schema: "shop", Table: "offices", Column: "country"}
	region  = warehouse.ColumnRef{Schema: "shop", Table: "regions", Column: "code"}
	// A lookup table of three columns: its code and its name.
	currency     = warehouse.ColumnRef{Schema: "shop", Table: "currencies", Column: "code"}
	currencyName = warehouse.ColumnRef{Schema: "shop", Table: "currencies", Column: "name"}
	// shopCodes is what the shop's prompt lists.
	shopCodes = map[warehouse.ColumnRef][]string{
		status:       {"active", "churned", "trial"},
		gender:       {"F", "M"},
		state:        {"CA", "FL", "GA", "IL", "MI", "NC", "NY", "OH", "TX", "WA"},
		country:      {"FR", "US"},
		region:       {"APAC", "EMEA", "NA"},
		currency:     {"EUR", "USD"},
		currencyName: {"Euro", "US dollar"},
	}
)

// shopIndex is a value index over the shop, in a database of its own.
func shopIndex(t testing.TB) *grounding.ValueIndex {
	t.Helper()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(context.Background(), shopSQL)
	require.NoError(t, err, "load the shop")
	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{DatabaseURL: url, Schemas: []string{"shop"}}})
	t.Cleanup(b.Close)
	return &grounding.ValueIndex{DB: db, Backend: b}
}

// The prompt lists the codes of a small table, whose values repeat across
// its rows, and not its people's names, emails and phone numbers, one a
// row, though they are as few; and the codes and names of a lookup table
// (at most three columns: a key and a code or two), one row each, which a
// question may mean without naming them; not the cities of four offices,
// one each, in a table of four columns, where their countries repeat.
// Values indexed before their rows were counted are listed as they were
// until the next refresh counts them.
func TestListedAreCodesNotUniqueValues(t *testing.T) {
	t.Parallel()
	ix := shopIndex(t)
	ctx := context.Background()
	_, err := ix.Refresh(ctx)
	require.NoError(t, err)
	listed, err := ix.Listed(ctx)
	require.NoError(t, err)
	assert.Equal(t, shopCodes, listed,
		"status, gender, the 10 states of 20 customers, the offices' 2 countries, the regions' and currencies' lookup tables: not names, emails, phones, nor the offices' cities")

	matches, err := ix.Lookup(ctx, "Sales in EMEA")
	require.NoError(t, err)
	var found []string
	for _, m := range matches {
		found = append(found, m.Table+"."+m.Column+": "+m.Value)
	}
	assert.Contains(t, found, "regions.code: EMEA", "a region named is found all the same")

	// The index as an earlier version left it: no rows counted.
	_, err = ix.DB.Pool().Exec(ctx, `UPDATE value_index_columns SET row_count = NULL`)
	require.NoError(t, err)
	before := &grounding.ValueIndex{DB: ix.DB, Backend: ix.Backend}
	listed, err = before.Listed(ctx)
	require.NoError(t, err)
	assert.Len(t, listed, 11, "every text column of at most 20 short values, as before")
	email := warehouse.ColumnRef{Schema: "shop", Table: "customers", Column: "email"}
	assert.Contains(t, listed[email], "customer7@example.com")

	_, err = before.Refresh(ctx)
	require.NoError(t, err)
	listed, err = before.Listed(ctx)
	require.NoError(t, err)
	assert.Equal(t, shopCodes, listed, "counted by the refresh")
}
