package blockkit

import "github.com/analyticsbot/analyticsbot/answer"

// formatValue renders one result value as text, without separators or
// units (answer.Table adds those in tables).
func formatValue(v any) string { return answer.FormatValue(v) }

// numericColumns reports, for each of n columns, whether it holds numbers,
// which read best right-aligned.
func numericColumns(t *answer.Table, n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = t.Numeric(i)
	}
	return out
}
