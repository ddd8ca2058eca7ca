package pgwarehouse_test

import (
	"bytes"
	"context"
	"testing"

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
