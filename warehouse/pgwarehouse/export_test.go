package pgwarehouse_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

func TestExecutorExportCSV(t *testing.T) {
	t.Parallel()
	_, url := newAnalyticsDB(t)
	exec := newExec(t, url, pgwarehouse.ExecConfig{MaxRows: 2})
	ctx := context.Background()

	var b bytes.Buffer
	st, err := exec.ExportCSV(ctx, `SELECT g AS n, CASE WHEN g = 2 THEN NULL ELSE 'a,"b"' END AS text, g * 1.5 AS x, g > 2 AS big,
		TIMESTAMPTZ '2024-03-05 14:30:00+02' AS at FROM generate_series(1, 4) g ORDER BY g`, &b, warehouse.ExportLimit{Rows: 10})
	require.NoError(t, err)
	assert.Equal(t, warehouse.ExportStats{Rows: 4}, st, "every row: the export ignores MaxRows")
	assert.Equal(t, "n,text,x,big,at\n"+
		"1,\"a,\"\"b\"\"\",1.5,false,2024-03-05T12:30:00Z\n"+
		"2,,3.0,false,2024-03-05T12:30:00Z\n"+
		"3,\"a,\"\"b\"\"\",4.5,true,2024-03-05T12:30:00Z\n"+
		"4,\"a,\"\"b\"\"\",6.0,true,2024-03-05T12:30:00Z\n", b.String(), "CSV quoting, NULL as empty, values as the cache formats them")

	b.Reset()
	st, err = exec.ExportCSV(ctx, "SELECT g FROM generate_series(1, 100) g", &b, warehouse.ExportLimit{Rows: 3})
	require.NoError(t, err)
	assert.Equal(t, warehouse.ExportStats{Rows: 3, Truncated: true}, st, "maxRows caps the export")
	assert.Equal(t, "g\n1\n2\n3\n", b.String())

	_, err = exec.ExportCSV(ctx, "DELETE FROM orders", &b, warehouse.ExportLimit{Rows: 3})
	assert.Error(t, err, "the export runs under the same read-only protections")
}

// failingWriter fails every write, as a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// An export whose file cannot be written stops the query at once: it does
// not go on reading the rest of the result only to drop it (here the
// second row would take an hour to come).
func TestExportStopsOnAFailedWrite(t *testing.T) {
	t.Parallel()
	_, url := newAnalyticsDB(t)
	exec := newExec(t, url, pgwarehouse.ExecConfig{StatementTimeout: time.Hour})
	done := make(chan error, 1)
	go func() {
		// The first row is larger than the CSV writer's buffer, so its
		// write reaches failingWriter; the rows before the slow one fill
		// the server's send buffer, so the first arrives.
		_, err := exec.ExportCSV(context.Background(), `SELECT g, repeat('x', 10000) AS pad,
			pg_sleep(CASE WHEN g > 50 THEN 3600 ELSE 0 END) AS nap FROM generate_series(1, 100) g`, failingWriter{}, warehouse.ExportLimit{Rows: 1000})
		done <- err
	}()
	select {
	case err := <-done:
		assert.ErrorContains(t, err, "no space left on device")
	case <-time.After(time.Minute):
		t.Fatal("the export went on reading the result after its write failed")
	}
}

// EXPORT_MAX_BYTES: an export stops at its limit of bytes with the last
// whole row that fits, and a value larger than the room left ends it
// without being copied: not held as text, nor again with its quotes
// doubled. Not parallel: it measures the process's allocations.
func TestExportStopsAtItsBytes(t *testing.T) {
	_, url := newAnalyticsDB(t)
	exec := newExec(t, url, pgwarehouse.ExecConfig{})
	ctx := context.Background()
	const limit = 1 << 20

	var b bytes.Buffer
	st, err := exec.ExportCSV(ctx, `SELECT g, repeat(md5(g::text), 10) AS pad FROM generate_series(1, 100000) g`, &b,
		warehouse.ExportLimit{Rows: 1_000_000, Bytes: limit})
	require.NoError(t, err)
	assert.True(t, st.Full && st.Truncated, "the export says it was cut: %+v", st)
	assert.LessOrEqual(t, b.Len(), limit)
	assert.Greater(t, b.Len(), limit-400, "up to the last row that fits")
	assert.Equal(t, st.Rows+1, strings.Count(b.String(), "\n"), "whole rows only")

	const cell = 32 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.Reset()
	st, err = exec.ExportCSV(ctx, `SELECT 1 AS n, repeat('"', 33554432) AS quotes`, &b, warehouse.ExportLimit{Rows: 10, Bytes: limit})
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Equal(t, warehouse.ExportStats{Truncated: true, Full: true}, st)
	assert.Equal(t, "n,quotes\n", b.String())
	// PostgreSQL's driver reads the row whole (one copy, in its buffer);
	// the text, and again with its quotes doubled, would be more.
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(cell+cell/2), "allocated for a cell of %d bytes", cell)
}

// An export cut at its rows reads the rows still on their way once it is
// canceled into its connection's buffer, measured or not: the connection
// is closed, not pooled with a buffer the size of a row past the cut.
func TestExportCutAtItsRowsKeepsNoLargeBuffer(t *testing.T) {
	_, url := newAnalyticsDB(t)
	exec := newExec(t, url, pgwarehouse.ExecConfig{})
	ctx := context.Background()
	require.NoError(t, exec.Ping(ctx))
	const cell, exports = 40 << 20, 4
	before := idleHeap()
	var wg sync.WaitGroup
	errs := make([]error, exports)
	for i := range exports {
		wg.Go(func() {
			st, err := exec.ExportCSV(ctx, `SELECT CASE WHEN g <= 10 THEN 'a' ELSE repeat('x', 41943040) END AS big FROM generate_series(1, 12) g`,
				io.Discard, warehouse.ExportLimit{Rows: 10})
			if err == nil && !st.Truncated {
				err = fmt.Errorf("the export was not cut: %d rows", st.Rows)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	assert.Less(t, idleHeap(), before+cell, "the heap after %d exports cut before a %d-byte cell, all idle", exports, cell)
}
