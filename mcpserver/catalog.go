package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// TableList is what list_tables returns.
type TableList struct {
	Tables []TableInfo `json:"tables" jsonschema:"the tables you may read"`
	// Truncated and LeftOut say what MCP_MAX_BYTES left out.
	Truncated bool           `json:"truncated,omitempty" jsonschema:"part of the list was left out to keep the result within the server's MCP_MAX_BYTES"`
	LeftOut   map[string]int `json:"left_out,omitempty" jsonschema:"how many of each list were left out, by the list's name"`
}

// TableInfo is one table of list_tables.
type TableInfo struct {
	Name        string `json:"name" jsonschema:"schema.table, as queries name it"`
	Description string `json:"description,omitempty" jsonschema:"what the table holds"`
	Columns     int    `json:"columns" jsonschema:"how many of its columns you may read"`
}

// TableDescription is what describe_table returns.
type TableDescription struct {
	Name        string       `json:"name" jsonschema:"schema.table, as queries name it"`
	Description string       `json:"description,omitempty" jsonschema:"what the table holds"`
	Columns     []ColumnInfo `json:"columns" jsonschema:"its columns you may read"`
	ForeignKeys []ForeignKey `json:"foreign_keys,omitempty" jsonschema:"its references to other tables"`
	// Truncated and LeftOut say what MCP_MAX_BYTES left out.
	Truncated bool           `json:"truncated,omitempty" jsonschema:"part of the list was left out to keep the result within the server's MCP_MAX_BYTES"`
	LeftOut   map[string]int `json:"left_out,omitempty" jsonschema:"how many of each list were left out, by the list's name"`
}

// ColumnInfo is one column of describe_table.
type ColumnInfo struct {
	Name string `json:"name"`
	// Type is the backend's type; Kind the neutral one.
	Type        string `json:"type" jsonschema:"the database's type"`
	Kind        string `json:"kind" jsonschema:"number, text, time, bool or other"`
	Role        string `json:"role,omitempty" jsonschema:"a semantic layer's measure, dimension or segment"`
	Nullable    bool   `json:"nullable,omitempty"`
	Description string `json:"description,omitempty"`
}

// ForeignKey is a reference of describe_table.
type ForeignKey struct {
	Columns    []string `json:"columns"`
	References string   `json:"references" jsonschema:"the referenced table"`
	RefColumns []string `json:"ref_columns"`
}

// ValueList is what search_values returns.
type ValueList struct {
	Values []Value `json:"values" jsonschema:"the matching stored values, best first"`
	// Truncated and LeftOut say what MCP_MAX_BYTES left out.
	Truncated bool           `json:"truncated,omitempty" jsonschema:"part of the list was left out to keep the result within the server's MCP_MAX_BYTES"`
	LeftOut   map[string]int `json:"left_out,omitempty" jsonschema:"how many of each list were left out, by the list's name"`
}

// Value is one stored value of search_values.
type Value struct {
	Column     string  `json:"column" jsonschema:"schema.table.column"`
	Value      string  `json:"value" jsonschema:"the value as stored"`
	Phrase     string  `json:"phrase" jsonschema:"the words it matched"`
	Similarity float64 `json:"similarity" jsonschema:"how well, from 0 to 1"`
	Why        string  `json:"why" jsonschema:"how it matched: exact, stem, place or fuzzy"`
}

// VerifiedList is what list_verified_queries returns.
type VerifiedList struct {
	Queries []VerifiedQuery `json:"queries"`
	// Truncated and LeftOut say what MCP_MAX_BYTES left out.
	Truncated bool           `json:"truncated,omitempty" jsonschema:"part of the list was left out to keep the result within the server's MCP_MAX_BYTES"`
	LeftOut   map[string]int `json:"left_out,omitempty" jsonschema:"how many of each list were left out, by the list's name"`
}

// VerifiedQuery is one verified example.
type VerifiedQuery struct {
	ID          int64    `json:"id"`
	Question    string   `json:"question"`
	Query       string   `json:"query"`
	Assumptions []string `json:"assumptions,omitempty"`
	VerifiedBy  string   `json:"verified_by,omitempty"`
}

func (l *TableList) cut() bool { return halve(&l.Tables, "tables", &l.LeftOut, &l.Truncated) }

// cut halves the larger of its columns and foreign keys.
func (d *TableDescription) cut() bool {
	if jsonSize(d.ForeignKeys) > jsonSize(d.Columns) {
		return halve(&d.ForeignKeys, "foreign_keys", &d.LeftOut, &d.Truncated)
	}
	return halve(&d.Columns, "columns", &d.LeftOut, &d.Truncated) ||
		halve(&d.ForeignKeys, "foreign_keys", &d.LeftOut, &d.Truncated)
}

func (l *ValueList) cut() bool { return halve(&l.Values, "values", &l.LeftOut, &l.Truncated) }

func (l *VerifiedList) cut() bool { return halve(&l.Queries, "queries", &l.LeftOut, &l.Truncated) }

// contextResult is what get_context returns: the report, and what
// MCP_MAX_BYTES left out of it.
type contextResult struct {
	bot.ContextReport
	// Truncated and LeftOut say what MCP_MAX_BYTES left out.
	Truncated bool           `json:"truncated,omitempty" jsonschema:"part of the report was left out to keep the result within the server's MCP_MAX_BYTES"`
	LeftOut   map[string]int `json:"left_out,omitempty" jsonschema:"how many of each list were left out, by the list's name"`
}

