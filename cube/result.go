package cube

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Result is a query's answer as a table.
type Result struct {
	Columns []Column
	Rows    [][]any // one value per column: nil, int64, float64, bool or string
	// Total is Cube's count of every row of the query, limit aside, when
	// the query asked for it ([Query.Total]); 0 otherwise.
	Total int64
}

// Column describes one result column. Columns come in the order time
// dimensions (with a granularity), dimensions, measures, each in query order,
// so the grouping columns read first, as in the SQL a person would write.
type Column struct {
	// Name is the member in snake_case without its cube ("Apps.avgPrice" is
	// "avg_price"); a time dimension ends with its granularity
	// ("release_date_month"). When two columns would share a name, both
	// keep their cube: "apps_count" and "publishers_count".
	Name string
	// Member is the fully qualified member ("Apps.releaseDate"), without
	// the granularity.
	Member string
	// Type is Cube's: "number", "string", "time" or "boolean".
	Type string
	// Granularity is set on time dimension columns, such as "month".
	Granularity string
}

// Load runs q, polling while Cube is still working on it, and returns its
// rows converted (see [Result]) and sorted again by q.Order. q is sent as is:
// validate it with [Normalize] first. Errors match [ErrUnavailable],
// [ErrUnauthorized] or *[QueryError].
func (c *Client) Load(ctx context.Context, q Query) (*Result, error) {
	var raw rawLoad
	if err := c.call(ctx, "load", http.MethodPost, "/load", queryBody{Query: q}, &raw); err != nil {
		return nil, fmt.Errorf("cube load: %w", err)
	}
	if raw.Data == nil {
		return nil, fmt.Errorf("cube load: %w: the answer has no data", ErrUnavailable)
	}
	res := newResult(q, raw)
	if q.Total {
		n, err := raw.Total.Int64()
		if err != nil {
			return nil, fmt.Errorf("cube load: %w: the answer's total %q is no count", ErrUnavailable, raw.Total)
		}
		res.Total = n
	}
	return res, nil
}

// queryBody is the request body of /load and /sql.
type queryBody struct {
	Query Query `json:"query"`
}

// rawLoad is the part of the /load answer the bot uses.
type rawLoad struct {
	Data       *[]map[string]any `json:"data"`
	Total      json.Number       `json:"total"`
	Annotation struct {
		Measures       map[string]annotation `json:"measures"`
		Dimensions     map[string]annotation `json:"dimensions"`
		TimeDimensions map[string]annotation `json:"timeDimensions"`
	} `json:"annotation"`
}

type annotation struct {
	Type string `json:"type"`
}

// column is a result column and the key of its values in Cube's data rows.
type column struct {
	Column
	key string
}

func newResult(q Query, raw rawLoad) *Result {
	cols := columns(q, raw)
	res := &Result{Columns: make([]Column, len(cols)), Rows: make([][]any, 0, len(*raw.Data))}
	for i, col := range cols {
		res.Columns[i] = col.Column
	}
	for _, row := range *raw.Data {
		out := make([]any, len(cols))
		for i, col := range cols {
			out[i] = convertValue(row[col.key], col.Type, col.Granularity)
		}
		res.Rows = append(res.Rows, out)
	}
	sortRows(res, q.Order)
	return res
}

// columns lists the result columns of q, typed from the answer's annotation.
func columns(q Query, raw rawLoad) []column {
	var cols []column
	add := func(key, member, gran, fallback string, ann map[string]annotation) {
		if slices.ContainsFunc(cols, func(c column) bool { return c.key == key }) {
			return
		}
		typ := ann[key].Type
		if typ == "" {
			typ = fallback
		}
		cols = append(cols, column{key: key, Column: Column{Member: member, Type: typ, Granularity: gran}})
	}
	for _, td := range q.TimeDimensions {
		if td.Granularity != "" {
			add(td.Dimension+"."+td.Granularity, td.Dimension, td.Granularity, "time", raw.Annotation.TimeDimensions)
		}
	}
	for _, d := range q.Dimensions {
		add(d, d, "", "string", raw.Annotation.Dimensions)
	}
	for _, m := range q.Measures {
		add(m, m, "", "number", raw.Annotation.Measures)
	}
	nameColumns(cols)
	return cols
}

// nameColumns gives each column its short name, keeping the cube in the
// names that would otherwise collide.
func nameColumns(cols []column) {
	short := func(c column) string {
		_, member, _ := strings.Cut(c.Member, ".")
		name := snake(member)
		if c.Granularity != "" {
			name += "_" + c.Granularity
		}
		return name
	}
	counts := map[string]int{}
	for _, c := range cols {
		counts[short(c)]++
	}
	used := map[string]bool{}
	for i := range cols {
		name := short(cols[i])
		if counts[name] > 1 {
			cube, _, _ := strings.Cut(cols[i].Member, ".")
			name = snake(cube) + "_" + name
		}
		base := name
		for n := 2; used[name]; n++ { // "Apps.count" and "apps.count"-like leftovers
			name = fmt.Sprintf("%s_%d", base, n)
		}
		used[name] = true
		cols[i].Name = name
	}
}

