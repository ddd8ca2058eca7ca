package fakeslack

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Status is one assistant.threads.setStatus call.
type Status struct {
	// Channel is the channel_id argument.
	Channel string
	// ThreadTS is the thread_ts argument.
	ThreadTS string
	// Status is the status text; "" clears the status.
	Status string
	// LoadingMessages are the rotating messages, nil when none were sent.
	LoadingMessages []string
}

// Statuses returns the assistant.threads.setStatus calls that succeeded, in
// order.
func (s *Server) Statuses() []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Status(nil), s.statuses...)
}

// Prompts is one assistant.threads.setSuggestedPrompts call.
type Prompts struct {
	Channel, ThreadTS, Title string
	// Prompts are the prompts' titles and messages.
	Prompts []Prompt
}

// Prompt is one suggested prompt.
type Prompt struct {
	Title   string `json:"title"`
	Message string `json:"message"`
}

// Title is one assistant.threads.setTitle call.
type Title struct {
	Channel, ThreadTS, Title string
}

// SuggestedPrompts returns the assistant.threads.setSuggestedPrompts calls
// that succeeded, in order.
func (s *Server) SuggestedPrompts() []Prompts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Prompts(nil), s.prompts...)
}

// Titles returns the assistant.threads.setTitle calls that succeeded, in
// order.
func (s *Server) Titles() []Title {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Title(nil), s.titles...)
}

// Experience is the messaging experience the app's manifest chose.
type Experience int

const (
	// AssistantView is the legacy experience (features.assistant_view):
	// each conversation is an assistant thread, opened with
	// assistant_thread_started, and suggested prompts go to that thread.
	AssistantView Experience = iota
	// AgentView is the Agent messaging experience (features.agent_view):
	// conversations happen in the Messages tab, opened with app_home_opened
	// (tab "messages"), and suggested prompts go to the conversation
	// without a thread_ts; a call with one silently does nothing.
	AgentView
)

// SetExperience sets the messaging experience of the installation
// (default AssistantView).
func (s *Server) SetExperience(e Experience) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.experience = e
}

// setSuggestedPrompts serves assistant.threads.setSuggestedPrompts: 1 to 4
// prompts (Slack's limit), each with a title and a message. thread_ts is
// optional; under AgentView a call with one answers ok and shows nothing,
// as Slack documents, so it is not recorded.
func (s *Server) setSuggestedPrompts(args url.Values) reply {
	channel, thread := args.Get("channel_id"), args.Get("thread_ts")
	var prompts []Prompt
	if channel == "" || json.Unmarshal([]byte(args.Get("prompts")), &prompts) != nil {
		return slackError("invalid_arguments")
	}
	if len(prompts) == 0 || len(prompts) > 4 {
		return invalid("invalid_arguments", []string{"[ERROR] must provide 1 to 4 prompts [json-pointer:/prompts]"})
	}
	for _, p := range prompts {
		if p.Title == "" || p.Message == "" {
			return invalid("invalid_arguments", []string{"[ERROR] a prompt needs a title and a message [json-pointer:/prompts]"})
		}
	}
	if s.experience == AgentView && thread != "" {
		return ok(nil)
	}
	s.prompts = append(s.prompts, Prompts{Channel: channel, ThreadTS: thread, Title: args.Get("title"), Prompts: prompts})
	return ok(nil)
}

// setTitle serves assistant.threads.setTitle.
func (s *Server) setTitle(args url.Values) reply {
	channel, thread, title := args.Get("channel_id"), args.Get("thread_ts"), args.Get("title")
	if channel == "" || thread == "" || title == "" {
		return slackError("invalid_arguments")
	}
	s.titles = append(s.titles, Title{Channel: channel, ThreadTS: thread, Title: title})
	return ok(nil)
}

// SetUserTimeZone gives user the time zone users.info reports (an IANA
// name); users without one have none.
func (s *Server) SetUserTimeZone(user, tz string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timeZones == nil {
		s.timeZones = map[string]string{}
	}
	s.timeZones[user] = tz
}