// cut halves the report's largest list.
func (c *contextResult) cut() bool {
	r := &c.ContextReport
	lists := []struct {
		n, size int
		halve   func() bool
	}{
		{len(r.Tables), jsonSize(r.Tables), func() bool { return halve(&r.Tables, "tables", &c.LeftOut, &c.Truncated) }},
		{len(r.Others), jsonSize(r.Others), func() bool { return halve(&r.Others, "other_tables", &c.LeftOut, &c.Truncated) }},
		{len(r.Examples), jsonSize(r.Examples), func() bool { return halve(&r.Examples, "examples", &c.LeftOut, &c.Truncated) }},
		{len(r.Retrieved), jsonSize(r.Retrieved), func() bool { return halve(&r.Retrieved, "retrieved_examples", &c.LeftOut, &c.Truncated) }},
		{len(r.Values), jsonSize(r.Values), func() bool { return halve(&r.Values, "values", &c.LeftOut, &c.Truncated) }},
		{len(r.Listed), jsonSize(r.Listed), func() bool { return halve(&r.Listed, "listed_values", &c.LeftOut, &c.Truncated) }},
		{len(r.SearchTerms), jsonSize(r.SearchTerms), func() bool { return halve(&r.SearchTerms, "search_terms", &c.LeftOut, &c.Truncated) }},
		{len(r.Glossary), jsonSize(r.Glossary), func() bool { return halve(&r.Glossary, "glossary", &c.LeftOut, &c.Truncated) }},
		{len(r.AskBack), jsonSize(r.AskBack), func() bool { return halve(&r.AskBack, "ask_back", &c.LeftOut, &c.Truncated) }},
	}
	largest := -1
	for i, l := range lists {
		if l.n > 0 && (largest < 0 || l.size > lists[largest].size) {
			largest = i
		}
	}
	return largest >= 0 && lists[largest].halve()
}

func (s *Server) listTables(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, TableList, error) {
	m, err := s.message(req)
	if err != nil {
		return nil, TableList{}, err
	}
	out := TableList{Tables: []TableInfo{}}
	err = s.limited(ctx, "list_tables", func(ctx context.Context) error {
		tables, err := s.bot.Tables(ctx, m)
		for _, t := range tables {
			out.Tables = append(out.Tables, TableInfo{Name: t.QualifiedName(), Description: warehouse.OneLine(t.Comment), Columns: len(t.Columns)})
		}
		return err
	})
	return nil, out, err
}

func (s *Server) describeTable(ctx context.Context, req *mcp.CallToolRequest, in tableInput) (*mcp.CallToolResult, TableDescription, error) {
	m, err := s.message(req)
	if err != nil {
		return nil, TableDescription{}, err
	}
	var out TableDescription
	err = s.limited(ctx, "describe_table", func(ctx context.Context) error {
		t, err := s.bot.DescribeTable(ctx, m, in.Table)
		if err != nil {
			return err
		}
		out = TableDescription{Name: t.QualifiedName(), Description: warehouse.OneLine(t.Comment), Columns: []ColumnInfo{}}
		for _, c := range t.Columns {
			out.Columns = append(out.Columns, ColumnInfo{Name: c.Name, Type: c.Type, Kind: string(c.Kind), Role: string(c.Role),
				Nullable: c.Nullable, Description: warehouse.OneLine(c.Comment)})
		}
		for _, fk := range t.ForeignKeys {
			ref := fk.RefTable
			if fk.RefSchema != "" {
				ref = fk.RefSchema + "." + ref
			}
			out.ForeignKeys = append(out.ForeignKeys, ForeignKey{Columns: fk.Columns, References: ref, RefColumns: fk.RefColumns})
		}
		return nil
	})
	return nil, out, err
}

func (s *Server) searchValues(ctx context.Context, req *mcp.CallToolRequest, in searchInput) (*mcp.CallToolResult, ValueList, error) {
	m, err := s.message(req)
	if err != nil {
		return nil, ValueList{}, err
	}
	out := ValueList{Values: []Value{}}
	err = s.limited(ctx, "search_values", func(ctx context.Context) error {
		matches, err := s.bot.SearchValues(ctx, m, in.Text)
		for _, v := range matches {
			column := strings.Join([]string{v.Schema, v.Table, v.Column}, ".")
			if v.Schema == "" || strings.Contains(v.Column, ".") {
				column = v.Column // a cube's member names its cube
			}
			out.Values = append(out.Values, Value{Column: column, Value: v.Value, Phrase: v.Phrase, Similarity: v.Similarity, Why: v.Why})
		}
		return err
	})
	return nil, out, err
}

func (s *Server) listVerified(ctx context.Context, req *mcp.CallToolRequest, in verifiedInput) (*mcp.CallToolResult, VerifiedList, error) {
	m, err := s.message(req)
	if err != nil {
		return nil, VerifiedList{}, err
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 20
	}
	out := VerifiedList{Queries: []VerifiedQuery{}}
	err = s.limited(ctx, "list_verified_queries", func(ctx context.Context) error {
		list, err := s.bot.VerifiedQueries(ctx, m, limit)
		for _, e := range list {
			out.Queries = append(out.Queries, VerifiedQuery{ID: e.ID, Question: e.Question, Query: e.Query,
				Assumptions: e.Assumptions, VerifiedBy: e.VerifiedBy})
		}
		return err
	})
	return nil, out, err
}
