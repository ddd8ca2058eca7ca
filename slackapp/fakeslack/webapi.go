package fakeslack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// reply is what a handler answers: a JSON body, an HTML one for injected
// server failures, or a text one for response URL errors.
type reply struct {
	status     int
	body       map[string]any
	html       string // an HTML body instead of JSON
	text       string // a text/plain body instead of JSON
	retryAfter int
	err        string // Slack error code, "" when ok
	detail     string
}

func ok(fields map[string]any) reply {
	body := map[string]any{"ok": true}
	for k, v := range fields {
		body[k] = v
	}
	return reply{status: http.StatusOK, body: body}
}

func slackError(code string) reply {
	return reply{status: http.StatusOK, err: code, body: map[string]any{"ok": false, "error": code}}
}

// invalid is slackError with Slack's explanation fields, as Slack sends for
// invalid_blocks: "errors" and response_metadata.messages.
func invalid(code string, details []string) reply {
	r := slackError(code)
	r.detail = strings.Join(details, "; ")
	msgs := make([]string, len(details))
	for i, d := range details {
		msgs[i] = "[ERROR] " + d
	}
	r.body["errors"] = details
	r.body["response_metadata"] = map[string]any{"messages": msgs}
	return r
}

// tokenKind says which token a method takes.
type tokenKind int

const (
	botToken tokenKind = iota
	appToken
	anyToken
)

type method struct {
	token  tokenKind
	handle func(s *Server, args url.Values) reply // called with s.mu held
}

var methods = map[string]method{
	"auth.test":                             {anyToken, (*Server).authTest},
	"chat.postMessage":                      {botToken, (*Server).postMessage},
	"conversations.open":                    {botToken, (*Server).conversationsOpen},
	"conversations.members":                 {botToken, (*Server).conversationsMembers},
	"conversations.history":                 {botToken, (*Server).conversationsHistory},
	"conversations.replies":                 {botToken, (*Server).conversationsReplies},
	"chat.update":                           {botToken, (*Server).updateMessage},
	"chat.postEphemeral":                    {botToken, (*Server).postEphemeral},
	"chat.delete":                           {botToken, (*Server).deleteMessage},
	"chat.startStream":                      {botToken, (*Server).startStream},
	"chat.appendStream":                     {botToken, (*Server).appendStream},
	"chat.stopStream":                       {botToken, (*Server).stopStream},
	"assistant.threads.setStatus":           {botToken, (*Server).setStatus},
	"assistant.threads.setSuggestedPrompts": {botToken, (*Server).setSuggestedPrompts},
	"assistant.threads.setTitle":            {botToken, (*Server).setTitle},
	"files.getUploadURLExternal":            {botToken, (*Server).getUploadURL},
	"files.completeUploadExternal":          {botToken, (*Server).completeUpload},
	"apps.connections.open":                 {appToken, (*Server).connectionsOpen},
	"users.info":                            {botToken, (*Server).usersInfo},
	"usergroups.users.list":                 {botToken, (*Server).userGroupMembers},
}

// serveAPI answers POST (or GET) /api/<method>.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/api/")
	args, token, err := parseRequest(r)
	at := time.Now()
	if !s.hold(r, name) {
		return // the caller is gone
	}

	s.mu.Lock()
	var rep reply
	switch {
	case err != nil:
		rep = invalid("invalid_form_data", []string{err.Error()})
	default:
		rep = s.answer(name, args, token)
	}
	s.record(Call{Method: name, Args: args, Token: token, At: at}, rep)
	scopes := Scopes
	if s.scopes != nil {
		scopes = s.scopes
	}
	s.mu.Unlock()

	if token == BotToken {
		w.Header().Set("X-OAuth-Scopes", strings.Join(scopes, ","))
	}
	writeReply(w, rep)
}

// answer runs injected faults, the token check and the method. Callers hold s.mu.
func (s *Server) answer(name string, args url.Values, token string) reply {
	if rep, injected := s.takeFault(name, args); injected {
		return rep
	}
	if rep, refused := s.refuseBlocks(name, args); refused {
		return rep
	}
	m, known := methods[name]
	if !known {
		return slackError("unknown_method")
	}
	if code := checkToken(m.token, token); code != "" {
		return slackError(code)
	}
	if rep, gone := s.goneChannel(args); gone {
		return rep
	}
	return m.handle(s, args)
}

func checkToken(kind tokenKind, token string) string {
	switch {
	case token == "":
		return "not_authed"
	case token != BotToken && token != AppToken:
		return "invalid_auth"
	case kind == botToken && token != BotToken, kind == appToken && token != AppToken:
		return "not_allowed_token_type"
	}
	return ""
}

// record appends a call with the reply's outcome. Callers hold s.mu.
func (s *Server) record(c Call, rep reply) {
	c.Status, c.Error, c.Detail = rep.status, rep.err, rep.detail
	s.calls = append(s.calls, c)
	s.notify()
}

// Scopes are the bot token's scopes the fake lists in X-OAuth-Scopes, as
// Slack does on every Web API answer: those of slack/manifest.yaml.
var Scopes = []string{"app_mentions:read", "assistant:write", "channels:history", "groups:history", "im:history",
	"mpim:history", "chat:write", "chat:write.public", "commands", "files:write", "users:read", "users:read.email",
	"usergroups:read", "channels:read", "groups:read"}

func writeReply(w http.ResponseWriter, rep reply) {
	if rep.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(rep.retryAfter))
	}
	if rep.html != "" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(rep.status)
		_, _ = io.WriteString(w, rep.html)
		return
	}
	if rep.text != "" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(rep.status)
		_, _ = io.WriteString(w, rep.text)
		return
	}
	writeJSON(w, rep.status, rep.body)
}

// parseRequest reads the arguments and token of a Web API request, whatever
// its encoding: query string, form, multipart form or JSON object.
func parseRequest(r *http.Request) (url.Values, string, error) {
	token := bearer(r)
	args := url.Values{}
	ctype, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ctype {
	case "application/json":
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return args, token, fmt.Errorf("read body: %w", err)
		}
		if args, err = jsonArgs(body); err != nil {
			return args, token, err
		}
		for k, v := range r.URL.Query() {
			args[k] = append(args[k], v...)
		}
	case "multipart/form-data":
		if err := r.ParseMultipartForm(32 << 20); err != nil {
			return args, token, fmt.Errorf("parse multipart form: %w", err)
		}
		args = cloneValues(r.Form)
	default:
		if err := r.ParseForm(); err != nil {
			return args, token, fmt.Errorf("parse form: %w", err)
		}
		args = cloneValues(r.Form)
	}
	if token == "" {
		token = args.Get("token")
	}
	args.Del("token")
	return args, token, nil
}

// bearer returns the token of an "Authorization: Bearer <token>" header.
// An empty token arrives as "Bearer", its trailing space trimmed on the way.
func bearer(r *http.Request) string {
	scheme, token, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// jsonArgs flattens a JSON object body into form-like values: strings as
// they are, anything else as its JSON text. An empty body has no arguments.
func jsonArgs(body []byte) (url.Values, error) {
	args := url.Values{}
	if len(bytes.TrimSpace(body)) == 0 {
		return args, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return args, fmt.Errorf("body is not a JSON object: %w", err)
	}
	for k, raw := range fields {
		if string(bytes.TrimSpace(raw)) == "null" {
			continue // an explicit null is the same as leaving the field out
		}
		var str string
		if err := json.Unmarshal(raw, &str); err == nil {
			args.Set(k, str)
			continue
		}
		args.Set(k, string(raw))
	}
	return args, nil
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}
