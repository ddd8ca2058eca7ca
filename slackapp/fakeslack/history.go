package fakeslack

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// dmChannel is the id of the app's direct message with user, as Slack
// names it ("D…"): chat.postMessage to a user id posts there, and
// conversations.open returns it.
func dmChannel(user string) string { return "D" + user }

// isUserID reports an id Slack reads as a user's, not a conversation's.
func isUserID(id string) bool { return strings.HasPrefix(id, "U") || strings.HasPrefix(id, "W") }

// metadataOf checks chat.postMessage's metadata argument as Slack does: a
// JSON object with an event_type and an event_payload object.
func metadataOf(raw string) (json.RawMessage, bool) {
	if strings.TrimSpace(raw) == "" {
		return nil, true
	}
	var md struct {
		EventType    string         `json:"event_type"`
		EventPayload map[string]any `json:"event_payload"`
	}
	if json.Unmarshal([]byte(raw), &md) != nil || md.EventType == "" || md.EventPayload == nil {
		return nil, false
	}
	return json.RawMessage(raw), true
}

// conversationsOpen serves conversations.open for one user (scope
// im:write): the app's DM with them.
func (s *Server) conversationsOpen(args url.Values) reply {
	if !slices.Contains(s.scopesLocked(), "im:write") {
		r := slackError("missing_scope")
		r.body["needed"] = "im:write"
		return r
	}
	users := strings.Split(args.Get("users"), ",")
	if len(users) != 1 || !isUserID(users[0]) {
		return slackError("user_not_found")
	}
	return ok(map[string]any{"channel": map[string]any{"id": dmChannel(users[0])}})
}

// conversationsHistory serves conversations.history: the channel's
// top-level messages newer than oldest, newest first, with their metadata
// when include_all_metadata is set.
func (s *Server) conversationsHistory(args url.Values) reply {
	channel := args.Get("channel")
	if rep, bad := s.readable(channel); bad {
		return rep
	}
	var out []map[string]any
	for _, m := range slices.Backward(s.messages) {
		if m.Channel == channel && (m.ThreadTS == "" || m.ThreadTS == m.TS) && after(m.TS, args.Get("oldest")) && visible(m) {
			out = append(out, historyObject(m, args.Get("include_all_metadata") == "1"))
		}
	}
	return ok(map[string]any{"messages": out, "has_more": false})
}

// conversationsReplies serves conversations.replies: the thread of ts,
// its parent first, then replies newer than oldest, oldest first.
func (s *Server) conversationsReplies(args url.Values) reply {
	channel, root := args.Get("channel"), args.Get("ts")
	if rep, bad := s.readable(channel); bad {
		return rep
	}
	if root == "" {
		return slackError("thread_not_found")
	}
	out := []map[string]any{}
	for _, m := range s.messages {
		if m.Channel != channel || !visible(m) {
			continue
		}
		if m.TS == root || m.ThreadTS == root && after(m.TS, args.Get("oldest")) {
			out = append(out, historyObject(m, args.Get("include_all_metadata") == "1"))
		}
	}
	return ok(map[string]any{"messages": out, "has_more": false})
}

// scopesLocked are the bot token's scopes. Callers hold s.mu.
func (s *Server) scopesLocked() []string {
	if s.scopes != nil {
		return s.scopes
	}
	return Scopes
}

// SetMembers makes users the members of channel for conversations.members;
// a channel never set has none.
func (s *Server) SetMembers(channel string, users ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.members == nil {
		s.members = map[string][]string{}
	}
	s.members[channel] = append([]string{}, users...)
}

// Join adds users to the members of channel, keeping those it has.
func (s *Server) Join(channel string, users ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.members == nil {
		s.members = map[string][]string{}
	}
	for _, u := range users {
		if !slices.Contains(s.members[channel], u) {
			s.members[channel] = append(s.members[channel], u)
		}
	}
}

// conversationsMembers serves conversations.members (scopes channels:read
// or groups:read), one page: the members SetMembers gave the channel.
func (s *Server) conversationsMembers(args url.Values) reply {
	channel := args.Get("channel")
	if channel == "" {
		return slackError("channel_not_found")
	}
	if !slices.Contains(s.scopesLocked(), "channels:read") && !slices.Contains(s.scopesLocked(), "groups:read") {
		r := slackError("missing_scope")
		r.body["needed"] = "channels:read,groups:read"
		return r
	}
	members := s.members[channel]
	if members == nil {
		members = []string{}
	}
	return ok(map[string]any{"members": members, "response_metadata": map[string]any{"next_cursor": ""}})
}

// readable refuses history of a channel the bot is not in.
func (s *Server) readable(channel string) (reply, bool) {
	switch {
	case channel == "":
		return slackError("channel_not_found"), true
	case s.notInChannel[channel]:
		return slackError("not_in_channel"), true
	}
	return reply{}, false
}

func visible(m Message) bool { return !m.Ephemeral && !m.Deleted }

// after compares Slack timestamps ("1700000000.000100"), which have the
// same number of digits here.
func after(ts, oldest string) bool { return oldest == "" || ts > oldest }

func historyObject(m Message, metadata bool) map[string]any {
	obj := messageObject(m)
	obj["ts"] = m.TS
	if m.ThreadTS != "" {
		obj["thread_ts"] = m.ThreadTS
	}
	if metadata && m.Metadata != nil {
		obj["metadata"] = m.Metadata
	}
	return obj
}
