package web

import (
	"errors"
	"net/http"
	"time"

	"github.com/analyticsbot/analyticsbot/bot"
)

// maxThreadTurns bounds the turns GET /api/threads/{id} returns.
const maxThreadTurns = 100

type threadResponse struct {
	ThreadID string     `json:"thread_id"`
	Turns    []turnJSON `json:"turns"`
}

type turnJSON struct {
	User   string `json:"user"`
	Bot    string `json:"bot"`
	Intent string `json:"intent"`
	// SQL is the query the turn ran, in its backend's language.
	SQL     string `json:"sql"`
	Backend string `json:"backend,omitempty"`
	// QueryID is what the answer's buttons carry; empty without a query.
	QueryID string `json:"query_id"`
	// Reply is the whole reply as it was shown (table, chart,
	// assumptions, buttons); for a turn saved before replies were kept,
	// Bot's text.
	Reply     *replyView `json:"reply"`
	CreatedAt time.Time  `json:"created_at"`
}

// serveThread returns a thread's saved turns, oldest first, so a reloaded
// page can show the conversation. Only the identity the thread was issued
// to reads it: an id that is not a web thread's, one the server never
// issued and another identity's thread are all answered alike, 404.
func (s *server) serveThread(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !threadIDPattern.MatchString(id) {
		writeNoThread(w)
		return
	}
	turns, err := s.bot.Thread(r.Context(), bot.Message{ThreadID: id, UserID: userOf(r), ChannelID: webChannel}, maxThreadTurns)
	if errors.Is(err, bot.ErrNoThread) {
		writeNoThread(w)
		return
	}
	if err != nil {
		s.log.ErrorContext(r.Context(), "load thread", "thread", id, "err", err)
		writeError(w, http.StatusServiceUnavailable, "The conversation could not be loaded right now. Please try again in a moment.")
		return
	}
	out := threadResponse{ThreadID: id, Turns: make([]turnJSON, len(turns))}
	for i, t := range turns {
		out.Turns[i] = turnJSON{
			User: t.User, Bot: t.Text, Intent: t.Intent, SQL: t.Query, Backend: t.Backend,
			QueryID: t.QueryID, CreatedAt: t.CreatedAt, Reply: storedView(t.Reply, t.Text),
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// maxExamples is how many questions the welcome offers.
const maxExamples = 4

type examplesResponse struct {
	Domain   string   `json:"domain"`
	Examples []string `json:"examples"`
	// Demo says a scripted model answers (no model is connected): the
	// page says so.
	Demo bool `json:"demo"`
}

// serveExamples returns what the data is about and questions to try: the
// ones Slack's Messages tab offers, for the web user asking (the demo's,
// or the verified examples whose queries run on this data and that the
// user's policy permits).
func (s *server) serveExamples(w http.ResponseWriter, r *http.Request) {
	examples := s.bot.SuggestedQuestions(r.Context(), bot.Message{UserID: userOf(r), ChannelID: webChannel}, maxExamples)
	if examples == nil {
		examples = []string{}
	}
	writeJSON(w, http.StatusOK, examplesResponse{Domain: s.bot.Config().Domain, Examples: examples, Demo: s.bot.Demo})
}

// buttonJSON is a button under answers, as GET /api/buttons lists it.
type buttonJSON struct {
	// Action is the action id POST /api/actions takes.
	Action string `json:"action"`
	Label  string `json:"label"`
	// Download says the press answers with a file.
	Download bool `json:"download"`
}

// serveButtons lists the buttons under answers, so the page never keeps a
// copy of their action ids.
func (s *server) serveButtons(w http.ResponseWriter, _ *http.Request) {
	var out struct {
		Buttons []buttonJSON `json:"buttons"`
	}
	for _, b := range s.bot.Buttons() {
		out.Buttons = append(out.Buttons, buttonJSON{Action: b.Action, Label: b.Label, Download: b.Download})
	}
	writeJSON(w, http.StatusOK, out)
}
