package pgwarehouse

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Values implements warehouse.Backend: the column grouped by its text,
// with each value's count of rows (over the sort a SELECT DISTINCT makes,
// about a fifth slower on the demo's largest column: BENCHMARKS.md), as
// the reader; for a caller, only of a column of their catalog that their
// policy does not mask, as decided over the whole catalog (warehouse.Decide:
// a column masked on a table is masked on its inheritance children, and
// one masked on a child or partition on its parent), as the guard decides.
//
// A value longer than warehouse.MaxValueLength is counted (Long) but not
// sent, so the read is bounded by limit values of at most that length,
// not by MAX_RESULT_BYTES, which bounds an answer's result: under it,
// the 27,033 game names of the demo were cut to their first half with
// a cap of 256 KB, and 45,001 values of 190 characters at the default
// 8 MB.
func (b *Backend) Values(ctx context.Context, col warehouse.ColumnRef, limit int) (warehouse.ColumnValues, error) {
	cat, err := b.catalog.Get(ctx, false)
	if err != nil {
		return warehouse.ColumnValues{}, err
	}
	a := warehouse.CallerOf(ctx).Access
	if a != nil {
		v := b.view(cat, a)
		cat, a = v.catalog, v.access
	}
	t, ok := cat.Table(col.Schema, col.Table)
	if !ok {
		return warehouse.ColumnValues{}, warehouse.Errorf(warehouse.Invalid, "no table %s.%s in the catalog", col.Schema, col.Table)
	}
	if _, ok := t.Column(col.Column); !ok {
		return warehouse.ColumnValues{}, warehouse.Errorf(warehouse.Invalid, "no column %s in the catalog", col)
	}
	if a != nil && a.MasksColumn(t.Schema, t.Name, col.Column) {
		return warehouse.ColumnValues{}, &warehouse.Error{Kind: warehouse.Forbidden, Class: "access_denied", Reason: "you may not read the values of " + col.String()}
	}
	if limit <= 0 {
		limit = b.cfg.MaxRows
	}
	c := pgx.Identifier{col.Column}.Sanitize() + "::text"
	sql := fmt.Sprintf("SELECT CASE WHEN length(%[1]s) <= %[4]d THEN %[1]s END, count(*) FROM %[2]s WHERE %[1]s IS NOT NULL GROUP BY %[1]s ORDER BY %[1]s LIMIT %[3]d",
		c, pgx.Identifier{t.Schema, t.Name}.Sanitize(), limit, warehouse.MaxValueLength)
	res, err := b.exec.queryRows(ctx, sql, limit, valuesBytes(limit))
	if err != nil {
		return warehouse.ColumnValues{}, fmt.Errorf("values of %s: %w", col, err)
	}
	if res.Truncated {
		// Never a part of the column as if it were all of it.
		return warehouse.ColumnValues{}, fmt.Errorf("values of %s: the read was cut by %s after %d values", col, res.LimitedBy, res.RowCount)
	}
	out := warehouse.ColumnValues{Distinct: make([]string, 0, len(res.Rows))}
	for _, row := range res.Rows {
		n, _ := row[1].(int64)
		out.Rows += n
		v, ok := row[0].(string)
		if !ok {
			out.Long++
			continue
		}
		out.Distinct = append(out.Distinct, v)
	}
	return out, nil
}

// valuesBytes bounds the read of limit values of at most
// warehouse.MaxValueLength characters (of up to 4 bytes each), with their
// counts of rows: it is never reached.
func valuesBytes(limit int) int {
	return limit * (4*warehouse.MaxValueLength + 20)
}
