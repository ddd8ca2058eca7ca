package warehousetest

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// MemoryName is the in-memory backend's name.
const MemoryName = "memory"

// memoryMaxRows is the Memory backend's cap when a check names none.
const memoryMaxRows = 1000

// Table is a table of the Memory backend: columns with their kinds, rows
// of JSON-safe values.
type Table struct {
	Name    string
	Columns []warehouse.TableColumn
	Rows    [][]any
}

// Memory is a backend over tables held in memory, with a query language of
// its own: a JSON object such as
//
//	{"from": "items", "select": ["name", "price"], "where": {"active": true},
//	 "order": "id", "limit": 5}
//
// or {"from": "items", "count": true, "where": {...}} for a count, and
// {"delete": "items"} for the one statement that would change data (it is
// always refused as unsafe). It is safe for concurrent use: tables are
// never changed.
type Memory struct {
	tables []Table
}

// NewMemory returns a backend over tables.
func NewMemory(tables ...Table) *Memory { return &Memory{tables: tables} }

// Fixture is the fixture as a Memory table.
func Fixture() Table {
	t := Table{Name: FixtureTable, Rows: FixtureRows()}
	for _, c := range FixtureColumns {
		native := map[warehouse.Kind]string{warehouse.KindNumber: "number", warehouse.KindText: "text", warehouse.KindBool: "bool"}[c.Kind]
		t.Columns = append(t.Columns, warehouse.TableColumn{Name: c.Name, Type: native, Kind: c.Kind, Nullable: true})
	}
	return t
}

// memQuery is a query of the Memory language.
type memQuery struct {
	From   string         `json:"from,omitempty"`
	Select []string       `json:"select,omitempty"`
	Where  map[string]any `json:"where,omitempty"`
	Count  bool           `json:"count,omitempty"`
	Order  string         `json:"order,omitempty"`
	Limit  int            `json:"limit,omitempty"`
	Delete string         `json:"delete,omitempty"`
}

// Name implements warehouse.Backend.
func (m *Memory) Name() string { return MemoryName }

// Catalog implements warehouse.Backend.
func (m *Memory) Catalog(context.Context) (*warehouse.Catalog, error) {
	if len(m.tables) == 0 {
		return nil, &warehouse.Error{Kind: warehouse.NoData, Reason: "no tables in memory"}
	}
	cat := &warehouse.Catalog{}
	for _, t := range m.tables {
		cat.Tables = append(cat.Tables, warehouse.Table{Name: t.Name, Columns: t.Columns})
	}
	return cat, nil
}

// Check implements warehouse.Backend. A limit the query names within the
// cap is part of the answer; otherwise the cap applies, and the query that
// runs asks for one row more.
func (m *Memory) Check(_ context.Context, text string, limit int) (warehouse.Runnable, error) {
	q, _, err := m.parse(text)
	if err != nil {
		return warehouse.Runnable{}, err
	}
	if limit <= 0 {
		limit = memoryMaxRows
	}
	stored, err := json.Marshal(q)
	if err != nil {
		return warehouse.Runnable{}, fmt.Errorf("encode memory query: %w", err)
	}
	// The stored text is the normalised query, its own fingerprint.
	r := warehouse.Runnable{Query: warehouse.Query{Backend: MemoryName, Text: string(stored)}, Statement: string(stored)}.
		Identified(string(stored))
	if q.Count || (q.Limit > 0 && q.Limit <= limit) {
		return r, nil
	}
	run := q
	run.Limit = limit + 1
	statement, err := json.Marshal(run)
	if err != nil {
		return warehouse.Runnable{}, fmt.Errorf("encode memory query: %w", err)
	}
	r.Statement, r.Limit = string(statement), limit
	return r, nil
}

