package cubewarehouse

import (
	"context"
	"errors"

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

// loaded is Cube's answer to a query, asked again within Cube's own query
// limit when it refused the query's (counted).
type loaded struct {
	*cube.Result
	// counted: Cube refused the query's limit, so it was asked again
	// naming none, with Result.Total its count of every row.
	counted bool
}

// load runs q. A Cube whose CUBEJS_DB_QUERY_LIMIT is below q's limit
// refuses it; q is then asked again naming no limit, which Cube answers
// with as many rows as it gives such a query (CUBEJS_DB_QUERY_DEFAULT_LIMIT,
// at most its query limit), and, when count, with its count of every row
// (total), so that a cut is told by Cube itself. The count is a second query
// for Cube, so it is asked only of a Cube that refused the limit.
func (b *Backend) load(ctx context.Context, q cube.Query, count bool) (loaded, error) {
	res, err := b.client.Load(ctx, q)
	if !errors.Is(err, cube.ErrQueryLimit) {
		return loaded{Result: res}, err
	}
	b.log.DebugContext(ctx, "cube refused the limit, asking within its own", "limit", q.Limit)
	q.Limit, q.Total = 0, count
	res, err = b.client.Load(ctx, q)
	return loaded{Result: res, counted: count}, err
}

// within is a counted answer as a result of up to want rows: rows beyond
// want are dropped, and the result is cut when it holds fewer rows than the
// query means, every row for a cap (capped), else up to want, its own
// limit. of is that number of rows meant.
func (l loaded) within(want int, capped bool) (r warehouse.Result, of int) {
	r = resultOf(l.Result, want)
	of = int(l.Total)
	if !capped {
		of = min(of, want)
	}
	r.Truncated = r.RowCount < of
	r.LimitedBy = ""
	if r.Truncated {
		r.LimitedBy = warehouse.LimitRows
	}
	return r, of
}
