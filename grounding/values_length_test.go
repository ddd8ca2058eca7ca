package grounding_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/grounding"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// crmSQL is a small CRM whose text columns hold, beside names and codes,
// long text: a 54,000-character note that mentions a customer, a
// 14,000-character memo of distinct words (more word stems than a btree
// row of PostgreSQL's stem index holds), a tier whose two codes sit beside
// a long text, and regions whose stored values have spaces and a line
// break of their own.
const crmSQL = `
CREATE SCHEMA crm;
CREATE TABLE crm.accounts (id int PRIMARY KEY, name text, notes text, region text, tier text);
INSERT INTO crm.accounts VALUES
	(1, 'Acme Rocket Corp', 'Orders of Acme Rocket ' || repeat('lorem ipsum dolor sit amet ', 2000), 'EMEA ', 'gold'),
	(2, 'Zenith Ltd', 'a short note', 'EMEA ', 'gold'),
	(3, 'Nadir plc', 'another note', 'North  America', 'silver'),
	(4, 'Apex Inc', 'a third note', 'North  America', 'silver'),
	(5, 'Vertex SA', 'a fourth note', E'Line\nBreak', repeat('a tier described at length ', 10)),
	(6, 'Summit AG', 'a fifth note', E'Line\nBreak', repeat('a tier described at length ', 10));
CREATE TABLE crm.memos (id int PRIMARY KEY, memo text);
INSERT INTO crm.memos VALUES (1, (SELECT string_agg(md5(i::text), ' ') FROM generate_series(1, 420) AS i)), (2, 'a short memo');
CREATE TABLE crm.tickets (id int PRIMARY KEY, subject text);
INSERT INTO crm.tickets VALUES (1, 'Rocket engine late'), (2, 'Invoice missing');
GRANT USAGE ON SCHEMA crm TO analyticsbot_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA crm TO analyticsbot_reader;`

// crmIndex is a value index over the CRM, in a database of its own.
func crmIndex(t testing.TB) *grounding.ValueIndex {
	t.Helper()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(context.Background(), crmSQL)
	require.NoError(t, err, "load the CRM")
	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{DatabaseURL: url, Schemas: []string{"crm"}}})
	t.Cleanup(b.Close)
	return &grounding.ValueIndex{DB: db, Backend: b}
}

func crmColumn(table, column string) store.ValueColumn {
	return store.ValueColumn{Backend: "postgres", Schema: "crm", Table: table, Column: column}
}

// Values longer than grounding.MaxValueLength are text, not names: the
// index leaves them out, so a note that mentions "Acme Rocket" is not
// matched as if it named it, and a memo too long for the stem index no
// longer stops the refresh. The other values of their columns are kept,
// and a column of codes beside a long text is not listed as if its codes
// were all its values.
func TestValueIndexLeavesOutLongValues(t *testing.T) {
	t.Parallel()
	ix := crmIndex(t)
	ctx := context.Background()
	st, err := ix.Refresh(ctx)
	require.NoError(t, err, "a 14 KB memo does not stop the refresh")
	assert.Equal(t, 0, st.Failed)
	assert.Equal(t, 6, st.Indexed, "every text column of the CRM")

	var long string
	require.NoError(t, ix.DB.Pool().QueryRow(ctx, `SELECT notes FROM crm.accounts WHERE id = 1`).Scan(&long))
	for _, c := range []struct {
		col   store.ValueColumn
		value string
		want  bool
	}{
		{crmColumn("accounts", "notes"), long, false},
		{crmColumn("accounts", "notes"), "a short note", true},
		{crmColumn("memos", "memo"), "a short memo", true},
		{crmColumn("tickets", "subject"), "Invoice missing", true},
		{crmColumn("accounts", "tier"), "gold", true},
	} {
		got, err := ix.DB.HasValue(ctx, c.col, c.value)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, "%s holds %.40q", c.col.Column, c.value)
	}

	matches, err := ix.Lookup(ctx, "orders of Acme Rocket")
	require.NoError(t, err)
	var found []string
	for _, m := range matches {
		assert.LessOrEqual(t, len(m.Value), grounding.MaxValueLength, "%s.%s matched a long value", m.Table, m.Column)
		found = append(found, m.Table+"."+m.Column+": "+m.Value)
	}
	assert.Contains(t, found, "accounts.name: Acme Rocket Corp", "the name is still found")

	listed, err := ix.Listed(ctx)
	require.NoError(t, err)
	assert.NotContains(t, listed, warehouse.ColumnRef{Schema: "crm", Table: "accounts", Column: "tier"},
		"'gold' and 'silver' are not all the tier's values")
}

// A column whose values cannot be written (here a trigger refuses them,
// as the stem index refused a long value) counts as failed and is left as
// it was; the refresh goes on with the other columns and cleans up after
// them, every refresh.
func TestValueIndexRefreshGoesOnPastAFailedColumn(t *testing.T) {
	t.Parallel()
	ix := crmIndex(t)
	ctx := context.Background()
	_, err := ix.DB.Pool().Exec(ctx, `
		CREATE FUNCTION refuse_memos() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'index row size 2952 exceeds btree version 4 maximum 2704'; END $$;
		CREATE TRIGGER refuse_memos BEFORE INSERT ON value_index
			FOR EACH ROW WHEN (NEW.table_name = 'memos') EXECUTE FUNCTION refuse_memos();`)
	require.NoError(t, err)
	require.NoError(t, ix.DB.PrepareValueIndex(ctx))
	gone := crmColumn("invoices", "status")
	require.NoError(t, ix.DB.ReplaceValues(ctx, gone, 1, -1, []string{"paid"}))

	st, err := ix.Refresh(ctx)
	require.NoError(t, err, "one column's failure is not the refresh's")
	assert.Equal(t, 1, st.Failed, "crm.memos.memo")
	assert.Equal(t, 5, st.Indexed, "the others, those after it too")
	ok, err := ix.DB.HasValue(ctx, crmColumn("tickets", "subject"), "Rocket engine late")
	require.NoError(t, err)
	assert.True(t, ok, "a column after the failed one is indexed")
	ok, err = ix.DB.HasValue(ctx, gone, "paid")
	require.NoError(t, err)
	assert.False(t, ok, "a column gone from the catalog is forgotten")
}

