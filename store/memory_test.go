package store

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// mixedResult is a result of every kind of value the cache holds: text of
// varied lengths, numbers Go boxes, NULLs, booleans and arrays.
func mixedResult(rows int) CachedResult {
	out := make([][]any, rows)
	for i := range out {
		out[i] = []any{
			fmt.Sprintf("name %d %s", i, string(make([]byte, i%200))),
			int64(1000 + i), 3.5 + float64(i), nil, i%2 == 0,
			[]any{int64(1000 + i), fmt.Sprint("tag ", i), nil},
		}
	}
	return CachedResult{ThreadID: "T", QueryID: "0123abcd", Question: "everything?",
		Query: warehouse.Query{Backend: "postgres", Text: "SELECT * FROM t"},
		Result: warehouse.Result{
			Columns: []warehouse.Column{{Name: "name", Kind: warehouse.KindText, Type: "text"},
				{Name: "n", Type: "int8"}, {Name: "x", Type: "float8"}, {Name: "none", Type: "text"},
				{Name: "ok", Type: "bool"}, {Name: "tags", Type: "_text"}},
			Rows: out, RowCount: rows,
		}}
}

// liveHeap returns the bytes of live heap objects; two collections empty
// the sync.Pools too.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// The estimate is what the heap measures, to within 10 %. Not parallel:
// other tests' allocations would be measured too.
func TestResultSizeIsWhatTheHeapHolds(t *testing.T) {
	for _, rows := range []int{2000, 20000} {
		before := liveHeap()
		r := mixedResult(rows)
		held := liveHeap() - before
		got := resultSize(r)
		runtime.KeepAlive(r)
		t.Logf("%d rows: estimated %d, heap %d", rows, got, held)
		if ratio := float64(got) / float64(held); ratio < 0.9 || ratio > 1.1 {
			t.Errorf("resultSize of %d mixed rows = %d, the heap holds %d (%.2f×), want within 10 %%", rows, got, held, ratio)
		}
	}
}

func TestResultSizeCountsWhatIsAdded(t *testing.T) {
	t.Parallel()
	base := CachedResult{Result: warehouse.Result{Rows: [][]any{{}}}}
	tests := []struct {
		name string
		cell any
		want int64 // at least this more than a row without the cell
	}{
		{name: "text", cell: string(make([]byte, 1000)), want: 1000},
		{name: "long text", cell: string(make([]byte, 1<<20)), want: 1 << 20},
		{name: "array of text", cell: []any{string(make([]byte, 500)), string(make([]byte, 500))}, want: 1000},
		{name: "nested arrays", cell: []any{[]any{string(make([]byte, 300))}}, want: 300},
		{name: "number", cell: int64(123456), want: 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			with := base
			with.Result.Rows = [][]any{{tt.cell}}
			if got := resultSize(with) - resultSize(base); got < tt.want {
				t.Errorf("a %s cell adds %d bytes, want at least %d", tt.name, got, tt.want)
			}
		})
	}
}
