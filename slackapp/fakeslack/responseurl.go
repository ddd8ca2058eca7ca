package fakeslack

import (
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// responseTarget is what a response URL answers into: the conversation of
// the command or action that carried it.
type responseTarget struct {
	channel, user string
	messageTS     string // the message whose button was clicked; "" for commands
	threadTS      string
}

// ResponseURL returns a new response URL on this server that knows no
// channel or user; replies posted to it are still recorded. BlockAction and
// SlashCommand on the Server make response URLs that know both.
func (s *Server) ResponseURL() string {
	return s.newResponseURL(responseTarget{})
}

func (s *Server) newResponseURL(target responseTarget) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := strconv.Itoa(s.nextID())
	s.responses[id] = target
	return s.base + "/response/" + id
}

// serveResponseURL answers POST /response/<id> the way Slack's response
// URLs do: replace_original and delete_original act on the clicked message,
// response_type "in_channel" posts a message, anything else posts an
// ephemeral message for the user. A slash command's response URL has no
// clicked message: replace_original there posts a new message, and the
// command's acknowledgement stays, as Slack documents replace_original for
// responses to a button press only. Success is {"ok":true}; errors are
// webhook-style (see webhookStyle). Each post is recorded as a
// "response_url" Call.
func (s *Server) serveResponseURL(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	body, err := io.ReadAll(r.Body)
	var args url.Values
	if err == nil {
		args, err = jsonArgs(body)
	}
	if args == nil {
		args = url.Values{}
	}

	s.mu.Lock()
	var rep reply
	target, known := s.responses[r.PathValue("id")]
	switch injected, isInjected := s.takeFault("response_url", nil); {
	case isInjected:
		rep = injected
	case !known:
		rep = slackError("expired_url")
	case err != nil:
		rep = invalid("invalid_payload", []string{err.Error()})
	default:
		rep = s.respond(target, args)
	}
	rep = webhookStyle(rep)
	s.record(Call{Method: "response_url", Args: args, At: at}, rep)
	s.mu.Unlock()

	writeReply(w, rep)
}

// webhookStyle turns a Slack error into the way response URLs report it,
// like incoming webhooks: a 4xx status with the bare error code as a text
// body. slack-go's PostWebhook only looks at the status.
func webhookStyle(rep reply) reply {
	if rep.err == "" || rep.status != http.StatusOK {
		return rep
	}
	rep.status, rep.text = http.StatusBadRequest, rep.err
	if rep.err == "expired_url" {
		rep.status = http.StatusNotFound
	}
	return rep
}

// respond applies a response URL post. Callers hold s.mu.
func (s *Server) respond(target responseTarget, args url.Values) reply {
	original := -1
	if target.messageTS != "" {
		original = s.findMessage(target.channel, target.messageTS)
	}
	if isTrue(args.Get("delete_original")) {
		if original < 0 {
			return slackError("message_not_found")
		}
		s.changeMessage(original, func(m *Message) { m.Deleted = true })
		return ok(nil)
	}
	text, blocks, rep, bad := content(args)
	if bad {
		return rep
	}
	if text == "" && blocks == nil {
		return slackError("no_text")
	}
	if isTrue(args.Get("replace_original")) && original >= 0 {
		s.changeMessage(original, func(m *Message) { m.Text, m.Blocks = text, blocks })
		return ok(nil)
	}
	thread := args.Get("thread_ts")
	if thread == "" {
		thread = target.threadTS
	}
	m := Message{Channel: target.channel, ThreadTS: thread, Text: text, Blocks: blocks}
	if args.Get("response_type") != "in_channel" {
		m.Ephemeral, m.User = true, target.user
	}
	s.addMessage(m)
	return ok(nil)
}

func isTrue(s string) bool {
	b, err := strconv.ParseBool(strings.TrimSpace(s))
	return err == nil && b
}
