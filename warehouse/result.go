package warehouse

// Column describes one column of a result.
type Column struct {
	Name string `json:"name"`
	// Kind is the neutral kind of the column's values; empty in results
	// cached before kinds existed, where the values decide.
	Kind Kind `json:"kind,omitempty"`
	// Type is the backend's native type, e.g. "int8", "numeric", Cube's
	// "number"; for logs and people, never for decisions.
	Type string `json:"type"`
}

// Result is a query's result. Values are JSON-safe and exact: nil, bool,
// int64, float64, string (decimal numbers, dates, times, intervals, json and
// anything else in the backend's own text form) and []any for arrays.
type Result struct {
	Columns []Column `json:"columns"`
	Rows    [][]any  `json:"rows"`
	// RowCount is len(Rows).
	RowCount int `json:"row_count"`
	// Truncated reports that the query returned more than the result may
	// hold; LimitedBy says which cap cut it.
	Truncated bool   `json:"truncated"`
	LimitedBy string `json:"limited_by,omitempty"`
}

// The caps a result can be cut at, as Result.LimitedBy names them.
const (
	LimitRows  = "rows"
	LimitBytes = "bytes"
)

// ColumnNames returns the names of the result's columns.
func (r Result) ColumnNames() []string {
	names := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		names[i] = c.Name
	}
	return names
}
