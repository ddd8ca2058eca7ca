package grounding_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/grounding"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// countingPolicy counts the tables its policy is asked about.
type countingPolicy struct {
	warehouse.Access
	asked atomic.Int64
}

func (p *countingPolicy) AllowsTable(schema, table string) bool {
	p.asked.Add(1)
	return p.Access.AllowsTable(schema, table)
}

// Deciding a policy over 1,000 tables takes milliseconds
// (BenchmarkValueLookup1000Tables): the lookup and the listing decide the
// asker's policy over the catalog once, and again only for a new catalog,
// not at every question.
func TestValueIndexDecidesOncePerCatalog(t *testing.T) {
	rules, err := access.Parse([]byte(`
policies:
  - name: analysts
    tables: ["mart_*.*"]
    mask_columns: ["*.*.owner"]
default: analysts
`))
	require.NoError(t, err)
	p := &countingPolicy{Access: rules.List()[0]}
	b := &catalogBackend{whole: grounding.Synthetic(1000)}
	ix := &grounding.ValueIndex{DB: testDB.Need(t), Backend: b}
	ctx := warehouse.WithCaller(context.Background(), warehouse.Caller{UserID: "U1", Access: p})
	question := func() {
		t.Helper()
		_, err := ix.Lookup(ctx, "What was the refund amount per region in Germany?")
		require.NoError(t, err)
		_, err = ix.Listed(ctx)
		require.NoError(t, err)
	}
	question()
	first := p.asked.Load()
	require.Positive(t, first, "the first question decides the policy")
	question()
	question()
	assert.Equal(t, first, p.asked.Load(), "later questions ask the policy about no table again")

	b.set(grounding.Synthetic(1001))
	question()
	assert.Greater(t, p.asked.Load(), first, "a new catalog is decided again")
}

// A column masked on a table stays masked on an inheritance child created
// after the asker's first question: once the backend reads its catalog
// again, the values of the child's column are neither looked up nor
// listed for them.
func TestValueIndexDecidesTheNewCatalog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(ctx, shopSQL)
	require.NoError(t, err, "load the shop")
	var clock atomic.Int64 // minutes from now
	start := time.Now()
	be := pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{DatabaseURL: url, Schemas: []string{"shop"}},
		Now: func() time.Time { return start.Add(time.Duration(clock.Load()) * time.Minute) }})
	t.Cleanup(be.Close)
	ix := &grounding.ValueIndex{DB: db, Backend: be}
	rules, err := access.Parse([]byte(`
policies:
  - name: masked
    tables: ["shop.*"]
    mask_columns: ["shop.customers.status"]
default: masked
`))
	require.NoError(t, err)
	asker := warehouse.WithCaller(ctx, warehouse.Caller{UserID: "U1", Access: rules.List()[0]})
	vipStatus := warehouse.ColumnRef{Schema: "shop", Table: "vips", Column: "status"}
	columns := func() []string {
		t.Helper()
		matches, err := ix.Lookup(asker, "Which customers are platinum?")
		require.NoError(t, err)
		var cols []string
		for _, m := range matches {
			cols = append(cols, m.Table+"."+m.Column)
		}
		return cols
	}

	_, err = ix.Refresh(ctx)
	require.NoError(t, err)
	listed, err := ix.Listed(asker)
	require.NoError(t, err)
	assert.NotContains(t, listed, status, "masked")
	assert.Contains(t, listed, gender, "not masked")
	assert.Empty(t, columns(), "no platinum yet")

	_, err = db.Pool().Exec(ctx, `
		CREATE TABLE shop.vips () INHERITS (shop.customers);
		INSERT INTO shop.vips (id, name, gender, status)
		VALUES (21, 'V1', 'F', 'platinum'), (22, 'V2', 'M', 'platinum'), (23, 'V3', 'F', 'gold'), (24, 'V4', 'M', 'gold');
		GRANT SELECT ON shop.vips TO analyticsbot_reader;`)
	require.NoError(t, err)
	clock.Add(int64(pgwarehouse.DefaultCatalogTTL/time.Minute) + 1) // the backend reads its catalog again
	_, err = ix.Refresh(ctx)
	require.NoError(t, err)
	all, err := ix.Listed(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"gold", "platinum"}, all[vipStatus], "the child's statuses are indexed and listed for others")

	listed, err = ix.Listed(asker)
	require.NoError(t, err)
	assert.NotContains(t, listed, vipStatus, "masked on the child too")
	assert.Contains(t, listed, warehouse.ColumnRef{Schema: "shop", Table: "vips", Column: "gender"}, "the child's catalog is theirs")
	assert.NotContains(t, columns(), "vips.status", "nor looked up")
}
