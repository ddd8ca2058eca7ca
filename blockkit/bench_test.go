package blockkit

import (
	"testing"
	"time"

	"github.com/analyticsbot/analyticsbot/answer"
)

// BenchmarkRender measures rendering a full answer. 99 rows is the largest
// result Slack's table block holds (100 rows counting the header); 100 rows
// takes the monospace fallback.
func BenchmarkRender(b *testing.B) {
	for _, bc := range []struct {
		name string
		rows int
	}{
		{name: "rows=99/native", rows: 99},
		{name: "rows=100/monospace", rows: 100},
	} {
		a := answer.Answer{
			Question:    "Daily orders?",
			Text:        answer.ParseText("Orders per day, with *revenue*."),
			Result:      dailyResult(bc.rows),
			Assumptions: []string{"Days are UTC."},
			Actions:     testButtons, QueryID: "q_bench",
			Elapsed: 1500 * time.Millisecond,
			Backend: "sql",
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if m := Render(a); len(m.Blocks) == 0 {
					b.Fatal("got no blocks")
				}
			}
		})
	}
}
