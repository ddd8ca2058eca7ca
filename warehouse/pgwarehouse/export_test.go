package pgwarehouse_test

import (
	"bytes"
	"context"
	"errors"
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
		TIMESTAMPTZ '2024-03-05 14:30:00+02' AS at FROM generate_series(1, 4) g ORDER BY g`, &b, 10)
	require.NoError(t, err)
	assert.Equal(t, warehouse.ExportStats{Rows: 4}, st, "every row: the export ignores MaxRows")
	assert.Equal(t, "n,text,x,big,at\n"+
		"1,\"a,\"\"b\"\"\",1.5,false,2024-03-05T12:30:00Z\n"+
		"2,,3.0,false,2024-03-05T12:30:00Z\n"+
		"3,\"a,\"\"b\"\"\",4.5,true,2024-03-05T12:30:00Z\n"+
		"4,\"a,\"\"b\"\"\",6.0,true,2024-03-05T12:30:00Z\n", b.String(), "CSV quoting, NULL as empty, values as the cache formats them")

	b.Reset()
	st, err = exec.ExportCSV(ctx, "SELECT g FROM generate_series(1, 100) g", &b, 3)
	require.NoError(t, err)
	assert.Equal(t, warehouse.ExportStats{Rows: 3, Truncated: true}, st, "maxRows caps the export")
	assert.Equal(t, "g\n1\n2\n3\n", b.String())

	_, err = exec.ExportCSV(ctx, "DELETE FROM orders", &b, 3)
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
			pg_sleep(CASE WHEN g > 50 THEN 3600 ELSE 0 END) AS nap FROM generate_series(1, 100) g`, failingWriter{}, 1000)
		done <- err
	}()
	select {
	case err := <-done:
		assert.ErrorContains(t, err, "no space left on device")
	case <-time.After(time.Minute):
		t.Fatal("the export went on reading the result after its write failed")
	}
}
