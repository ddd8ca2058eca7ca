package eval

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// defaultTolerance is the relative difference two numbers may have when an
// item sets none.
const defaultTolerance = 1e-6

// sameRows reports whether got answers with the rows of want under m: the
// same number of rows; every column of want matched by a column of got
// (another one each, by values, never by name), got having no other
// column unless m.ExtraColumns; rows in the same order when m.Ordered.
func sameRows(want, got [][]any, m Match) (bool, string) {
	if len(want) != len(got) {
		return false, fmt.Sprintf("%s, want %d", answer.Plural(len(got), "row", "rows"), len(want))
	}
	if len(want) == 0 {
		return true, ""
	}
	wcols, gcols := len(want[0]), len(got[0])
	if gcols < wcols || (gcols > wcols && !m.ExtraColumns) {
		return false, fmt.Sprintf("%s, want %d", answer.Plural(gcols, "column", "columns"), wcols)
	}
	tol := m.Tolerance
	if tol <= 0 {
		tol = defaultTolerance
	}
	// Which column of got answers each column of want, by its values.
	used := make([]bool, gcols)
	mapping := make([]int, wcols)
	for w := range wcols {
		mapping[w] = -1
		for g := range gcols {
			if !used[g] && sameColumn(want, got, w, g, tol, m.Ordered) {
				used[g], mapping[w] = true, g
				break
			}
		}
		if mapping[w] < 0 {
			return false, fmt.Sprintf("no column of the answer holds the values of column %d", w+1)
		}
	}
	if m.Ordered {
		return true, ""
	}
	// The rows, not only the columns: the answer's rows projected on the
	// matched columns are the expected rows, in any order.
	projected := make([][]any, len(got))
	for i, row := range got {
		projected[i] = make([]any, wcols)
		for w, g := range mapping {
			projected[i][w] = row[g]
		}
	}
	a, b := sortedRows(want), sortedRows(projected)
	for i := range a {
		for j := range a[i] {
			if !sameCell(a[i][j], b[i][j], tol) {
				return false, fmt.Sprintf("row %d differs", i+1)
			}
		}
	}
	return true, ""
}

// sameColumn compares column w of want with column g of got: in row order
// when ordered, else as multisets.
func sameColumn(want, got [][]any, w, g int, tol float64, ordered bool) bool {
	a, b := make([]any, len(want)), make([]any, len(got))
	for i := range want {
		a[i], b[i] = want[i][w], got[i][g]
	}
	if !ordered {
		slices.SortFunc(a, compareCells)
		slices.SortFunc(b, compareCells)
	}
	for i := range a {
		if !sameCell(a[i], b[i], tol) {
			return false
		}
	}
	return true
}

// sameCell compares two values: numbers within tolerance (numeric text
// too), NULL only with NULL, the rest by text.
func sameCell(a, b any, tol float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	x, xok := number(a)
	y, yok := number(b)
	if xok && yok {
		if x == y {
			return true
		}
		return math.Abs(x-y) <= tol*math.Max(math.Abs(x), math.Abs(y))
	}
	return warehouse.Text(a) == warehouse.Text(b)
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case float64:
		return v, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return f, err == nil
	}
	return 0, false
}

func compareCells(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	x, xok := number(a)
	y, yok := number(b)
	if xok && yok {
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	return strings.Compare(warehouse.Text(a), warehouse.Text(b))
}

func sortedRows(rows [][]any) [][]any {
	out := slices.Clone(rows)
	slices.SortFunc(out, func(a, b []any) int {
		for i := range min(len(a), len(b)) {
			if c := compareCells(a[i], b[i]); c != 0 {
				return c
			}
		}
		return len(a) - len(b)
	})
	return out
}
