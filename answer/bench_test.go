package answer

import (
	"fmt"
	"testing"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// wideReply is a large answer as stored: 2,000 rows of 20 columns, of
// which the stored reply keeps 100.
func wideReply() *Answer {
	r := &warehouse.Result{}
	for c := range 20 {
		kind := warehouse.KindText
		if c%2 == 1 {
			kind = warehouse.KindNumber
		}
		r.Columns = append(r.Columns, warehouse.Column{Name: fmt.Sprintf("col_%02d", c), Kind: kind})
	}
	for i := range 2000 {
		row := make([]any, 20)
		for c := range row {
			if c%2 == 1 {
				row[c] = int64(i * c)
			} else {
				row[c] = fmt.Sprintf("value %d of column %d", i, c)
			}
		}
		r.Rows = append(r.Rows, row)
	}
	r.RowCount = len(r.Rows)
	return &Answer{Kind: KindAnswer, Question: "Everything?", Text: ParseText("Here are *2,000* rows."), Result: r,
		Assumptions: []string{"All of them."}, QueryID: "0123abcd", Actions: []Action{{ID: ExportAction, Label: "Export CSV"}}}
}

// BenchmarkMarshalReply is the cost the stored reply adds to saving a turn.
func BenchmarkMarshalReply(b *testing.B) {
	a := wideReply()
	var size int
	for b.Loop() {
		data, err := Marshal(a)
		if err != nil {
			b.Fatal(err)
		}
		size = len(data)
	}
	b.ReportMetric(float64(size), "bytes/reply")
}

// BenchmarkUnmarshalReply is the cost of showing a stored reply again.
func BenchmarkUnmarshalReply(b *testing.B) {
	data, err := Marshal(wideReply())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Unmarshal(data); err != nil {
			b.Fatal(err)
		}
	}
}
