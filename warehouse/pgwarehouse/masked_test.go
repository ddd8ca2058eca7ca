package pgwarehouse_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// A caller's Values are never of a column their policy masks or denies;
// the value index, which reads with no caller, gets every column's.
func TestValuesUnderAPolicy(t *testing.T) {
	t.Parallel()
	_, url := newAnalyticsDB(t)
	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{DatabaseURL: url}})
	t.Cleanup(b.Close)
	rules, err := access.Parse([]byte(`
policies:
  - name: narrow
    tables: ["analytics.orders"]
    mask_columns: ["analytics.orders.customer"]
    deny_columns: ["analytics.orders.amount"]
default: narrow
`))
	require.NoError(t, err)
	ctx := context.Background()
	narrow := warehouse.WithCaller(ctx, warehouse.Caller{UserID: "U1", Access: rules.List()[0]})
	customer := warehouse.ColumnRef{Schema: "analytics", Table: "orders", Column: "customer"}

	got, err := b.Values(ctx, customer, 10)
	require.NoError(t, err)
	assert.Equal(t, warehouse.ColumnValues{Distinct: []string{"acme", "globex"}, Rows: 2}, got)

	got, err = b.Values(narrow, customer, 10)
	assertKind(t, warehouse.Forbidden, err)
	assert.Empty(t, got)
	_, err = b.Values(narrow, warehouse.ColumnRef{Schema: "analytics", Table: "orders", Column: "amount"}, 10)
	assertKind(t, warehouse.Invalid, err, "a denied column is not in their catalog")
}
