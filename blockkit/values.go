package blockkit

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// nullText stands for SQL NULL in tables. An empty string shows as "" instead
// of nothing, so the two stay distinguishable and no cell is ever empty
// (Slack rejects empty text in most places).
const (
	nullText  = "—"
	emptyText = `""`
)

// formatValue renders one result value as table text.
//
// Integers and numeric strings are shown raw, without thousands separators:
// what the user sees then matches the CSV export and can be pasted into a
// spreadsheet. Floats are the one exception, see formatFloat.
func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return nullText
	case string:
		if x == "" {
			return emptyText
		}
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case float64:
		return formatFloat(x)
	case float32:
		return formatFloat(float64(x))
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return x.String()
	case []any, map[string]any:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	default:
		return fmt.Sprint(x)
	}
}

// formatFloat shows a float8 the way a person expects to read it.
//
// Binary floats carry noise (0.1+0.2 is 0.30000000000000004, and even
// strconv's shortest form keeps it), so we round: values of magnitude 1 or
// more keep at most 4 decimals; smaller values keep 4 significant digits, so
// 0.000012345 stays visible as 0.00001235. Below 1e-6 we switch to exponent
// form. Trailing zeros are dropped. Postgres numeric arrives as a string and
// is never rounded.
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	a := math.Abs(f)
	if a < 1e-6 {
		return strconv.FormatFloat(f, 'g', 4, 64)
	}
	decimals := 4
	if a < 1 {
		decimals = 3 - int(math.Floor(math.Log10(a)))
	}
	s := strconv.FormatFloat(f, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		return "0"
	}
	return s
}

// numericColumns reports, per column, whether its values are numbers, which
// read best right-aligned. The column's kind decides; a result cached
// before kinds existed has none, and then the values do.
func numericColumns(r *warehouse.Result) []bool {
	out := make([]bool, len(r.Columns))
	for i, c := range r.Columns {
		if c.Kind != "" {
			out[i] = c.Kind == warehouse.KindNumber
			continue
		}
		out[i] = valuesAreNumbers(r.Rows, i)
	}
	return out
}

func valuesAreNumbers(rows [][]any, col int) bool {
	seen := false
	for _, row := range rows {
		if col >= len(row) || row[col] == nil {
			continue
		}
		switch row[col].(type) {
		case int64, int, int32, float64, float32, json.Number:
			seen = true
		default:
			return false
		}
	}
	return seen
}

// cell returns row[col] rendered, tolerating short rows.
func cell(row []any, col int) string {
	if col >= len(row) {
		return nullText
	}
	return formatValue(row[col])
}

// columnName returns a column's name, or Postgres' own placeholder for an
// unnamed expression, so a header cell is never empty.
func columnName(c warehouse.Column) string {
	if strings.TrimSpace(c.Name) == "" {
		return "?column?"
	}
	return c.Name
}
