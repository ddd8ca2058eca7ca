package mcpserver

import (
	"io"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// This file is the one place that reads what bot.Ask, bot.Press and
// bot.RunQuery return: the rest of the package reads a turn.

// turn is what the MCP server shows of a turn the bot answered.
type turn struct {
	thread string
	// reply is the answer model every surface renders.
	reply *answer.Answer
	// query is the query the answer ran; queryID its id in the thread
	// (export_csv's argument).
	query   warehouse.Query
	queryID string
	// result is the whole result the answer ran (up to MAX_ROWS); nil
	// without one.
	result *warehouse.Result
	// errorKind is empty for an answer; detail is what the backend said
	// of a query it refused, in the words the generator is given.
	errorKind nodes.ErrorKind
	detail    string
	// csv opens the export's CSV and its size, and removeCSV removes its
	// file; csv is nil without one.
	csv       func() (io.ReadCloser, int64, error)
	removeCSV func()
}

// turnOf reads the final state of a turn.
func turnOf(s *nodes.State, _ workflow.Result) turn {
	t := turn{thread: s.ThreadTS, reply: s.Reply, errorKind: s.ErrorKind, removeCSV: func() {}}
	if s.ErrorKind == "" {
		t.query, t.queryID = s.Query, s.QueryID
		if len(s.Result.Columns) > 0 {
			r := s.Result
			t.result = &r
		}
	}
	if refused[s.ErrorKind] {
		t.detail = s.ErrorDetail
	}
	if s.HasCSV() {
		t.csv, t.removeCSV = s.OpenCSV, s.RemoveCSVFile
	}
	return t
}

// refused are the error kinds of a query the backend or the guard turned
// down, whose reason the client may read (as the generator does) to fix
// its query.
var refused = map[nodes.ErrorKind]bool{
	nodes.ErrInvalidQuery: true, nodes.ErrUnsafeQuery: true, nodes.ErrAccessDenied: true, nodes.ErrForbidden: true,
}
