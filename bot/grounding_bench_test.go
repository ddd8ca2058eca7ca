package bot_test

import (
	"context"
	"testing"

	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/grounding"
	"github.com/analyticsbot/analyticsbot/lexicon"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// BenchmarkBuildDemo is grounding's own share of a new question on the
// demo: choosing and describing the catalog (grounding.Build) for each of
// the demo's questions in turn, with the matched values, the listed values
// and WordNet as a serving bot has them, read once before the loop. The
// catalog fits the default budget whole, so this is the path every demo
// question takes; BenchmarkBuild1000Tables (grounding) is the other one.
func BenchmarkBuildDemo(b *testing.B) {
	bt := benchBot(b, newEnv(b))
	ctx := context.Background()
	if _, err := bt.RefreshValueIndex(ctx); err != nil {
		b.Fatalf("value index: %v", err)
	}
	backend := bt.Backend()
	cat, err := backend.Catalog(ctx)
	if err != nil {
		b.Fatalf("catalog: %v", err)
	}
	ix := &grounding.ValueIndex{DB: bt.DB(), Backend: backend, Domain: bt.Config().Domain}
	listed, err := ix.Listed(ctx)
	if err != nil {
		b.Fatalf("listed values: %v", err)
	}
	lex := &lexicon.Lexicon{WordNet: lexicon.EmbeddedWordNet()}
	if err := lex.WordNet.Load(); err != nil {
		b.Fatalf("WordNet: %v", err)
	}
	var reqs []grounding.Request
	for _, q := range demo.Questions() {
		matches, err := ix.Lookup(ctx, q)
		if err != nil {
			b.Fatalf("lookup %q: %v", q, err)
		}
		reqs = append(reqs, grounding.Request{Question: q, Matches: matches, Listed: listed, Lexicon: lex})
	}
	describe := grounding.Describer{Name: backend.Name(), Describe: backend.Dialect().Describe}
	b.Run("values", func(b *testing.B) { benchBuild(b, cat, describe, reqs, true) })
	// Without the value index (never refreshed, as in the web load
	// benchmark's bot): no matches, no listed values.
	for i := range reqs {
		reqs[i].Matches, reqs[i].Listed = nil, nil
	}
	b.Run("no-values", func(b *testing.B) { benchBuild(b, cat, describe, reqs, false) })
}

func benchBuild(b *testing.B, cat *warehouse.Catalog, describe grounding.Describer, reqs []grounding.Request, listed bool) {
	var c grounding.Context
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c = grounding.Build(cat, describe, reqs[i%len(reqs)])
		i++
	}
	if !c.Whole || (len(c.Listed) > 0) != listed {
		b.Fatalf("got a context of %d tables, %d listed columns, whole %v; want the whole demo catalog, listed values %v",
			len(c.Tables), len(c.Listed), c.Whole, listed)
	}
}
