package fakeslack

import (
	"fmt"
	"net/url"
	"strings"
)

// maxMarkdownChunk is Slack's limit on one markdown_text of the streaming
// methods.
const maxMarkdownChunk = 12000

// startStream serves chat.startStream: a message in a thread whose
// markdown text grows with chat.appendStream until chat.stopStream. Outside
// a direct message Slack needs the user and team the stream is for.
func (s *Server) startStream(args url.Values) reply {
	channel := args.Get("channel")
	if channel == "" {
		return slackError("channel_not_found")
	}
	if s.notInChannel[channel] {
		return slackError("not_in_channel")
	}
	if args.Get("thread_ts") == "" {
		return invalid("invalid_arguments", []string{"thread_ts is required: streamed messages are replies to a user's request"})
	}
	if !strings.HasPrefix(channel, "D") && (args.Get("recipient_user_id") == "" || args.Get("recipient_team_id") == "") {
		return invalid("invalid_arguments", []string{"recipient_user_id and recipient_team_id are required when streaming to a channel"})
	}
	text, rep, bad := markdownChunk(args)
	if bad {
		return rep
	}
	m := s.addMessage(Message{Channel: channel, ThreadTS: args.Get("thread_ts"), Text: text, Streaming: true})
	return ok(map[string]any{"channel": channel, "ts": m.TS})
}

// appendStream serves chat.appendStream.
func (s *Server) appendStream(args url.Values) reply {
	i, rep, bad := s.streaming(args)
	if bad {
		return rep
	}
	text, rep, bad := markdownChunk(args)
	if bad {
		return rep
	}
	if text == "" {
		return invalid("invalid_arguments", []string{"markdown_text is required"})
	}
	m := s.changeMessage(i, func(m *Message) { m.Text += text; m.Appends++ })
	return ok(map[string]any{"channel": m.Channel, "ts": m.TS})
}

// stopStream serves chat.stopStream: the last text, and blocks under it,
// may come with it.
func (s *Server) stopStream(args url.Values) reply {
	i, rep, bad := s.streaming(args)
	if bad {
		return rep
	}
	text, rep, bad := markdownChunk(args)
	if bad {
		return rep
	}
	_, blocks, rep, bad := content(url.Values{"blocks": args["blocks"]})
	if bad {
		return rep
	}
	m := s.changeMessage(i, func(m *Message) {
		m.Text += text
		m.Streaming = false
		if blocks != nil {
			m.Blocks = blocks
		}
	})
	return ok(map[string]any{"channel": m.Channel, "ts": m.TS, "message": messageObject(m)})
}

// streaming finds the streaming message of args' channel and ts.
func (s *Server) streaming(args url.Values) (int, reply, bool) {
	i := s.findMessage(args.Get("channel"), args.Get("ts"))
	switch {
	case i < 0:
		return 0, slackError("message_not_found"), true
	case !s.messages[i].Streaming:
		return 0, slackError("message_not_in_streaming_state"), true
	}
	return i, reply{}, false
}

func markdownChunk(args url.Values) (string, reply, bool) {
	text := args.Get("markdown_text")
	if n := runeLen(text); n > maxMarkdownChunk {
		return "", invalid("msg_too_long", []string{fmt.Sprintf("markdown_text is %d characters, more than %d", n, maxMarkdownChunk)}), true
	}
	return text, reply{}, false
}

// deleteMessage serves chat.delete of the bot's own messages.
func (s *Server) deleteMessage(args url.Values) reply {
	channel, ts := args.Get("channel"), args.Get("ts")
	i := s.findMessage(channel, ts)
	if i < 0 {
		return slackError("message_not_found")
	}
	s.changeMessage(i, func(m *Message) { m.Deleted = true })
	return ok(map[string]any{"channel": channel, "ts": ts})
}
