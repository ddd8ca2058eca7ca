package sqlguard

import (
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// BenchmarkCheckTPCDS measures Check over the 99 TPC-DS queries, the largest
// legitimate analytics statements we have. One op checks all 99; the custom
// metrics give the per-query distribution: each query's mean time, then the
// median (p50) and 99th percentile (p99, nearest rank: the slowest of 99) of
// those means. The target is p50 < 1 ms.
//
//	go test -run '^$' -bench TPCDS -benchmem ./sqlguard/
func BenchmarkCheckTPCDS(b *testing.B) {
	p := Policy{Schemas: []string{"tpcds"}, Tables: tpcdsTables}
	benchTPCDS(b, func(q corpusQuery) {
		if err := Check(q.sql, p); err != nil {
			b.Fatalf("Check(%s) = %v: the benchmark measures accepted queries", q.name, err)
		}
	})
}

// BenchmarkParseTPCDS is the floor under BenchmarkCheckTPCDS: parsing alone,
// which Check cannot avoid.
func BenchmarkParseTPCDS(b *testing.B) {
	benchTPCDS(b, func(q corpusQuery) {
		if _, err := pg_query.Parse(q.sql); err != nil {
			b.Fatalf("parse %s: %v", q.name, err)
		}
	})
}

// benchTPCDS runs fn over every TPC-DS query per op and reports the p50 and
// p99 of the per-query mean times, in milliseconds.
func benchTPCDS(b *testing.B, fn func(corpusQuery)) {
	queries := readCorpusSQL(b, filepath.Join("testdata", "tpcds"), "[0-9][0-9].sql")
	total := make([]time.Duration, len(queries))
	b.ReportAllocs()
	for b.Loop() {
		for i, q := range queries {
			start := time.Now()
			fn(q)
			total[i] += time.Since(start)
		}
	}
	means := make([]float64, len(total))
	for i, d := range total {
		means[i] = float64(d.Nanoseconds()) / 1e6 / float64(b.N)
	}
	slices.Sort(means)
	b.ReportMetric(benchPercentile(means, 0.50), "p50-ms/query")
	b.ReportMetric(benchPercentile(means, 0.99), "p99-ms/query")
}

// benchPercentile returns the nearest-rank q-quantile of the sorted values.
func benchPercentile(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
