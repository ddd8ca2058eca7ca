package grounding

import (
	"fmt"
	"testing"

	"github.com/analyticsbot/analyticsbot/lexicon"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// synthetic is a warehouse of n tables of 20 columns each, named from a
// business vocabulary so that words repeat across tables as they do in
// real warehouses.
func synthetic(n int) *warehouse.Catalog {
	nouns := []string{"order", "customer", "invoice", "payment", "shipment", "product", "supplier", "employee",
		"campaign", "session", "refund", "subscription", "ticket", "warehouse", "region", "store", "account",
		"contract", "lead", "opportunity", "event", "device", "plan", "coupon", "review"}
	attrs := []string{"id", "name", "status", "amount", "currency", "created_at", "updated_at", "country", "city",
		"channel", "category", "priority", "score", "quantity", "discount", "tax", "owner", "source", "segment", "note"}
	cat := &warehouse.Catalog{}
	for i := range n {
		a, b := nouns[i%len(nouns)], nouns[(i/len(nouns))%len(nouns)]
		t := warehouse.Table{Schema: fmt.Sprintf("mart_%d", i%11), Name: fmt.Sprintf("%s_%s_%d", a, b, i),
			Comment: fmt.Sprintf("One row per %s of a %s, from the %s system.", a, b, nouns[(i*7)%len(nouns)])}
		for j, attr := range attrs {
			col := attr
			if j == 0 {
				col = b + "_id"
			}
			t.Columns = append(t.Columns, warehouse.TableColumn{Name: col, Type: "text", Kind: warehouse.KindText,
				Comment: "The " + attr + " of the " + a + "."})
		}
		cat.Tables = append(cat.Tables, t)
	}
	return cat
}

// BenchmarkBuild1000Tables chooses the context of a question in a
// 1,000-table warehouse (20 columns each, about 400,000 tokens whole).
func BenchmarkBuild1000Tables(b *testing.B) {
	benchmarkBuild(b, Request{Question: "What was the refund amount per region for subscriptions created last month?"})
}

// BenchmarkBuild1000TablesWordNet is the same with the embedded WordNet
// (loaded before timing) and a question whose words it relates: a word the
// catalog has ("ordered"), one it has not ("clients") and a compound
// ("storeowner").
func BenchmarkBuild1000TablesWordNet(b *testing.B) {
	lex := &lexicon.Lexicon{WordNet: lexicon.EmbeddedWordNet()}
	if err := lex.WordNet.Load(); err != nil {
		b.Fatal(err)
	}
	benchmarkBuild(b, Request{Question: "Which storeowner ordered the most refunds for clients per region?", Lexicon: lex})
}

func benchmarkBuild(b *testing.B, r Request) {
	cat := synthetic(1000)
	var c Context
	b.ReportAllocs()
	for b.Loop() {
		c = Build(cat, sqlLike, r)
	}
	if c.Tokens > DefaultBudget {
		b.Fatalf("the context took %d tokens, over the budget of %d", c.Tokens, DefaultBudget)
	}
	b.ReportMetric(float64(c.Tokens), "context-tokens")
	b.ReportMetric(float64(c.WholeTokens), "whole-tokens")
	b.ReportMetric(float64(len(c.Tables)), "tables-described")
}
