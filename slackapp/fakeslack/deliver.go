package fakeslack

import (
	"encoding/json"
	"fmt"
	"testing"
)

// BlockAction is the package-level BlockAction with a response URL on this
// server, and, when the fake holds the clicked message, that message's text
// and blocks and the clicked button's text and block_id. A click on an
// ephemeral message is as Slack sends it: the container says is_ephemeral
// and holds the message's thread, and there is no message object; the
// response URL answers in that thread.
func (s *Server) BlockAction(user, channel, messageTS, threadTS, actionID, value string) json.RawMessage {
	var msg *Message
	s.mu.Lock()
	if i := s.findMessage(channel, messageTS); i >= 0 {
		m := s.messages[i]
		msg = &m
	} else if i := s.findEphemeral(channel, messageTS); i >= 0 {
		m := s.messages[i]
		msg, threadTS = &m, m.ThreadTS
	}
	s.mu.Unlock()
	url := s.newResponseURL(responseTarget{channel: channel, user: user, messageTS: messageTS, threadTS: threadTS})
	return blockAction(url, msg, user, channel, messageTS, threadTS, actionID, value)
}

// SlashCommand is the package-level SlashCommand with a response URL on
// this server.
func (s *Server) SlashCommand(command, text, user, channel string) map[string]string {
	url := s.newResponseURL(responseTarget{channel: channel, user: user})
	return slashCommand(url, command, text, user, channel)
}

// SendEvent delivers event (e.g. AppMention(...)) in an events_api envelope
// with a fresh event id and returns the envelope id.
func (s *Server) SendEvent(t testing.TB, event any) string {
	t.Helper()
	s.mu.Lock()
	eventID := fmt.Sprintf("Ev%08d", s.nextID())
	s.mu.Unlock()
	return s.Send(t, Envelope{Type: "events_api", Payload: EventCallback(eventID, event)})
}

// SendBlockAction delivers s.BlockAction(...) in an interactive envelope and
// returns the envelope id.
func (s *Server) SendBlockAction(t testing.TB, user, channel, messageTS, threadTS, actionID, value string) string {
	t.Helper()
	return s.Send(t, Envelope{Type: "interactive", Payload: s.BlockAction(user, channel, messageTS, threadTS, actionID, value)})
}

// SendSlashCommand delivers s.SlashCommand(...) in a slash_commands envelope
// that accepts a response payload, as Slack sends it, and returns the
// envelope id.
func (s *Server) SendSlashCommand(t testing.TB, command, text, user, channel string) string {
	t.Helper()
	return s.Send(t, Envelope{
		Type:                   "slash_commands",
		Payload:                mustJSON(s.SlashCommand(command, text, user, channel)),
		AcceptsResponsePayload: true,
	})
}
