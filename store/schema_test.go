package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

func TestDescribeSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	_, err := db.Pool().Exec(ctx, `
		CREATE SCHEMA shop;
		CREATE TABLE shop.orders (
			id         bigint PRIMARY KEY,
			gone       int,
			amount     numeric(10,2) NOT NULL,
			placed_at  timestamptz,
			tags       text[]
		);
		ALTER TABLE shop.orders DROP COLUMN gone;
		COMMENT ON TABLE shop.orders IS 'One row per order; amounts in USD.';
		COMMENT ON COLUMN shop.orders.amount IS 'Total after discounts';
		CREATE VIEW shop.big_orders AS SELECT id, amount FROM shop.orders WHERE amount > 100;
		CREATE MATERIALIZED VIEW shop.daily AS SELECT placed_at::date AS day, count(*) AS n FROM shop.orders GROUP BY 1;
		CREATE TABLE shop.events (at date NOT NULL, kind varchar(20)) PARTITION BY RANGE (at);
		CREATE TABLE shop.events_2024 PARTITION OF shop.events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
		CREATE TABLE shop.empty ();
		CREATE SEQUENCE shop.not_a_table;
		CREATE INDEX orders_amount_idx ON shop.orders (amount);
		CREATE TABLE public.elsewhere (x int);`)
	require.NoError(t, err)

	got, err := db.DescribeSchema(ctx, "shop")
	require.NoError(t, err)
	want := []store.Table{
		{Schema: "shop", Name: "big_orders", Columns: []store.TableColumn{
			{Name: "id", Type: "bigint", Nullable: true},
			{Name: "amount", Type: "numeric(10,2)", Nullable: true},
		}},
		{Schema: "shop", Name: "daily", Columns: []store.TableColumn{
			{Name: "day", Type: "date", Nullable: true},
			{Name: "n", Type: "bigint", Nullable: true},
		}},
		{Schema: "shop", Name: "empty"},
		{Schema: "shop", Name: "events", Columns: []store.TableColumn{
			{Name: "at", Type: "date"},
			{Name: "kind", Type: "character varying(20)", Nullable: true},
		}},
		{Schema: "shop", Name: "orders", Comment: "One row per order; amounts in USD.", Columns: []store.TableColumn{
			{Name: "id", Type: "bigint"},
			{Name: "amount", Type: "numeric(10,2)", Comment: "Total after discounts"},
			{Name: "placed_at", Type: "timestamp with time zone", Nullable: true},
			{Name: "tags", Type: "text[]", Nullable: true},
		}},
	}
	assert.Equal(t, want, got)

	none, err := db.DescribeSchema(ctx, "no_such_schema")
	require.NoError(t, err)
	assert.Empty(t, none, "tables of a missing schema")
}

func TestSchemaExists(t *testing.T) {
	t.Parallel()
	db, _ := newAnalyticsDB(t)
	tests := []struct {
		name   string
		schema string
		want   bool
	}{
		{name: "analytics", schema: "analytics", want: true},
		{name: "public", schema: "public", want: true},
		{name: "missing", schema: "nope", want: false},
		{name: "case matters", schema: "Analytics", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := db.SchemaExists(context.Background(), tt.schema)
			require.NoError(t, err)
			if got != tt.want {
				t.Errorf("SchemaExists(%q) = %v, want %v", tt.schema, got, tt.want)
			}
		})
	}
}
