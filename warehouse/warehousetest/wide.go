package warehousetest

import (
	"fmt"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Wide answer's shape: issue 16 measured a result of 2,000 rows × 61 text
// columns (~8.5 MB as JSON), the widest a MAX_RESULT_BYTES of 8 MiB lets
// through with text of ordinary length.
const (
	WideRows    = 2000
	WideColumns = 61
)

// WideResult returns a result of rows × cols text columns whose cells look
// like a wide table's text (names, references, dates, amounts written as
// text), ~66 bytes each and most holding numbers, so that code reading the
// cells' text does the work a real wide answer makes it do. Every call
// makes strings of its own: results never share memory. Cell (i, j), both
// counted from 0, holds the numbers 1000+i and 100+j among others, so a
// test can name a number that only one row holds.
func WideResult(rows, cols int) warehouse.Result {
	columns := make([]warehouse.Column, cols)
	for j := range columns {
		columns[j] = warehouse.Column{Name: fmt.Sprintf("attribute_%02d", j), Kind: warehouse.KindText, Type: "text"}
	}
	out := make([][]any, rows)
	for i := range out {
		row := make([]any, cols)
		for j := range row {
			row[j] = fmt.Sprintf("Item %d of lot %d, shipped 2019-%02d-%02d, ref AB-%06d, %d.%02d kg",
				1000+i, 100+j, 1+(i+j)%12, 1+(i*j)%28, (i*cols+j)*7919%1000000, 10+(i+j)%90, (i*j)%100)
		}
		out[i] = row
	}
	return warehouse.Result{Columns: columns, Rows: out, RowCount: rows}
}
