package slackapp

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/slack-go/slack"

	reply "github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/llm"
)

// streamer streams the answer's text into the thread while the model
// writes it (chat.startStream, chat.appendStream, chat.stopStream), then
// turns the streamed message into the whole answer with chat.update. Where
// the workspace cannot stream, the first failed start falls back to the
// progress message the answer replaces, as before; a start Slack refuses
// as unavailable to the app is not tried again.
type streamer struct {
	a *App
	q question
	// ctx is the run's: a stream call never outlives it.
	ctx context.Context

	mu      sync.Mutex
	preview reply.Preview
	md      markdown
	pending strings.Builder
	// ts is the streamed message, "" until it started.
	ts string
	// off: no more streaming (it failed, or finished).
	off  bool
	last time.Time
}

// newStreamer returns the answer's streamer, or nil when streaming is off,
// and in a channel with a ceiling, where the text may be for the asker
// alone (its answer goes privately).
func (a *App) newStreamer(ctx context.Context, q question) *streamer {
	if !a.cfg.Streaming || a.noStream.Load() || a.bot.HasCeiling(q.channel) {
		return nil
	}
	return &streamer{a: a, q: q, ctx: ctx}
}

// chunk is the llm.StreamFunc: the interpreter's text is streamed, at most
// one call per Config.ProgressInterval after the first.
func (st *streamer) chunk(step llm.Step, chunk string) {
	if step != llm.StepInterpret {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.off {
		return
	}
	st.pending.WriteString(st.md.write(st.preview.Feed(chunk)))
	if strings.TrimSpace(st.pending.String()) == "" {
		return
	}
	if st.ts == "" {
		st.start()
		return
	}
	if time.Since(st.last) >= st.a.cfg.ProgressInterval {
		st.flush()
	}
}

func (st *streamer) start() {
	opts := []slack.MsgOption{slack.MsgOptionTS(st.q.threadTS), slack.MsgOptionMarkdownText(st.pending.String())}
	if !strings.HasPrefix(st.q.channel, "D") {
		// Slack streams to a channel for one reader.
		opts = append(opts, slack.MsgOptionRecipientUserID(st.q.user), slack.MsgOptionRecipientTeamID(st.a.teamID))
	}
	_, ts, err := st.a.api.StartStreamContext(st.ctx, st.q.channel, opts...)
	if err != nil {
		st.off = true
		if streamingUnavailable(err) {
			st.a.noStream.Store(true)
		}
		st.a.log.DebugContext(st.ctx, "streaming unavailable: the answer replaces the progress message", "channel", st.q.channel, "err", err)
		return
	}
	st.ts, st.last = ts, time.Now()
	st.pending.Reset()
}

// flush appends the text not yet sent. A failed append ends the
// streaming; the whole answer still replaces the message.
func (st *streamer) flush() {
	text := st.pending.String()
	if text == "" {
		return
	}
	st.pending.Reset()
	st.last = time.Now()
	if _, _, err := st.a.api.AppendStreamContext(st.ctx, st.q.channel, st.ts, slack.MsgOptionMarkdownText(text)); err != nil {
		st.off = true
		st.a.log.DebugContext(st.ctx, "stream append failed", "channel", st.q.channel, "err", err)
	}
}

// finish makes the streamed message the answer m: the rest of the text,
// the end of the stream, then (after done, which removes the progress
// message) the whole answer in its place. It reports whether m was
// delivered so; when not, the caller delivers it as without streaming (a
// streamed message that could not become the answer is deleted, so the
// thread never shows half an answer).
func (st *streamer) finish(ctx context.Context, m blockkit.Message, done func()) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	started := st.ts != "" && !st.off
	st.off = true
	if st.ts == "" {
		return false
	}
	if started {
		st.pending.WriteString(st.md.flush())
		st.flush()
	}
	if _, _, err := st.a.api.StopStreamContext(ctx, st.q.channel, st.ts); err != nil {
		st.a.log.DebugContext(ctx, "stream stop failed", "channel", st.q.channel, "err", err)
	}
	done()
	if err := st.a.update(ctx, st.q.channel, st.ts, m); err != nil {
		st.a.log.WarnContext(ctx, "streamed message not turned into the answer", "channel", st.q.channel, "err", err)
		st.a.deleteMessage(ctx, st.q.channel, st.ts)
		return false
	}
	return true
}

// deleteMessage deletes one of the bot's messages; a failure is logged.
func (a *App) deleteMessage(ctx context.Context, channel, ts string) {
	if ts == "" {
		return
	}
	if _, _, err := a.api.DeleteMessageContext(ctx, channel, ts); err != nil {
		a.log.DebugContext(ctx, "message not deleted", "channel", channel, "ts", ts, "err", err)
	}
}

// streamingUnavailable reports errors meaning this app cannot stream at
// all, as opposed to not this once.
func streamingUnavailable(err error) bool {
	var se slack.SlackErrorResponse
	if !errors.As(err, &se) {
		return false
	}
	switch se.Err {
	case "unknown_method", "method_deprecated", "missing_scope", "not_allowed_token_type", "feature_not_enabled", "no_permission", "not_allowed":
		return true
	}
	return false
}

// markdown turns the model's Slack-style emphasis into the Markdown the
// streaming methods take: a lone *bold* becomes **bold**, and Slack's
// entities are decoded. Stars at the end of a chunk wait for the next, so
// a "**" split across chunks stays whole.
type markdown struct{ held string }

func (m *markdown) write(s string) string {
	s = m.held + s
	m.held = ""
	if trimmed := strings.TrimRight(s, "*"); len(trimmed) < len(s) {
		m.held, s = s[len(trimmed):], trimmed
	}
	return toMarkdown(s)
}

func (m *markdown) flush() string {
	s := toMarkdown(m.held)
	m.held = ""
	return s
}

var slackEntities = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">")

// toMarkdown doubles each lone star that hugs a word.
func toMarkdown(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '*' {
			b.WriteByte(s[i])
			continue
		}
		j := i
		for j < len(s) && s[j] == '*' {
			j++
		}
		run := s[i:j]
		hugs := (i > 0 && s[i-1] != ' ' && s[i-1] != '\n') || (j < len(s) && s[j] != ' ' && s[j] != '\n')
		if len(run) == 1 && hugs {
			run = "**"
		}
		b.WriteString(run)
		i = j - 1
	}
	return slackEntities.Replace(b.String())
}
