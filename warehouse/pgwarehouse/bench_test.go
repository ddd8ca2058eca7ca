package pgwarehouse_test

import (
	"context"
	"testing"

	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

func BenchmarkExecutorQuery1000Rows(b *testing.B) {
	ctx := context.Background()
	_, url := newAnalyticsDB(b)
	exec := newExec(b, url, pgwarehouse.ExecConfig{})
	const sql = `SELECT g AS id, 'customer ' || g AS name, (g * 1.25)::numeric(12,2) AS amount,
	                    DATE '2024-01-01' + g AS day, g % 2 = 0 AS even
	             FROM generate_series(1, 1000) g`
	b.ReportAllocs()
	for b.Loop() {
		res, err := exec.Query(ctx, sql)
		if err != nil {
			b.Fatal(err)
		}
		if res.RowCount != 1000 || res.Truncated {
			b.Fatalf("got %d rows (truncated %v), want 1000", res.RowCount, res.Truncated)
		}
	}
}
