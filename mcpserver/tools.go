package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/analyticsbot/analyticsbot/bot"
)

// Bounds of the tools' arguments, in their JSON schemas: a longer one is
// refused before any tool runs (checkArguments).
const (
	maxQuestion = 4000
	maxQuery    = 64 << 10
	maxName     = 200
	maxSearch   = 500
	maxListed   = 100
	// maxLogged bounds the arguments of a refused call that its query log
	// row keeps: as many characters as the log keeps of a question.
	maxLogged = 4000
)

type askInput struct {
	Question string `json:"question" jsonschema:"the question about the data, in plain words, whole: each call starts a new conversation"`
}

type contextInput struct {
	Question string `json:"question" jsonschema:"the question to find the tables, columns, values and examples for"`
}

type queryInput struct {
	Query string `json:"query" jsonschema:"one read-only query in the backend's language (see the tool's description)"`
}

type tableInput struct {
	Table string `json:"table" jsonschema:"the table's name as list_tables gives it (schema.table)"`
}

type searchInput struct {
	Text string `json:"text" jsonschema:"words to find stored values for: a name, a place, a category, as a question would say it"`
}

type verifiedInput struct {
	Limit int `json:"limit,omitempty" jsonschema:"at most this many (default 20, at most 100)"`
}

type exportInput struct {
	ThreadID string `json:"thread_id" jsonschema:"the thread_id of the answer (from ask or run_query)"`
	QueryID  string `json:"query_id" jsonschema:"the query_id of the answer (from ask or run_query)"`
}

// schema is In's inferred schema with its string arguments bounded to
// maxLen characters (and at least one) and its integers to [0, maxInt].
func schema[In any](maxLen map[string]int, maxInt map[string]float64) *jsonschema.Schema {
	sc, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: the schema of %T: %v", *new(In), err)) // the types above always infer
	}
	for name, n := range maxLen {
		p := sc.Properties[name]
		p.MaxLength, p.MinLength = jsonschema.Ptr(n), jsonschema.Ptr(1)
	}
	for name, n := range maxInt {
		p := sc.Properties[name]
		p.Minimum, p.Maximum = jsonschema.Ptr(0.0), jsonschema.Ptr(n)
	}
	return sc
}

// readOnly marks a tool that changes nothing the client can see.
var readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: jsonschema.Ptr(false)}

// addTools registers the tools.
func (s *Server) addTools() {
	d := s.bot.Backend().Dialect()
	addTool(s, &mcp.Tool{Name: "ask", Title: "Ask a question about the data",
		Description: fmt.Sprintf("Answer a question about %s in plain words: the bot chooses the tables, writes the %s "+
			"under your access policy, runs it read-only and explains the result. Returns the answer's text, its columns "+
			"and up to %d rows, the query it ran, its assumptions, its thread_id and query_id (for export_csv), and "+
			"verified_by when the query is one the data team verified. Each call is a new conversation: say everything "+
			"the question needs. When kind is clarify, ask one of choices instead.", s.bot.Config().Domain, d.Language, s.cfg.MaxRows),
		InputSchema: schema[askInput](map[string]int{"question": maxQuestion}, nil), Annotations: readOnly}, s.ask)
	addTool(s, &mcp.Tool{Name: "get_context", Title: "What a query for a question would be written from",
		Description: "Show what the bot's query writer would be given for a question, without answering it: the tables " +
			"chosen (with why), their columns, stored values matching the question's words, low-cardinality columns' " +
			"values, and the verified examples retrieved. Use it before writing a query for run_query.",
		InputSchema: schema[contextInput](map[string]int{"question": maxQuestion}, nil), Annotations: readOnly}, s.getContext)
	addTool(s, &mcp.Tool{Name: "run_query", Title: "Run a query you wrote",
		Description: fmt.Sprintf("Run one read-only %s you wrote against %s, as yourself: the bot's guard, your access "+
			"policy and your database role apply, as to the bot's own queries. A query that writes, changes the schema, "+
			"reads what you may not or does not run is refused as a tool error whose reason names the rule it broke, "+
			"so you can fix it. Returns the columns and up to %d rows, with thread_id and query_id for export_csv.",
			d.Language, d.Source, s.cfg.MaxRows),
		InputSchema: schema[queryInput](map[string]int{"query": maxQuery}, nil), Annotations: readOnly}, s.runQuery)
	addTool(s, &mcp.Tool{Name: "list_tables", Title: "List the tables you may read",
		Description: "List the tables (views, cubes) you may read, with their descriptions and how many of their columns " +
			"you may read. describe_table gives a table's columns.",
		Annotations: readOnly}, s.listTables)
	addTool(s, &mcp.Tool{Name: "describe_table", Title: "Describe a table",
		Description: "Describe one table you may read: its columns you may read (name, type, kind, description) and " +
			"its foreign keys. A table you may not read is answered as one that does not exist.",
		InputSchema: schema[tableInput](map[string]int{"table": maxName}, nil), Annotations: readOnly}, s.describeTable)
	addTool(s, &mcp.Tool{Name: "search_values", Title: "Find stored values",
		Description: "Find values stored in text columns you may read that match words (names, places, categories), " +
			"with the column, how well and how each matched: to filter on a value exactly as it is stored.",
		InputSchema: schema[searchInput](map[string]int{"text": maxSearch}, nil), Annotations: readOnly}, s.searchValues)
	addTool(s, &mcp.Tool{Name: "list_verified_queries", Title: "List verified queries",
		Description: "List questions whose query the data team verified, most used first, with the query: only those " +
			"you may run. Their queries are good models for run_query.",
		InputSchema: schema[verifiedInput](nil, map[string]float64{"limit": maxListed}), Annotations: readOnly}, s.listVerified)
	addTool(s, &mcp.Tool{Name: "export_csv", Title: "Export an answer's result as CSV",
		Description: fmt.Sprintf("Export the whole result of an earlier answer (its thread_id and query_id from ask or "+
			"run_query) as CSV, its query run again under your policy: a text/csv resource in the result rather than "+
			"rows in the message, of at most %d bytes.", s.cfg.MaxBytes),
		InputSchema: schema[exportInput](map[string]int{"thread_id": maxName, "query_id": maxName}, nil), Annotations: readOnly}, s.exportCSV)
}

