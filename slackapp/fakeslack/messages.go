package fakeslack

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// Message is a message the bot posted, in its current state.
type Message struct {
	// Channel is the channel id it was posted to.
	Channel string
	// TS is its timestamp, which is also its id within the channel.
	TS string
	// ThreadTS is the parent's timestamp for a reply, "" for a top-level message.
	ThreadTS string
	// Text is the top-level text.
	Text string
	// Blocks is the blocks JSON array as posted, nil when there are none.
	Blocks json.RawMessage
	// Updates counts the changes made to it by chat.update and by
	// replace_original or delete_original response URL replies.
	Updates int
	// Ephemeral is true for chat.postEphemeral and ephemeral response_url replies.
	Ephemeral bool
	// User is the recipient of an ephemeral message.
	User string
	// Deleted is true once chat.delete or a response_url reply deleted it.
	Deleted bool
	// Streaming is true from chat.startStream until chat.stopStream;
	// Appends counts the chat.appendStream calls, and Text holds the
	// markdown streamed so far.
	Streaming bool
	Appends   int
	// Tasks are the task cards streamed with task_update chunks, in the
	// order they first came; Plan is the last plan_update title, and
	// TaskDisplayMode the chat.startStream argument (timeline by default).
	Tasks           []Task
	Plan            string
	TaskDisplayMode string
	// Metadata is the message's metadata as posted (event_type and
	// event_payload), nil when none.
	Metadata json.RawMessage
}

// BlockTexts returns every text string in the blocks, in order: section
// text and fields, context elements, table raw_text cells, button texts,
// rich_text leaves and any other "text" field.
func (m Message) BlockTexts() []string { return blockTexts(m.Blocks) }

// Messages returns every message the bot posted, ephemeral ones included, in
// post order and in their current state.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// WaitMessage waits until a message satisfies pred and returns it. pred sees
// every state of every message: as posted and after each update, so a
// placeholder that has since been replaced is still found. It fails t after
// WaitTimeout, naming what.
func (s *Server) WaitMessage(t testing.TB, what string, pred func(Message) bool) Message {
	t.Helper()
	var found Message
	seen := 0
	s.waitFor(t, "message: "+what, func() bool {
		s.mu.Lock()
		fresh := append([]Message(nil), s.history[seen:]...)
		s.mu.Unlock()
		for _, m := range fresh {
			seen++
			if pred(m) {
				found = m
				return true
			}
		}
		return false
	}, s.messageSummary)
	return found
}

func (s *Server) messageSummary() string {
	msgs := s.Messages()
	lines := make([]string, len(msgs))
	for i, m := range msgs {
		text := m.Text
		if texts := m.BlockTexts(); len(texts) > 0 {
			text += " | blocks: " + strings.Join(texts, " / ")
		}
		if len(text) > 200 {
			text = text[:200] + "…"
		}
		lines[i] = fmt.Sprintf("%s %s thread=%q ephemeral=%v updates=%d: %q", m.Channel, m.TS, m.ThreadTS, m.Ephemeral, m.Updates, text)
	}
	return fmt.Sprintf("%s; %d messages so far:\n%s", s.callSummary(), len(msgs), strings.Join(lines, "\n"))
}

// addMessage stores a new message. Callers hold s.mu.
func (s *Server) addMessage(m Message) Message {
	m.TS = s.nextTS()
	s.messages = append(s.messages, m)
	s.history = append(s.history, m)
	return m
}

// findMessage returns the index of the non-ephemeral message at channel/ts,
// or -1. Callers hold s.mu.
func (s *Server) findMessage(channel, ts string) int {
	for i, m := range s.messages {
		if m.Channel == channel && m.TS == ts && !m.Ephemeral && !m.Deleted {
			return i
		}
	}
	return -1
}

// findEphemeral returns the index of the ephemeral message at channel/ts,
// or -1. Callers hold s.mu.
func (s *Server) findEphemeral(channel, ts string) int {
	for i, m := range s.messages {
		if m.Channel == channel && m.TS == ts && m.Ephemeral {
			return i
		}
	}
	return -1
}

// changeMessage applies change to message i and snapshots it. Callers hold s.mu.
func (s *Server) changeMessage(i int, change func(*Message)) Message {
	change(&s.messages[i])
	s.messages[i].Updates++
	s.history = append(s.history, s.messages[i])
	return s.messages[i]
}

