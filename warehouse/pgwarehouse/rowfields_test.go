package pgwarehouse_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// The guard knows every table's columns, with an access file or without:
// (o).customer is the column and runs, (o).hash_record is a function on
// the whole row, which it does not allow, and j.region a column of the
// other table of a join.
func TestFieldsOfRowsKnowTheColumns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(ctx, `CREATE SCHEMA shop; GRANT USAGE ON SCHEMA shop TO analyticsbot_reader;
		CREATE TABLE shop.orders (id int, customer text, region_id int); INSERT INTO shop.orders VALUES (1, 'acme', 1);
		CREATE TABLE shop.regions (region_id int, region text); INSERT INTO shop.regions VALUES (1, 'north');
		GRANT SELECT ON ALL TABLES IN SCHEMA shop TO analyticsbot_reader`)
	require.NoError(t, err)
	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{DatabaseURL: url, Schemas: []string{"shop"}}})
	t.Cleanup(b.Close)
	for _, tt := range []struct {
		sql, class string
	}{
		{"SELECT (o).customer FROM shop.orders o", ""},
		{"SELECT j.region FROM (shop.orders o JOIN shop.regions r USING (region_id)) AS j", ""},
		{"SELECT (o).hash_record AS h FROM shop.orders o", "function_not_allowed"},
	} {
		_, err := b.Check(ctx, tt.sql, 10)
		if tt.class == "" {
			assert.NoError(t, err, tt.sql)
			continue
		}
		var we *warehouse.Error
		if assert.ErrorAs(t, err, &we, tt.sql) {
			assert.Equal(t, tt.class, we.Class, tt.sql)
		}
	}
}