// parse reads and checks a query against the tables.
func (m *Memory) parse(text string) (memQuery, Table, error) {
	var q memQuery
	if strings.TrimSpace(text) == "" {
		return q, Table{}, warehouse.Reject("empty", "the reply held no query", false)
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		return q, Table{}, warehouse.Reject("syntax", "not a query of the memory language: "+err.Error(), false)
	}
	if q.Delete != "" {
		return q, Table{}, warehouse.Reject("write", "only reading queries may run; delete changes data", true)
	}
	i := slices.IndexFunc(m.tables, func(t Table) bool { return t.Name == q.From })
	if i < 0 {
		return q, Table{}, warehouse.Reject("unknown_table", fmt.Sprintf("no table %q; use one of %s", q.From, m.tableNames()), false)
	}
	t := m.tables[i]
	names := slices.Concat(q.Select, []string{q.Order})
	for c := range q.Where {
		names = append(names, c)
	}
	for _, c := range names {
		if c != "" && columnIndex(t, c) < 0 {
			return q, Table{}, warehouse.Reject("unknown_column", fmt.Sprintf("table %s has no column %q", t.Name, c), false)
		}
	}
	return q, t, nil
}

func (m *Memory) tableNames() string {
	names := make([]string, len(m.tables))
	for i, t := range m.tables {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

func columnIndex(t Table, name string) int {
	return slices.IndexFunc(t.Columns, func(c warehouse.TableColumn) bool { return c.Name == name })
}

// Run implements warehouse.Backend.
func (m *Memory) Run(ctx context.Context, r warehouse.Runnable) (warehouse.Result, error) {
	if err := ctx.Err(); err != nil {
		return warehouse.Result{}, err
	}
	q, t, err := m.parse(r.Statement)
	if err != nil {
		return warehouse.Result{}, err
	}
	res := m.eval(q, t)
	if r.Limit > 0 && len(res.Rows) > r.Limit {
		res.Rows, res.Truncated, res.LimitedBy = res.Rows[:r.Limit], true, warehouse.LimitRows
	}
	res.RowCount = len(res.Rows)
	return res, nil
}

// eval answers q over t: filter, order, count or select, limit.
func (m *Memory) eval(q memQuery, t Table) warehouse.Result {
	var rows [][]any
	for _, row := range t.Rows {
		if matches(t, row, q.Where) {
			rows = append(rows, row)
		}
	}
	if q.Order != "" {
		i := columnIndex(t, q.Order)
		slices.SortStableFunc(rows, func(a, b []any) int { return compare(a[i], b[i]) })
	}
	if q.Count {
		return warehouse.Result{Columns: []warehouse.Column{{Name: "count", Kind: warehouse.KindNumber, Type: "number"}},
			Rows: [][]any{{int64(len(rows))}}, RowCount: 1}
	}
	sel := q.Select
	if len(sel) == 0 {
		for _, c := range t.Columns {
			sel = append(sel, c.Name)
		}
	}
	res := warehouse.Result{Rows: [][]any{}}
	idx := make([]int, len(sel))
	for k, name := range sel {
		idx[k] = columnIndex(t, name)
		c := t.Columns[idx[k]]
		res.Columns = append(res.Columns, warehouse.Column{Name: c.Name, Kind: c.Kind, Type: c.Type})
	}
	for _, row := range rows {
		if q.Limit > 0 && len(res.Rows) == q.Limit {
			break
		}
		out := make([]any, len(idx))
		for k, i := range idx {
			out[k] = row[i]
		}
		res.Rows = append(res.Rows, out)
	}
	res.RowCount = len(res.Rows)
	return res
}

// matches reports whether row has every value of where (compared as text).
func matches(t Table, row []any, where map[string]any) bool {
	for c, v := range where {
		got := row[columnIndex(t, c)]
		if (got == nil) != (v == nil) || warehouse.Text(got) != warehouse.Text(v) {
			return false
		}
	}
	return true
}

// compare orders values: NULL last, numbers by value, the rest as text.
func compare(a, b any) int {
	switch {
	case a == nil || b == nil:
		return cmp.Compare(boolRank(a == nil), boolRank(b == nil))
	}
	if x, ok := number(a); ok {
		if y, ok := number(b); ok {
			return cmp.Compare(x, y)
		}
	}
	return strings.Compare(warehouse.Text(a), warehouse.Text(b))
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Export implements warehouse.Backend.
func (m *Memory) Export(ctx context.Context, q warehouse.Query, w io.Writer, limit warehouse.ExportLimit) (warehouse.ExportStats, error) {
	r, err := m.Check(ctx, q.Text, limit.Rows)
	if err != nil {
		return warehouse.ExportStats{}, err
	}
	res, err := m.Run(ctx, r)
	if err != nil {
		return warehouse.ExportStats{}, err
	}
	return warehouse.ExportResult(w, res, limit.Bytes)
}

// Values implements warehouse.Backend, counting the rows that hold the
// values it returns.
func (m *Memory) Values(ctx context.Context, col warehouse.ColumnRef, limit int) (warehouse.ColumnValues, error) {
	if err := ctx.Err(); err != nil {
		return warehouse.ColumnValues{}, err
	}
	i := slices.IndexFunc(m.tables, func(t Table) bool { return t.Name == col.Table })
	if i < 0 || columnIndex(m.tables[i], col.Column) < 0 {
		return warehouse.ColumnValues{}, warehouse.Errorf(warehouse.Invalid, "no column %s in memory", col)
	}
	t, c := m.tables[i], columnIndex(m.tables[i], col.Column)
	rows := map[string]int64{}
	for _, row := range t.Rows {
		if v := row[c]; v != nil {
			rows[warehouse.Text(v)]++
		}
	}
	values := slices.Sorted(maps.Keys(rows))
	out := warehouse.ColumnValues{Distinct: values[:min(len(values), limit)]}
	for _, v := range out.Distinct {
		out.Rows += rows[v]
	}
	return out, nil
}

// Show implements warehouse.Backend.
func (m *Memory) Show(_ context.Context, q warehouse.Query) warehouse.Shown {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(q.Text), "", "  "); err != nil {
		return warehouse.Shown{Language: "memory query", Text: q.Text}
	}
	return warehouse.Shown{Language: "memory query", Text: b.String()}
}

//go:embed memory_prompt.tmpl
var memoryPrompt string

// Dialect implements warehouse.Backend.
func (m *Memory) Dialect() warehouse.Dialect {
	return warehouse.Dialect{
		Language:  "memory query",
		Step:      "generate_query",
		Prompt:    memoryPrompt,
		Describe:  describeMemory,
		Parse:     parseMemoryReply,
		Writing:   "Writing the memory query…",
		Checking:  "Checking the memory query…",
		Source:    "the in-memory tables",
		Scope:     "memory",
		EmptyHint: "Whoever runs this test should give the backend a table.",
		AuthHint:  "The in-memory backend has no credentials to check.",
		Fingerprint: func(query string) (string, error) {
			q, err := decodeMemQuery(query)
			if err != nil {
				return "", err
			}
			b, err := json.Marshal(q)
			return string(b), err
		},
		FingerprintForm: "memory-1",
		Tables: func(query string) ([]string, error) {
			q, err := decodeMemQuery(query)
			if err != nil {
				return nil, err
			}
			return []string{strings.ToLower(q.From)}, nil
		},
	}
}

func decodeMemQuery(query string) (memQuery, error) {
	var q memQuery
	if err := json.Unmarshal([]byte(query), &q); err != nil {
		return q, fmt.Errorf("read the memory query: %w", err)
	}
	return q, nil
}

func describeMemory(tables []warehouse.Table) string {
	var b strings.Builder
	for _, t := range tables {
		b.WriteString("TABLE " + t.Name + "\n")
		for _, c := range t.Columns {
			b.WriteString("  " + c.Name + " " + string(c.Kind))
			if len(c.Values) > 0 {
				b.WriteString(" values: " + warehouse.DescribeValues(c.Values))
			}
			b.WriteByte('\n')
		}
		if t.LeftOut > 0 {
			b.WriteString("  " + warehouse.DescribeLeftOut(t.LeftOut) + "\n")
		}
	}
	return b.String()
}

// parseMemoryReply reads {"query": {...}, "assumptions": [...], "explanation": "..."}.
func parseMemoryReply(reply string) (warehouse.Generated, bool) {
	var r struct {
		Query       json.RawMessage `json:"query"`
		Assumptions []string        `json:"assumptions"`
		Explanation string          `json:"explanation"`
	}
	start, end := strings.Index(reply, "{"), strings.LastIndex(reply, "}")
	if start < 0 || end < start || json.Unmarshal([]byte(reply[start:end+1]), &r) != nil || len(r.Query) == 0 {
		return warehouse.Generated{}, false
	}
	return warehouse.Generated{Text: string(r.Query), Assumptions: r.Assumptions, Explanation: r.Explanation}, true
}
