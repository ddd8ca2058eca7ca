package cubewarehouse

import (
	"github.com/analyticsbot/analyticsbot/cube"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// resultOf converts Cube's rows; rows beyond limit (when positive) mark the
// result as cut (Check asks for one more when the limit is a cap).
func resultOf(r *cube.Result, limit int) warehouse.Result {
	out := warehouse.Result{Columns: make([]warehouse.Column, len(r.Columns)), Rows: r.Rows}
	if out.Rows == nil {
		out.Rows = [][]any{}
	}
	for i, c := range r.Columns {
		out.Columns[i] = warehouse.Column{Name: c.Name, Kind: valueKind(c.Type), Type: c.Type}
	}
	if limit > 0 && len(out.Rows) > limit {
		out.Rows = out.Rows[:limit]
		out.Truncated, out.LimitedBy = true, warehouse.LimitRows
	}
	out.RowCount = len(out.Rows)
	return out
}