// usersInfo serves users.info: every user exists, with the address
// SetUserEmail gave them or <id in lower case>@example.test, the time
// zone SetUserTimeZone gave them, if any, and deactivated once
// SetUserDeactivated was called for them.
func (s *Server) usersInfo(args url.Values) reply {
	id := args.Get("user")
	if id == "" {
		return slackError("user_not_found")
	}
	email, set := s.emails[id]
	if !set {
		email = strings.ToLower(id) + "@example.test"
	}
	user := map[string]any{
		"id": id, "team_id": TeamID, "name": strings.ToLower(id),
		"profile": map[string]any{"email": email, "real_name": id},
	}
	if s.deleted[id] {
		user["deleted"] = true // deactivated
	}
	if tz, set := s.timeZones[id]; set {
		// Slack gives the IANA name and the offset now, in seconds.
		user["tz"] = tz
		if loc, err := time.LoadLocation(tz); err == nil {
			_, offset := time.Now().In(loc).Zone()
			user["tz_offset"] = offset
		}
	}
	return ok(map[string]any{"user": user})
}

// userGroupMembers serves usergroups.users.list (scope usergroups:read)
// for the groups SetUserGroup made.
func (s *Server) userGroupMembers(args url.Values) reply {
	if !slices.Contains(s.scopesLocked(), "usergroups:read") {
		r := slackError("missing_scope")
		r.body["needed"] = "usergroups:read"
		return r
	}
	users, found := s.userGroups[args.Get("usergroup")]
	if !found {
		return slackError("no_such_subteam")
	}
	return ok(map[string]any{"users": users})
}

// SetUserGroup makes the Slack user group id with members.
func (s *Server) SetUserGroup(id string, members ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.userGroups[id] = append([]string{}, members...)
}

// SetScopes sets the scopes the bot token has, as X-OAuth-Scopes lists
// them (default Scopes).
func (s *Server) SetScopes(scopes ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scopes = append([]string{}, scopes...)
}

// SetUserEmail sets the address users.info gives user ("" for none, as
// for a bot or a guest whose address is hidden).
func (s *Server) SetUserEmail(user, email string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emails[user] = email
}

// SetUserDeactivated makes users.info say user is deactivated ("deleted":
// true), as Slack does for an account an admin deactivated.
func (s *Server) SetUserDeactivated(user string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.deleted == nil {
		s.deleted = map[string]bool{}
	}
	s.deleted[user] = true
}

// authTest serves auth.test.
func (s *Server) authTest(url.Values) reply {
	return ok(map[string]any{
		"url":     "https://fake.slack.com/",
		"team":    "Fake",
		"user":    "analyticsbot",
		"team_id": TeamID,
		"user_id": BotUserID,
		"bot_id":  BotID,
	})
}

// setStatus serves assistant.threads.setStatus. loading_messages may be a
// JSON array, as Slack documents it, or comma-separated, as slack-go sends it.
func (s *Server) setStatus(args url.Values) reply {
	channel, thread := args.Get("channel_id"), args.Get("thread_ts")
	if channel == "" || thread == "" {
		return slackError("invalid_arguments")
	}
	if _, present := args["status"]; !present {
		return slackError("invalid_arguments")
	}
	var loading []string
	if raw := args.Get("loading_messages"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &loading); err != nil {
			loading = strings.Split(raw, ",")
		}
	}
	s.statuses = append(s.statuses, Status{Channel: channel, ThreadTS: thread, Status: args.Get("status"), LoadingMessages: loading})
	return ok(nil)
}

// connectionsOpen serves apps.connections.open with a WebSocket URL on this
// server.
func (s *Server) connectionsOpen(url.Values) reply {
	ws := "ws" + strings.TrimPrefix(s.base, "http")
	return ok(map[string]any{"url": fmt.Sprintf("%s/socket?ticket=fake-%d&app_id=%s", ws, s.nextID(), AppID)})
}
