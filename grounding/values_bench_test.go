package grounding_test

import (
	"context"
	"sync"
	"testing"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/grounding"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// catalogBackend serves a catalog held in memory, and each policy's view
// of it made once, as pgwarehouse's Backend does; only Name and Catalog
// are called.
type catalogBackend struct {
	warehouse.Backend
	whole *warehouse.Catalog

	mu    sync.Mutex
	views map[warehouse.Access]*warehouse.Catalog
}

func (b *catalogBackend) Name() string { return "bench1000" }

func (b *catalogBackend) Catalog(ctx context.Context) (*warehouse.Catalog, error) {
	a := warehouse.CallerOf(ctx).Access
	if a == nil {
		return b.whole, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.views[a] == nil {
		if b.views == nil {
			b.views = map[warehouse.Access]*warehouse.Catalog{}
		}
		b.views[a] = warehouse.Filter(b.whole, a)
	}
	return b.views[a], nil
}

// BenchmarkValueLookup1000Tables is what the value lookup (Lookup, which
// reads the bot's database) and the values listed (Listed, kept in
// memory) cost a question in nodes' generate step, in a warehouse of
// 1,000 tables of 20 columns, for an asker with no policy and for one
// whose policy matches by patterns, denies a schema and a column and
// masks another. No value is indexed for it: what the policy adds is the
// difference between the two.
//
//	go test -run '^$' -bench ValueLookup1000Tables -benchmem ./grounding/
func BenchmarkValueLookup1000Tables(b *testing.B) {
	rules, err := access.Parse([]byte(`
policies:
  - name: analysts
    tables: ["mart_*.*"]
    deny_tables: ["mart_10.*"]
    deny_columns: ["*.*.note"]
    mask_columns: ["*.*.owner"]
default: analysts
`))
	if err != nil {
		b.Fatal(err)
	}
	ix := &grounding.ValueIndex{DB: testDB.Need(b), Backend: &catalogBackend{whole: grounding.Synthetic(1000)}}
	steps := []struct {
		name string
		run  func(context.Context) error
	}{
		{"lookup", func(ctx context.Context) error {
			_, err := ix.Lookup(ctx, "What was the refund amount per region for subscriptions in Germany?")
			return err
		}},
		{"listed", func(ctx context.Context) error {
			_, err := ix.Listed(ctx)
			return err
		}},
	}
	for _, step := range steps {
		for _, asker := range []struct {
			name   string
			access warehouse.Access
		}{{"no-policy", nil}, {"policy", rules.List()[0]}} {
			b.Run(step.name+"/"+asker.name, func(b *testing.B) {
				ctx := context.Background()
				if asker.access != nil {
					ctx = warehouse.WithCaller(ctx, warehouse.Caller{UserID: "U1", Access: asker.access})
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := step.run(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// set replaces the catalog, as a backend reading its catalog again does.
func (b *catalogBackend) set(cat *warehouse.Catalog) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.whole, b.views = cat, nil
}
