package mcpserver

import (
	"io"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/warehouse"
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
	query   string
	queryID string
	// result is the whole result the answer ran (up to MAX_ROWS); nil
	// without one.
	result *warehouse.Result
	// errorKind is empty for an answer; detail is what the backend said
	// of a query it refused, in the words the generator is given.
	errorKind string
	detail    string
	// csv opens the export's CSV and its size, and removeCSV removes its
	// file; csv is nil without one.
	csv       func() (io.ReadCloser, int64, error)
	removeCSV func()
}

// turnOf reads a reply.
func turnOf(r bot.Reply) turn {
	t := turn{thread: r.ThreadID, reply: r.Answer, removeCSV: r.Close}
	if !r.Outcome.OK() {
		t.errorKind = r.Outcome.Kind
	} else {
		t.query, t.queryID = r.Query, r.QueryID
		if a := r.Answer; a != nil && a.Result != nil && len(a.Result.Columns) > 0 {
			t.result = a.Result
		}
	}
	if r.File != nil {
		t.csv = r.File.Open
	}
	return t
}

// queryTurnOf reads the reply to a query the client wrote.
func queryTurnOf(r bot.QueryReply) turn {
	t := turnOf(r.Reply)
	t.detail = r.Reason
	return t
}
