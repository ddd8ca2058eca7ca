package grounding_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/grounding"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// A column's values are indexed whole whatever MAX_RESULT_BYTES caps an
// answer's result at: with a cap of 4 KB, far below the 3,000 product
// names, the index once held their first hundred as if they were all
// the column's, and a question naming a later product found nothing,
// with no failure in the refresh's report. Values too long to index
// are counted among the column's distinct values, not read.
func TestValueIndexReadsWholeColumnsPastTheResultCap(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, `
		CREATE SCHEMA shop;
		CREATE TABLE shop.products (id int PRIMARY KEY, name text, notes text);
		INSERT INTO shop.products
			SELECT i, format('Product %s %s', lpad(i::text, 5, '0'), md5(i::text)),
			       CASE WHEN i % 2 = 0 THEN repeat('a long note ', 20) || i ELSE 'note ' || i END
			FROM generate_series(1, 3000) AS i;
		GRANT USAGE ON SCHEMA shop TO analyticsbot_reader;
		GRANT SELECT ON ALL TABLES IN SCHEMA shop TO analyticsbot_reader;`)
	require.NoError(t, err, "load the products")
	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{
		DatabaseURL: url, Schemas: []string{"shop"}, MaxBytes: 4096}})
	t.Cleanup(b.Close)
	ix := &grounding.ValueIndex{DB: db, Backend: b}

	st, err := ix.Refresh(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, st.Failed)
	assert.Equal(t, 2, st.Indexed, "products.name and products.notes")
	assert.Equal(t, 3000+1500, st.Values, "every name, the short notes")

	tests := []struct {
		name     string
		column   string
		distinct int
	}{
		{name: "names", column: "name", distinct: 3000},
		{name: "notes, half of them too long to index", column: "notes", distinct: 3000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got int
			require.NoError(t, db.Pool().QueryRow(ctx, `SELECT distinct_values FROM value_index_columns
				WHERE schema_name = 'shop' AND table_name = 'products' AND column_name = $1`, tt.column).Scan(&got))
			assert.Equal(t, tt.distinct, got, "distinct values of products.%s", tt.column)
		})
	}
	col := store.ValueColumn{Backend: "postgres", Schema: "shop", Table: "products", Column: "name"}
	var last string
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT max(name) FROM shop.products`).Scan(&last))
	ok, err := ix.DB.HasValue(ctx, col, last)
	require.NoError(t, err)
	assert.True(t, ok, "the last name, %q, is indexed", last)
}
