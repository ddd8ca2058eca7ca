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
	mode := args.Get("task_display_mode")
	switch mode {
	case "":
		mode = "timeline"
	case "timeline", "plan":
	default:
		return invalid("invalid_arguments", []string{fmt.Sprintf("task_display_mode %q is not timeline or plan", mode)})
	}
	add, rep, bad := streamArgs(args)
	if bad {
		return rep
	}
	m := Message{Channel: channel, ThreadTS: args.Get("thread_ts"), Streaming: true, TaskDisplayMode: mode}
	add.apply(&m)
	m = s.addMessage(m)
	return ok(map[string]any{"channel": channel, "ts": m.TS})
}

// appendStream serves chat.appendStream.
func (s *Server) appendStream(args url.Values) reply {
	i, rep, bad := s.streaming(args)
	if bad {
		return rep
	}
	add, rep, bad := streamArgs(args)
	if bad {
		return rep
	}
	if add.empty() {
		return invalid("invalid_arguments", []string{"markdown_text or chunks is required"})
	}
	m := s.changeMessage(i, func(m *Message) { add.apply(m); m.Appends++ })
	return ok(map[string]any{"channel": m.Channel, "ts": m.TS})
}

// stopStream serves chat.stopStream: the last text, and blocks under it,
// may come with it.
func (s *Server) stopStream(args url.Values) reply {
	i, rep, bad := s.streaming(args)
	if bad {
		return rep
	}
	add, rep, bad := streamArgs(args)
	if bad {
		return rep
	}
	_, blocks, rep, bad := content(url.Values{"blocks": args["blocks"]})
	if bad {
		return rep
	}
	m := s.changeMessage(i, func(m *Message) {
		add.apply(m)
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

// streamArgs reads what a streaming call adds: its markdown_text, then its
// chunks.
func streamArgs(args url.Values) (streamed, reply, bool) {
	text := args.Get("markdown_text")
	if n := runeLen(text); n > maxMarkdownChunk {
		return streamed{}, invalid("msg_too_long", []string{fmt.Sprintf("markdown_text is %d characters, more than %d", n, maxMarkdownChunk)}), true
	}
	add, rep, bad := readChunks(args)
	if bad {
		return streamed{}, rep, true
	}
	add.text = text + add.text
	return add, reply{}, false
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