// content reads and checks the text and blocks of a message. When they are
// not acceptable, bad is true and rep is the error to answer.
func content(args url.Values) (text string, blocks json.RawMessage, rep reply, bad bool) {
	text = args.Get("text")
	if n := runeLen(text); n > maxMessageText {
		r := invalid("msg_too_long", []string{fmt.Sprintf("text is %d characters, more than %d", n, maxMessageText)})
		return "", nil, r, true
	}
	if raw, present := args["blocks"]; present && len(raw) > 0 && strings.TrimSpace(raw[0]) != "" {
		if problems := validateBlocks([]byte(raw[0])); len(problems) > 0 {
			return "", nil, invalid("invalid_blocks", problems), true
		}
		if !isEmptyArray(raw[0]) {
			blocks = json.RawMessage(raw[0])
		}
	}
	return text, blocks, reply{}, false
}

func isEmptyArray(s string) bool {
	var arr []json.RawMessage
	return json.Unmarshal([]byte(s), &arr) == nil && len(arr) == 0
}

// messageObject is the "message" Slack returns for a bot's message.
func messageObject(m Message) map[string]any {
	obj := map[string]any{
		"type":   "message",
		"user":   BotUserID,
		"bot_id": BotID,
		"app_id": AppID,
		"team":   TeamID,
		"text":   m.Text,
		"ts":     m.TS,
		"bot_profile": map[string]any{
			"id": BotID, "app_id": AppID, "name": "analyticsbot", "team_id": TeamID, "deleted": false,
		},
	}
	if m.ThreadTS != "" {
		obj["thread_ts"] = m.ThreadTS
	}
	if m.Blocks != nil {
		obj["blocks"] = m.Blocks
	}
	return obj
}

// postMessage serves chat.postMessage.
func (s *Server) postMessage(args url.Values) reply {
	channel := args.Get("channel")
	if channel == "" {
		return slackError("channel_not_found")
	}
	if s.notInChannel[channel] {
		return slackError("not_in_channel")
	}
	text, blocks, rep, bad := content(args)
	if bad {
		return rep
	}
	if text == "" && blocks == nil && args.Get("attachments") == "" {
		return slackError("no_text")
	}
	md, valid := metadataOf(args.Get("metadata"))
	if !valid {
		return slackError("invalid_metadata_format")
	}
	if isUserID(channel) {
		channel = dmChannel(channel) // a post to a user goes to the app's DM with them
	}
	m := s.addMessage(Message{Channel: channel, ThreadTS: args.Get("thread_ts"), Text: text, Blocks: blocks, Metadata: md})
	return ok(map[string]any{"channel": channel, "ts": m.TS, "message": messageObject(m)})
}

// updateMessage serves chat.update: text and blocks that are sent replace
// the old ones; an empty blocks array removes them.
func (s *Server) updateMessage(args url.Values) reply {
	channel, ts := args.Get("channel"), args.Get("ts")
	if channel == "" {
		return slackError("channel_not_found")
	}
	i := s.findMessage(channel, ts)
	if i < 0 {
		return slackError("message_not_found")
	}
	if s.messages[i].Streaming {
		return slackError("cant_update_message")
	}
	text, blocks, rep, bad := content(args)
	if bad {
		return rep
	}
	_, hasText := args["text"]
	_, hasBlocks := args["blocks"]
	newText, newBlocks := s.messages[i].Text, s.messages[i].Blocks
	if hasText {
		newText = text
	}
	if hasBlocks {
		newBlocks = blocks
	}
	if newText == "" && newBlocks == nil && args.Get("attachments") == "" {
		return slackError("no_text")
	}
	m := s.changeMessage(i, func(m *Message) {
		m.Text, m.Blocks = newText, newBlocks
		if hasBlocks {
			// New blocks replace all a streamed message showed.
			m.Tasks, m.Plan = nil, ""
		}
	})
	return ok(map[string]any{"channel": channel, "ts": m.TS, "text": m.Text, "message": messageObject(m)})
}

// postEphemeral serves chat.postEphemeral.
func (s *Server) postEphemeral(args url.Values) reply {
	channel, user := args.Get("channel"), args.Get("user")
	if channel == "" {
		return slackError("channel_not_found")
	}
	if user == "" {
		return slackError("user_not_found")
	}
	if s.notInChannel[channel] {
		return slackError("not_in_channel")
	}
	if members, known := s.members[channel]; known && !slices.Contains(members, user) {
		// Slack shows an ephemeral message only to a member.
		return slackError("user_not_in_channel")
	}
	text, blocks, rep, bad := content(args)
	if bad {
		return rep
	}
	if text == "" && blocks == nil && args.Get("attachments") == "" {
		return slackError("no_text")
	}
	m := s.addMessage(Message{Channel: channel, ThreadTS: args.Get("thread_ts"), Text: text, Blocks: blocks, Ephemeral: true, User: user})
	return ok(map[string]any{"message_ts": m.TS})
}
