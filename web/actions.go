package web

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/analyticsbot/analyticsbot/bot"
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

// actionResponse answers a press that brings no file: Show SQL, Refresh,
// a 👍, a 👎, its note, Verify.
type actionResponse struct {
	// Intent is what the press did ("show_sql", "feedback", …).
	Intent  string `json:"intent"`
	QueryID string `json:"query_id"`
	// SQL is the query the reply shows or ran (Show SQL, Refresh, Explain,
	// Verify); empty for a rating or a note, which the reply only thanks
	// for (nodes.Rate).
	SQL   string     `json:"sql"`
	Text  string     `json:"text"`
	Reply *replyView `json:"reply"`
	// AskNote: the page may ask what was wrong (after a 👎).
	AskNote bool `json:"ask_note"`
}

// serveAction presses an answer's button, without the model: a reply
// with a file (export_csv) downloads it as CSV, any other returns the
// reply (show_sql the query, feedback — feedback_up, feedback_down,
// Slack's "feedback" element — a rating's thanks, feedback_note the note
// on a 👎). The thread must be the asker's (else 404, as for an unknown
// thread, and nothing is done), and the query must belong to it: another
// thread's query id finds nothing.
func (s *server) serveAction(w http.ResponseWriter, r *http.Request) {
	var req actionRequest
	if err := s.decodeBody(w, r, s.cfg.MaxBody, &req); err != nil {
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
		reply bot.Reply
		err   error
	)
	if req.Action == actionFeedbackNote {
		reply, err = s.bot.PressNote(ctx, msg, req.Value, req.Note)
	} else {
		reply, err = s.bot.Press(ctx, msg, req.Action, req.Value)
	}
	defer reply.Close()
	switch {
	case errors.Is(err, bot.ErrNoThread):
		writeNoThread(w)
		return
	case errors.Is(err, bot.ErrUnknownAction):
		// The web takes two actions beside the buttons' (README): the
		// reply's feedback element and the note on a 👎.
		writeError(w, http.StatusBadRequest, bot.BadActionReason(bot.UnknownAction(req.Action, bot.ActionFeedback, actionFeedbackNote)))
		return
	case errors.Is(err, bot.ErrBadAction):
		writeError(w, http.StatusBadRequest, bot.BadActionReason(err))
		return
	case err != nil || reply.Answer == nil:
		if ctx.Err() == nil {
			s.log.ErrorContext(ctx, "button press failed", "thread", req.ThreadID, "action", req.Action, "err", err)
		}
		writeError(w, http.StatusInternalServerError, textInternal)
		return
	case !reply.Outcome.OK():
		writeError(w, actionStatus(reply.Outcome.Cause), friendly(reply))
		return
	case reply.File != nil:
		s.sendCSV(w, r, reply)
		return
	}
	down := req.Action == bot.ActionFeedbackDown || strings.HasPrefix(req.Value, bot.ActionFeedbackDown+":")
	writeJSON(w, http.StatusOK, actionResponse{Intent: reply.Intent, QueryID: reply.QueryID, SQL: reply.Query,
		Text: reply.Text, Reply: viewOf(reply), AskNote: down && req.Action != actionFeedbackNote})
}

// headerExportNote carries, percent-encoded, what a download's reply says
// of an export cut short ("The export was limited to 1,500 rows.").
const headerExportNote = "X-Export-Note"

// sendCSV streams the reply's file as a download.
func (s *server) sendCSV(w http.ResponseWriter, r *http.Request, reply bot.Reply) {
	f, size, err := reply.File.Open()
	if err != nil {
		s.log.ErrorContext(r.Context(), "open the CSV export", "thread", reply.ThreadID, "err", err)
		writeError(w, http.StatusInternalServerError, textInternal)
		return
	}
	defer f.Close()
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": reply.File.Name}))
	h.Set("Content-Length", strconv.FormatInt(size, 10))
	if note := reply.File.Note; note != "" {
		// The page shows it beside the download: a file cut short says so.
		h.Set(headerExportNote, url.PathEscape(note))
	}
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, f); err != nil && r.Context().Err() == nil {
		s.log.WarnContext(r.Context(), "CSV download cut", "thread", reply.ThreadID, "err", err)
	}
}

// actionStatus is the HTTP status of a press that ended in an explained
// failure.
func actionStatus(c bot.Cause) int {
	switch c {
	case bot.CauseNotFound:
		return http.StatusNotFound
	case bot.CauseForbidden:
		return http.StatusForbidden
	case bot.CauseUnsafe:
		return http.StatusUnprocessableEntity
	case bot.CauseTimeout:
		return http.StatusGatewayTimeout
	case bot.CauseUnavailable:
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
}

// friendly is the text users read for a failed run: the workflow's own
// explanation.
func friendly(r bot.Reply) string {
	if r.Text != "" {
		return r.Text
	}
	return textInternal
}
