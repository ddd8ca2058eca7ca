package nodes

import (
	"testing"

	"github.com/analyticsbot/analyticsbot/warehouse/warehousetest"
)

// BenchmarkInventedNumbersWide times the check that an answer quotes only
// numbers of the result on a wide answer (2,000 rows × 61 text columns),
// for answers quoting no number, a number of the first row, one only the
// last row holds, and one the result does not hold at all.
func BenchmarkInventedNumbersWide(b *testing.B) {
	res := warehousetest.WideResult(warehousetest.WideRows, warehousetest.WideColumns)
	const context = "Show every attribute of the items shipped in 2019\nSELECT * FROM analytics.items LIMIT 2000"
	for _, bc := range []struct {
		name, answer string
		want         int
	}{
		{"no-number", "Here is every attribute of each item shipped.", 0},
		{"first-row", "The first item is Item 1000.", 0},
		{"last-row", "The last item is Item 2999.", 0},
		{"invented", "Together the items weigh 123,456 kg.", 1},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got := inventedNumbers(bc.answer, res, context); len(got) != bc.want {
					b.Fatalf("inventedNumbers(%q) = %v, want %d invented", bc.answer, got, bc.want)
				}
			}
		})
	}
}