func (s *Server) ask(ctx context.Context, req *mcp.CallToolRequest, in askInput) (*mcp.CallToolResult, Answer, error) {
	m, err := s.message(req)
	if err != nil {
		return nil, Answer{}, err
	}
	m.Text = in.Question
	var t turn
	err = s.limited(ctx, "ask", func(ctx context.Context) error {
		r, err := s.bot.Ask(ctx, m)
		if err != nil {
			return err
		}
		t = turnOf(r)
		return nil
	})
	if err != nil {
		return nil, Answer{}, err
	}
	res, out := s.answerOf(t)
	return res, out, nil
}

func (s *Server) runQuery(ctx context.Context, req *mcp.CallToolRequest, in queryInput) (*mcp.CallToolResult, Answer, error) {
	m, err := s.message(req)
	if err != nil {
		return nil, Answer{}, err
	}
	var t turn
	err = s.limited(ctx, "run_query", func(ctx context.Context) error {
		r, err := s.bot.RunQuery(ctx, m, in.Query)
		if err != nil {
			return err
		}
		t = queryTurnOf(r)
		return nil
	})
	if err != nil {
		return nil, Answer{}, err
	}
	res, out := s.answerOf(t)
	if out.Reason != "" {
		// The reply's words are for someone who asked a question; the
		// client wrote the query, and fixes it by the rule it broke.
		out.Text = fmt.Sprintf("The query was not run (%s): %s", out.ErrorKind, out.Reason)
		res.Content = []mcp.Content{&mcp.TextContent{Text: out.Text}}
	}
	return res, out, nil
}

func (s *Server) getContext(ctx context.Context, req *mcp.CallToolRequest, in contextInput) (*mcp.CallToolResult, contextResult, error) {
	m, err := s.message(req)
	if err != nil {
		return nil, contextResult{}, err
	}
	m.Text = in.Question
	var out contextResult
	err = s.limited(ctx, "get_context", func(ctx context.Context) error {
		gc, err := s.bot.ContextFor(ctx, m)
		if err != nil {
			return err
		}
		out.ContextReport = gc.Report("", s.bot.Backend().Name())
		return nil
	})
	return nil, out, err
}

// exportCSV presses an answer's Export CSV.
func (s *Server) exportCSV(ctx context.Context, req *mcp.CallToolRequest, in exportInput) (*mcp.CallToolResult, any, error) {
	m, err := s.message(req)
	if err != nil {
		return nil, nil, err
	}
	m.ThreadID = in.ThreadID
	var res *mcp.CallToolResult
	err = s.limited(ctx, "export_csv", func(ctx context.Context) error {
		// The file is cut where it would no longer fit in the reply,
		// not written whole to be refused.
		r, err := s.bot.Press(ctx, m, s.exportAction(), in.QueryID, bot.WithExportMaxBytes(int64(s.cfg.MaxBytes)))
		switch {
		case errors.Is(err, bot.ErrNoThread):
			return tell("no thread %q of yours: give the thread_id of an answer you were given", in.ThreadID)
		case errors.Is(err, bot.ErrBadAction):
			// The bot's reason quotes at most the start of a long value.
			return tell("%s: give the query_id of an answer you were given", bot.BadActionReason(err))
		case err != nil:
			return err
		}
		t := turnOf(r)
		defer t.removeCSV()
		if t.errorKind != "" || t.csv == nil {
			res, _ = s.answerOf(t)
			res.IsError = true
			return nil
		}
		res, err = s.csvResource(t, in.QueryID)
		return err
	})
	return res, nil, err
}

// exportAction is the action id of the button whose press answers with
// the result's file (Export CSV), as the bot lists its buttons.
func (s *Server) exportAction() string {
	for _, b := range s.bot.Buttons() {
		if b.Download {
			return b.Action
		}
	}
	return ""
}
