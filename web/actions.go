package web

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
)

// actionRequest is the body of POST /api/actions: a button of an answer.
type actionRequest struct {
	ThreadID string `json:"thread_id"`
	Action   string `json:"action"`
	Value    string `json:"value"`
	// Note is what was wrong, with action feedback_note.
	Note string `json:"note"`
}

// actionFeedbackNote adds a note to the user's 👎 (value: the query id).
const actionFeedbackNote = "feedback_note"

// feedbackResponse answers a 👍, a 👎, its note or Verify.
type feedbackResponse struct {
	Intent  nodes.Intent `json:"intent"`
	QueryID string       `json:"query_id"`
	Text    string       `json:"text"`
	Reply   *replyView   `json:"reply"`
	// AskNote: the page may ask what was wrong (after a 👎).
	AskNote bool `json:"ask_note"`
}

// showSQLResponse answers show_sql.
type showSQLResponse struct {
	QueryID string     `json:"query_id"`
	SQL     string     `json:"sql"`
	Reply   *replyView `json:"reply"`
	Text    string     `json:"text"`
}

// serveAction presses an answer's button, without the model: export_csv
// downloads the result as CSV, show_sql returns the query, feedback
// (feedback_up, feedback_down, Slack's "feedback" element) records a
// rating and feedback_note the note on a 👎. The thread must be the
// asker's (else 404, as for an unknown thread, and nothing is done), and
// the query must belong to it: another thread's query id finds nothing.
func (s *server) serveAction(w http.ResponseWriter, r *http.Request) {
	var req actionRequest
	if err := decodeBody(w, r, s.cfg.MaxBody, &req); err != nil {
		writeStatusError(w, err)
		return
	}
	if err := checkThreadID(req.ThreadID); err != nil {
		writeStatusError(w, err)
		return
	}
	ctx := r.Context()
	msg := bot.Message{ThreadID: req.ThreadID, UserID: userOf(r), ChannelID: webChannel}
	var (
		st  *nodes.State
		err error
	)
	if req.Action == actionFeedbackNote {
		st, err = s.bot.Note(ctx, msg, req.Value, req.Note)
	} else {
		st, _, err = s.bot.Press(ctx, msg, req.Action, req.Value)
	}
	if st != nil {
		defer st.RemoveCSVFile()
	}
	switch {
	case errors.Is(err, bot.ErrNoThread):
		writeNoThread(w)
		return
	case errors.Is(err, bot.ErrBadAction):
		writeError(w, http.StatusBadRequest, err.Error())
		return
	case err != nil || st == nil:
		if ctx.Err() == nil {
			s.log.ErrorContext(ctx, "button press failed", "thread", req.ThreadID, "action", req.Action, "err", err)
		}
		writeError(w, http.StatusInternalServerError, textInternal)
		return
	case st.ErrorKind != "":
		writeError(w, actionStatus(st.ErrorKind), friendly(st))
		return
	}
	switch st.Intent {
	case nodes.IntentExportCSV:
		s.sendCSV(w, r, st)
		return
	case nodes.IntentFeedback, nodes.IntentVerify:
		down := req.Action == bot.ActionFeedbackDown || strings.HasPrefix(req.Value, bot.ActionFeedbackDown+":")
		writeJSON(w, http.StatusOK, feedbackResponse{Intent: st.Intent, QueryID: st.ReferencedQueryID,
			Text: st.ResponseText, Reply: viewOf(st), AskNote: down && req.Action != actionFeedbackNote})
		return
	}
	writeJSON(w, http.StatusOK, showSQLResponse{QueryID: st.QueryID, SQL: st.Query.Text, Reply: viewOf(st), Text: st.ResponseText})
}

// sendCSV streams the run's CSV as a download.
func (s *server) sendCSV(w http.ResponseWriter, r *http.Request, st *nodes.State) {
	if !st.HasCSV() {
		s.log.ErrorContext(r.Context(), "export produced no CSV", "thread", st.ThreadTS, "query_id", st.QueryID)
		writeError(w, http.StatusInternalServerError, textInternal)
		return
	}
	f, size, err := st.OpenCSV()
	if err != nil {
		s.log.ErrorContext(r.Context(), "open the CSV export", "thread", st.ThreadTS, "err", err)
		writeError(w, http.StatusInternalServerError, textInternal)
		return
	}
	defer f.Close()
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": st.CSVFilename}))
	h.Set("Content-Length", strconv.FormatInt(size, 10))
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, f); err != nil && r.Context().Err() == nil {
		s.log.WarnContext(r.Context(), "CSV download cut", "thread", st.ThreadTS, "err", err)
	}
}

// actionStatus is the HTTP status of a press that ended in an explained
// failure.
func actionStatus(kind nodes.ErrorKind) int {
	switch kind {
	case nodes.ErrNoPreviousQuery:
		return http.StatusNotFound
	case nodes.ErrForbidden, nodes.ErrAccessDenied, nodes.ErrNotAdmitted:
		return http.StatusForbidden
	case nodes.ErrUnsafeQuery:
		return http.StatusUnprocessableEntity
	case nodes.ErrQueryTimeout:
		return http.StatusGatewayTimeout
	case nodes.ErrDatabaseDown, nodes.ErrWarehouseDown, nodes.ErrWarehouseNoAnswer, nodes.ErrWarehouseAuth, nodes.ErrWarehouseDenied:
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
}

// friendly is the text users read for a failed run: the workflow's own
// explanation.
func friendly(st *nodes.State) string {
	if st.ResponseText != "" {
		return st.ResponseText
	}
	return textInternal
}
