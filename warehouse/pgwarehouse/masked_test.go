package pgwarehouse_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/store/storetest"
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

// A caller's Values are never of a column their policy masks on a relative
// (warehouse.Decide): masked on a table, it is masked on its inheritance
// children; masked on a child, on its parent, whose values are the
// child's rows. Those are the values the guard refuses to return.
func TestValuesOfColumnsMaskedThroughRelatives(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(ctx, familySQL)
	require.NoError(t, err, "load the family")
	rules, err := access.Parse([]byte(familyPolicies))
	require.NoError(t, err)
	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{DatabaseURL: url, Schemas: []string{"fam"}}})
	t.Cleanup(b.Close)
	col := func(table, column string) warehouse.ColumnRef {
		return warehouse.ColumnRef{Schema: "fam", Table: table, Column: column}
	}

	got, err := b.Values(ctx, col("people", "secret"), 10)
	require.NoError(t, err, "the value index reads with no caller")
	assert.Equal(t, []string{"grand-secret", "people-secret", "temps-secret"}, got.Distinct)

	for _, c := range []struct {
		policy string
		col    warehouse.ColumnRef
		want   warehouse.ErrorKind // "": the values
		values []string
	}{
		{"mask", col("people", "secret"), warehouse.Forbidden, nil},
		{"mask", col("temps", "secret"), warehouse.Forbidden, nil},
		{"mask", col("temps_eu", "secret"), warehouse.Forbidden, nil},
		{"mask", col("temps", "name"), "", []string{"Ben", "Cy"}},
		{"childmask", col("people", "secret"), warehouse.Forbidden, nil},
		{"childmask", col("temps", "secret"), warehouse.Forbidden, nil},
		{"childmask", col("people", "name"), "", []string{"Ann", "Ben", "Cy"}},
		{"deny", col("temps", "secret"), warehouse.Invalid, nil},
		{"childdeny", col("people", "secret"), warehouse.Invalid, nil},
	} {
		var p *access.Policy
		for _, q := range rules.List() {
			if q.Policy() == c.policy {
				p = q
			}
		}
		require.NotNil(t, p, c.policy)
		as := warehouse.WithCaller(ctx, warehouse.Caller{UserID: "U", Access: p})
		got, err := b.Values(as, c.col, 10)
		if c.want == "" {
			if assert.NoError(t, err, "%s as %s", c.col, c.policy) {
				assert.Equal(t, c.values, got.Distinct, "%s as %s", c.col, c.policy)
			}
			continue
		}
		assertKind(t, c.want, err, fmt.Sprintf("%s as %s", c.col, c.policy))
		assert.Empty(t, got.Distinct, "%s as %s", c.col, c.policy)
	}
}
