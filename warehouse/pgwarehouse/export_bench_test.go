package pgwarehouse_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// BenchmarkExportCSVMillionRows streams a 1,000,000-row result (four
// columns: an integer, text, a numeric and a timestamp) to a CSV file the
// way Export CSV does for an answer whose result was cut, and reports the
// time, the file size and the process's peak RSS during the export
// (target < 150 MB: the rows are never held in memory).
//
//	go test -run '^$' -bench ExportCSVMillionRows -benchtime 1x ./store/
func BenchmarkExportCSVMillionRows(b *testing.B) {
	_, url := newAnalyticsDB(b)
	exec := newExec(b, url, pgwarehouse.ExecConfig{StatementTimeout: 5 * time.Minute})
	b.Cleanup(exec.Close)
	const rows = 1_000_000
	sql := `SELECT g AS id, 'customer-' || g AS name, (g % 1000) * 1.25 AS amount,
	        TIMESTAMP '2024-01-01' + g * INTERVAL '1 minute' AS at
	        FROM generate_series(1, ` + strconv.Itoa(rows) + `) g`
	path := filepath.Join(b.TempDir(), "export.csv")
	ctx := context.Background()

	var peakKB, size int64
	b.ResetTimer()
	for b.Loop() {
		// Peak RSS from here on (Linux 4.0+: "5" resets VmHWM to the current RSS).
		_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 256<<10)
		st, err := exec.ExportCSV(ctx, sql, w, warehouse.ExportLimit{Rows: rows})
		if err == nil {
			err = w.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			b.Fatal(err)
		}
		if st.Rows != rows || st.Truncated {
			b.Fatalf("exported %d rows (truncated %v), want %d", st.Rows, st.Truncated, rows)
		}
		peakKB = max(peakKB, vmHWM(b))
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		size = fi.Size()
	}
	b.StopTimer()
	perOp := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(perOp, "s/export")
	b.ReportMetric(float64(size)/(1<<20), "file-MB")
	b.ReportMetric(float64(peakKB)/1024, "peak-RSS-MB")
	verdict := "met"
	if peakKB > 150*1024 {
		verdict = "NOT MET"
	}
	b.Logf("suite export: %d rows, %.1f MB CSV in %.2f s, peak RSS %.0f MB (target < 150 MB: %s)",
		rows, float64(size)/(1<<20), perOp, float64(peakKB)/1024, verdict)
}

// vmHWM reads the process's peak resident set size in kB.
func vmHWM(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatalf("read /proc/self/status: %v", err)
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				b.Fatalf("parse VmHWM %q: %v", v, err)
			}
			return n
		}
	}
	b.Fatal("no VmHWM in /proc/self/status")
	return 0
}