// The values a column lists are shown exactly as stored, as SQL literals
// that filter on them: 'EMEA ' with its space, 'North  America' with its
// two, E'Line\nBreak' on one line of the prompt.
func TestListedValuesAreShownExactly(t *testing.T) {
	t.Parallel()
	ix := crmIndex(t)
	ctx := context.Background()
	_, err := ix.Refresh(ctx)
	require.NoError(t, err)
	listed, err := ix.Listed(ctx)
	require.NoError(t, err)
	cat, err := ix.Backend.Catalog(ctx)
	require.NoError(t, err)
	g := grounding.Build(cat, grounding.Describer{Name: "postgres", Describe: ix.Backend.Dialect().Describe},
		grounding.Request{Question: "accounts by region", Budget: 2000, Listed: listed})
	literals := []string{`'EMEA '`, `E'Line\nBreak'`, `'North  America'`}
	assert.Contains(t, g.Catalog, "  region text -- values: "+strings.Join(literals, ", ")+"\n")
	for _, l := range literals {
		var n int
		require.NoError(t, ix.DB.Pool().QueryRow(ctx, `SELECT count(*) FROM crm.accounts WHERE region = `+l).Scan(&n))
		assert.Equal(t, 2, n, "rows where region = %s", l)
	}
}

// downValues reads the catalog from a backend that is up and the values of
// the columns down names (every column when nil) from one whose server is
// gone, and counts the reads.
type downValues struct {
	warehouse.Backend
	down      warehouse.Backend
	downFor   func(warehouse.ColumnRef) bool
	reads     int
	downReads int
}

func (d *downValues) Values(ctx context.Context, col warehouse.ColumnRef, limit int) (warehouse.ColumnValues, error) {
	d.reads++
	if d.downFor == nil || d.downFor(col) {
		d.downReads++
		return d.down.Values(ctx, col, limit)
	}
	return d.Backend.Values(ctx, col, limit)
}

// A warehouse that is down fails every column the same way: the refresh
// reads one column of each table, stops after three tables in a row with
// that error, logged once by Run, not a warning per column, and forgets
// nothing it held. One table whose read fails so alone (a cube whose
// queries run past CUBE_TIMEOUT is "unavailable") costs one read and does
// not stop it. A bot database that went away (a write that fails as
// unavailable) stops it at once.
func TestValueIndexRefreshStopsWhenTheWarehouseIsDown(t *testing.T) {
	t.Parallel()
	ix := crmIndex(t)
	ctx := context.Background()
	_, err := ix.Refresh(ctx)
	require.NoError(t, err)

	down := pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{
		DatabaseURL: "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2", Schemas: []string{"crm"}}})
	t.Cleanup(down.Close)
	backend := &downValues{Backend: ix.Backend, down: down}
	broken := &grounding.ValueIndex{DB: ix.DB, Backend: backend}
	_, err = broken.Refresh(ctx)
	require.Error(t, err)
	assert.Equal(t, warehouse.Unavailable, warehouse.KindOf(err), "%v", err)
	assert.Equal(t, 3, backend.reads, "one column of each of the three tables")
	assert.Contains(t, err.Error(), "the reads of 3 tables in a row failed")
	ok, err := ix.DB.HasValue(ctx, crmColumn("tickets", "subject"), "Rocket engine late")
	require.NoError(t, err)
	assert.True(t, ok, "what the index held is kept")

	one := &downValues{Backend: ix.Backend, down: down,
		downFor: func(c warehouse.ColumnRef) bool { return c.Table == "accounts" }}
	st, err := (&grounding.ValueIndex{DB: ix.DB, Backend: one}).Refresh(ctx)
	require.NoError(t, err, "one table's failure is not the refresh's")
	assert.Equal(t, 1, one.downReads, "one read of the slow table, not one per column")
	assert.Equal(t, 4, st.Failed, "the accounts' four text columns, left as they were")
	assert.Equal(t, 2, st.Indexed, "the other tables' columns")
	ok, err = ix.DB.HasValue(ctx, crmColumn("accounts", "name"), "Zenith Ltd")
	require.NoError(t, err)
	assert.True(t, ok, "a column left as it was keeps its values")

	_, err = ix.DB.Pool().Exec(ctx, `
		CREATE FUNCTION gone() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'terminating connection due to administrator command' USING ERRCODE = '57P01'; END $$;
		CREATE TRIGGER gone BEFORE INSERT OR UPDATE ON value_index_columns FOR EACH ROW EXECUTE FUNCTION gone();`)
	require.NoError(t, err)
	st, err = ix.Refresh(ctx)
	require.ErrorIs(t, err, store.ErrUnavailable)
	assert.Zero(t, st.Failed, "the first write that finds the database gone ends the refresh")
}
