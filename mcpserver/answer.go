package mcpserver

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/analyticsbot/analyticsbot/answer"
)

// Answer is what ask and run_query return: the bot's reply, and the
// result's rows within the call's limits.
type Answer struct {
	// Kind is what the reply is: answer, notice, error, clarify (the bot
	// asks back: ask one of Choices) or query.
	Kind string `json:"kind" jsonschema:"answer, notice, error, clarify (ask one of choices instead) or query"`
	// Text is the reply in plain words.
	Text string `json:"text" jsonschema:"the reply in plain words"`
	// ThreadID and QueryID name the answer for export_csv.
	ThreadID string `json:"thread_id" jsonschema:"the conversation of this answer (export_csv's thread_id)"`
	QueryID  string `json:"query_id,omitempty" jsonschema:"the answer's query id (export_csv's query_id)"`
	// Language names Query's language ("SQL", "Cube query").
	Language string `json:"language,omitempty" jsonschema:"the query's language: SQL or Cube query"`
	Query    string `json:"query,omitempty" jsonschema:"the query the answer ran"`
	// Assumptions are the interpretation choices the answer made.
	Assumptions []string `json:"assumptions,omitempty" jsonschema:"the interpretation choices the answer made"`
	Columns     []string `json:"columns,omitempty" jsonschema:"the result's column names"`
	Rows        [][]any  `json:"rows,omitempty" jsonschema:"the result's rows, at most MCP_MAX_ROWS of them"`
	// RowCount is how many rows the result had; Truncated says Rows
	// holds fewer (export_csv has them all).
	RowCount  int  `json:"row_count" jsonschema:"how many rows the result had"`
	Truncated bool `json:"truncated,omitempty" jsonschema:"rows holds fewer than the result had: export_csv has them all"`
	// VerifiedBy marks a query the data team verified.
	VerifiedBy string `json:"verified_by,omitempty" jsonschema:"who verified this query, when it is one the data team verified"`
	// Choices are the questions to ask instead when the bot asks back.
	Choices []string `json:"choices,omitempty" jsonschema:"with kind clarify: the questions to ask instead, one per reading"`
	// ErrorKind says why there is no answer; Reason, for a refused query,
	// the rule it broke.
	ErrorKind string `json:"error_kind,omitempty" jsonschema:"why there is no answer (invalid_query, unsafe_query, access_denied, not_admitted, …)"`
	Reason    string `json:"reason,omitempty" jsonschema:"for a refused query: the rule it broke, to fix it by"`
}

// answerOf is t as a tool's result: an error result (IsError) when the
// turn failed, its text saying why.
func (s *Server) answerOf(t turn) (*mcp.CallToolResult, Answer) {
	a := t.reply
	if a == nil {
		a = &answer.Answer{Kind: answer.KindError, Text: answer.Plain("Something went wrong on the bot's side while answering.")}
	}
	out := Answer{Kind: string(a.Kind), Text: a.Plain(), ThreadID: t.thread, QueryID: t.queryID,
		Assumptions: a.Assumptions, VerifiedBy: a.VerifiedBy, ErrorKind: string(t.errorKind), Reason: t.detail}
	if a.Kind == answer.KindClarify {
		for _, c := range a.Choices {
			out.Choices = append(out.Choices, c.Ask)
		}
	}
	if t.errorKind == "" && t.query != "" {
		out.Query, out.Language = t.query, s.bot.Backend().Dialect().Language
	}
	if r := t.result; r != nil {
		out.Columns, out.RowCount = r.ColumnNames(), r.RowCount
		out.Rows = r.Rows[:min(len(r.Rows), s.cfg.MaxRows)]
		out.Truncated = r.Truncated || len(out.Rows) < len(r.Rows)
	}
	res := &mcp.CallToolResult{}
	if t.errorKind != "" {
		text := out.Text
		if out.Reason != "" && !strings.Contains(text, out.Reason) {
			text += "\nReason: " + out.Reason
		}
		res.IsError = true
		res.Content = []mcp.Content{&mcp.TextContent{Text: text}}
	}
	return res, out
}

// cut leaves out the second half of the rows to fit MCP_MAX_BYTES: the
// result's row_count still counts them, and truncated says so (export_csv
// has them all).
func (a *Answer) cut() bool {
	if len(a.Rows) == 0 {
		return false
	}
	a.Rows, a.Truncated = a.Rows[:len(a.Rows)/2], true
	return true
}
