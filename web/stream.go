package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/analyticsbot/analyticsbot/bot"
)

// chatRequest is the body of POST /api/chat/stream, shaped like the chat
// APIs browsers' libraries speak. Only the last user message is read: the
// thread's history comes from Postgres, never from the client.
type chatRequest struct {
	ThreadID string        `json:"thread_id"`
	Messages []chatMessage `json:"messages"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// question returns the last user message, or a 400.
func (c chatRequest) question() (string, error) {
	if len(c.Messages) == 0 {
		return "", badRequest(`messages is empty: send [{"role": "user", "content": "your question"}]`)
	}
	for i := len(c.Messages) - 1; i >= 0; i-- {
		m := c.Messages[i]
		if m.Role != "user" {
			continue
		}
		if bot.Blank(m.Content) {
			return "", badRequest("the question is empty")
		}
		return m.Content, nil
	}
	return "", badRequest(`messages has no message with "role": "user"`)
}

// serveStream answers a question as a stream of server-sent events:
// progress while the workflow runs, the interpreter's text as the model
// writes it, then the whole reply. A client that goes away cancels the run.
func (s *server) serveStream(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if err := s.decodeBody(w, r, s.cfg.MaxBody, &req); err != nil {
		writeStatusError(w, err)
		return
	}
	question, err := req.question()
	if err != nil {
		writeStatusError(w, err)
		return
	}
	msg := bot.Message{ThreadID: req.ThreadID, UserID: userOf(r), ChannelID: webChannel, Text: question}
	if !s.thread(w, r, &msg) {
		return
	}
	thread := msg.ThreadID
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	// The stream starts as soon as the question has to wait, so the page
	// says it waits; a question refused at once gets a plain 503.
	var out *eventWriter
	stopWaitAlive := func() {}
	waiting := func(label string) func() {
		return func() {
			if out == nil {
				out = startEvents(w, cancel)
				// A wait may be long: proxies must not close the stream.
				stopWaitAlive = out.keepAlive(keepAliveInterval)
			}
			out.send(statusEvent{Type: "status", Node: "queue", Label: label})
		}
	}
	// The wait for the thread and the wait for a place together last at
	// most TURN_WAIT, as a question's wait does elsewhere.
	waitCtx, stopWait := context.WithTimeout(ctx, s.turns.MaxWait())
	leave, err := s.threads.enter(waitCtx, thread, s.turns, waiting("Waiting for the previous answer in this conversation…"))
	if err == nil {
		defer leave()
		var release func()
		if release, err = s.turns.Admit(waitCtx, waiting("Waiting for a free place: many questions are being answered…")); err == nil {
			defer release()
		}
	}
	stopWait()
	stopWaitAlive()
	switch {
	case err != nil && out == nil:
		w.Header().Set("Retry-After", "30")
		writeError(w, http.StatusServiceUnavailable, textBusy)
		return
	case err != nil:
		if ctx.Err() == nil {
			out.send(errorEvent{Type: "error", Message: textBusy})
		}
		out.close()
		return
	case out == nil:
		out = startEvents(w, cancel)
	}
	defer out.close()
	run := &chatRun{out: out}
	stopKeepAlive := out.keepAlive(keepAliveInterval)
	reply, err := s.cfg.ask(ctx, msg, bot.WithProgress(run), bot.WithText(run.Text))
	stopKeepAlive()
	defer reply.Close()
	if s.cfg.RunDone != nil {
		s.cfg.RunDone(thread, reply, err)
	}

	log := s.log.With("thread", thread)
	switch {
	case ctx.Err() != nil:
		// The client left (or stopped reading): nobody to tell.
		log.InfoContext(ctx, "answer stopped: the client went away", "cause", context.Cause(ctx), "path", reply.Path())
	case errors.Is(err, bot.ErrNoThread):
		// CheckThread let it through a moment ago: only a thread forgotten
		// since (retention) gets here.
		out.send(errorEvent{Type: "error", Message: textNoThread})
	case err != nil || reply.Answer == nil:
		if err == nil {
			err = errors.New("the workflow ended without a reply")
		}
		log.ErrorContext(ctx, "answer failed", "err", err, "path", reply.Path())
		out.send(errorEvent{Type: "error", Message: textInternal})
	default:
		out.send(run.end(reply))
	}
}

// textThreadDown is what a client reads when the bot's database cannot
// say whose a thread is, or record a new one.
const textThreadDown = "I can't open the conversation right now: my database is not answering. Please try again in a minute."

// thread sets m's thread for a question: a new one, issued to the asker,
// when the request names none; else the one named, which must be theirs.
// Otherwise it answers the request (400 for an id that is not a web
// thread's, 404 for one that is not the asker's, as for an unknown one)
// and returns false: nothing is saved and no model is called.
func (s *server) thread(w http.ResponseWriter, r *http.Request, m *bot.Message) bool {
	var err error
	if m.ThreadID == "" {
		*m, err = s.bot.StartThread(r.Context(), *m)
	} else if err = checkThreadID(m.ThreadID); err == nil {
		err = s.bot.CheckThread(r.Context(), *m)
	}
	var se *statusError
	switch {
	case err == nil:
		return true
	case errors.Is(err, bot.ErrNoThread):
		writeNoThread(w)
	case errors.As(err, &se):
		writeStatusError(w, err)
	default:
		s.log.ErrorContext(r.Context(), "thread not checked", "thread", m.ThreadID, "err", err)
		writeError(w, http.StatusServiceUnavailable, textThreadDown)
	}
	return false
}