// snake turns "releaseDate", "AppGenres" or "appID" into "release_date",
// "app_genres" and "app_id"; snake_case names stay as they are.
func snake(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 && r[i-1] != '_' &&
			(unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1]) || (i+1 < len(r) && unicode.IsLower(r[i+1]))) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// convertValue turns a value of Cube's data into the Go value of its type.
// Cube sends numeric and bigint values as strings and int4 as JSON numbers;
// both become int64 when written without a fraction, float64 otherwise.
func convertValue(v any, typ, gran string) any {
	if v == nil {
		return nil
	}
	switch typ {
	case "number":
		return number(v)
	case "boolean":
		switch s := strings.ToLower(fmt.Sprint(v)); s {
		case "true", "t", "1":
			return true
		case "false", "f", "0":
			return false
		}
		return v
	case "time":
		s := fmt.Sprint(v)
		if coarse(gran) && len(s) >= 10 && dateLike.MatchString(s[:10]) {
			return s[:10] // "2018-01-01T00:00:00.000" at a month is just the month's first day
		}
		return s
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// number parses a numeric value; text that is not a number is kept.
func number(v any) any {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case string:
		s = x
	default:
		return v
	}
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i
		}
	}
	// NaN and ±Infinity stay text, as PostgreSQL's reach the bot: JSON has
	// no such numbers, and a result must marshal (the cache, the saved
	// reply).
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) && holds(f, s) {
		return f
	}
	// A value a float would show wrong in digits people read, its whole
	// part or its cents ("12345678901234567.99", a sum past 2^53), stays
	// as Cube wrote it, as PostgreSQL's numeric values do. An average's
	// seventeenth digit is no such digit.
	return s
}

// halfCent is how far from the number written a float may be and still
// stand for it.
var halfCent = big.NewRat(1, 200)

// exactBelow is where a float's rounding (a part in 2^53) can first reach
// half a cent: every value smaller is held, and costs no exact reading
// (every number of a result is read so).
const exactBelow = 1e13

// holds reports whether f stands for the number s writes: equal to it
// within half a cent, so its whole part and its cents are the same.
func holds(f float64, s string) bool {
	if math.Abs(f) < exactBelow {
		return true
	}
	exact, ok := new(big.Rat).SetString(s)
	if !ok {
		return false
	}
	diff := new(big.Rat).Sub(exact, new(big.Rat).SetFloat64(f))
	return diff.Abs(diff).Cmp(halfCent) < 0
}

// coarse reports whether a granularity is a day or longer, so its values
// are dates.
func coarse(gran string) bool {
	i := slices.Index(granularities, gran)
	return i >= slices.Index(granularities, "day")
}

// sortRows sorts the rows by order, stably, since Cube does not promise to
// keep the database's order for every driver and pre-aggregation. Order
// items on members that are not columns are skipped.
func sortRows(res *Result, order Order) {
	type key struct {
		col          int
		desc, number bool
	}
	var keys []key
	for _, it := range order {
		if i := slices.IndexFunc(res.Columns, func(c Column) bool { return c.Member == it.Member }); i >= 0 {
			keys = append(keys, key{i, strings.EqualFold(it.Direction, "desc"), res.Columns[i].Type == "number"})
		}
	}
	if len(keys) == 0 {
		return
	}
	slices.SortStableFunc(res.Rows, func(a, b []any) int {
		for _, k := range keys {
			c := compareValues(a[k.col], b[k.col], k.number)
			if k.desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return 0
	})
}

// compareValues orders two values of one column. Nulls sort as the largest
// value, as in PostgreSQL (last ascending, first descending). Strings
// compare case-insensitively and otherwise keep Cube's order, since the
// database's collation cannot be known here.
func compareValues(a, b any, number bool) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	if x, ok := a.(int64); ok {
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y)
		}
	}
	if x, ok := toFloat(a); ok {
		if y, ok := toFloat(b); ok {
			return cmp.Compare(x, y)
		}
	}
	if x, ok := toRat(a); ok && number {
		if y, ok := toRat(b); ok {
			return x.Cmp(y)
		}
	}
	if x, ok := a.(bool); ok {
		if y, ok := b.(bool); ok {
			return cmp.Compare(boolRank(x), boolRank(y))
		}
	}
	return cmp.Compare(strings.ToLower(fmt.Sprint(a)), strings.ToLower(fmt.Sprint(b)))
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// toRat reads a number of a number column exactly, a value kept as Cube
// wrote it (number) too; NaN and ±Infinity, and other text, are no
// number. A text column's values compare as text, whatever they hold.
func toRat(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case int64:
		return new(big.Rat).SetInt64(x), true
	case float64:
		return new(big.Rat).SetFloat64(x), true
	case string:
		return new(big.Rat).SetString(x)
	}
	return nil, false
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}
