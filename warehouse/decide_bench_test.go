package warehouse_test

import (
	"fmt"
	"testing"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// catalog1000 is 1,000 tables of 10 columns in ten schemas (mart_0 …
// mart_9), with a view over each tenth table reading three of its columns.
func catalog1000() *warehouse.Catalog {
	cols := []string{"id", "name", "status", "amount", "country", "created_at", "owner", "email", "secret", "note"}
	cat := &warehouse.Catalog{}
	for i := range 1000 {
		t := warehouse.Table{Schema: fmt.Sprintf("mart_%d", i%10), Name: fmt.Sprintf("t_%d", i)}
		for _, c := range cols {
			t.Columns = append(t.Columns, warehouse.TableColumn{Name: c})
		}
		cat.Tables = append(cat.Tables, t)
		if i%10 == 0 {
			v := warehouse.Table{Schema: t.Schema, Name: "v_" + t.Name, Columns: t.Columns[:3]}
			for _, c := range v.Columns {
				v.Reads = append(v.Reads, warehouse.ColumnRef{Schema: t.Schema, Table: t.Name, Column: c.Name})
			}
			cat.Tables = append(cat.Tables, v)
		}
	}
	return cat
}

// analysts1000 is a policy over catalog1000 that matches by patterns,
// denies a schema and a column and masks another.
func analysts1000(b *testing.B) *access.Policy {
	rules, err := access.Parse([]byte(`
policies:
  - name: analysts
    tables: ["mart_*.*"]
    deny_tables: ["mart_9.*"]
    deny_columns: ["mart_*.*.email"]
    mask_columns: ["mart_*.*.secret"]
default: analysts
`))
	if err != nil {
		b.Fatal(err)
	}
	return rules.List()[0]
}

// BenchmarkDecide1000Tables decides a policy over 1,000 tables (and 100
// views): what each value lookup and each listing of values did per
// question before they kept the decision (grounding.ValueIndex), and what
// a backend does once per catalog and policy.
//
//	go test -run '^$' -bench Decide1000Tables -benchmem ./warehouse/
func BenchmarkDecide1000Tables(b *testing.B) {
	cat, p := catalog1000(), analysts1000(b)
	b.ReportAllocs()
	for b.Loop() {
		d := warehouse.Decide(cat, p)
		if !d.MasksColumn("mart_1", "t_1", "secret") || d.AllowsTable("mart_9", "t_9") {
			b.Fatal("the decision is not the policy's")
		}
	}
}
