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
	"github.com/analyticsbot/analyticsbot/bot"
)

// streamer is the answer's streamed message (chat.startStream,
// chat.appendStream, chat.stopStream). It starts as soon as the question
// is taken, with a plan of task cards that follow the workflow ("Finding
// the tables", "Writing the query", "Running it", "Explaining"), then
// streams the answer's text under them while the model writes it, and
// finally becomes the whole answer with chat.update. Where the workspace
// cannot stream, the start fails and the answer shows progress as before
// (the thread status, or a progress message the answer replaces); a start
// Slack refuses as unavailable to the app is not tried again.
type streamer struct {
	a *App
	q question

	// mu orders the stream's calls and guards what they send.
	mu sync.Mutex
	// ctx is the run's (attach): a stream call never outlives it.
	ctx     context.Context
	preview reply.Preview
	md      markdown
	pending strings.Builder
	// ts is the streamed message, "" until it started.
	ts string
	// off: no more streaming (it failed, or finished).
	off  bool
	last time.Time

	// taskMu guards tasks, which the workflow's goroutine moves without
	// waiting for a call in flight.
	taskMu sync.Mutex
	tasks  *tasks
}

// newStreamer returns the answer's streamer, or nil when streaming is off,
// and in a channel with a ceiling, where the text may be for the asker
// alone (its answer goes privately).
func (a *App) newStreamer(q question) *streamer {
	if !a.cfg.Streaming || a.noStream.Load() || a.bot.HasCeiling(q.channel) {
		return nil
	}
	return &streamer{a: a, q: q, tasks: newTasks()}
}

// begin starts the streamed message with the plan's title and no card
// yet, and reports whether it did.
func (st *streamer) begin(ctx context.Context) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	opts := []slack.MsgOption{
		slack.MsgOptionTS(st.q.threadTS),
		slack.MsgOptionTaskDisplayMode(slack.TaskDisplayModePlan),
		slack.MsgOptionChunks(slack.NewPlanUpdateChunk(planTitle)),
	}
	if !strings.HasPrefix(st.q.channel, "D") {
		// Slack streams to a channel for one reader.
		opts = append(opts, slack.MsgOptionRecipientUserID(st.q.user), slack.MsgOptionRecipientTeamID(st.a.teamID))
	}
	_, ts, err := st.a.api.StartStreamContext(ctx, st.q.channel, opts...)
	if err != nil {
		st.off = true
		if streamingUnavailable(err) {
			st.a.noStream.Store(true)
		}
		st.a.log.DebugContext(ctx, "streaming unavailable: progress goes as before", "channel", st.q.channel, "err", err)
		return false
	}
	st.ts, st.last = ts, st.a.clock.Now()
	return true
}

// attach gives the streamer the run's context, for the calls to come.
func (st *streamer) attach(ctx context.Context) {
	st.mu.Lock()
	st.ctx = ctx
	st.mu.Unlock()
}

// phase moves the task cards to the phase of the step that starts;
// progress's loop sends them (showTasks). It never waits on Slack.
func (st *streamer) phase(p bot.Phase) bool {
	st.taskMu.Lock()
	defer st.taskMu.Unlock()
	return st.tasks.phase(p)
}

// showTasks sends the cards that changed.
func (st *streamer) showTasks(ctx context.Context) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.off || st.ts == "" {
		return
	}
	st.appendChunks(ctx, st.unsentTasks())
}

func (st *streamer) unsentTasks() []slack.StreamChunk {
	st.taskMu.Lock()
	defer st.taskMu.Unlock()
	return st.tasks.unsent()
}

// chunk streams the answer's text as the model writes it under the
// cards, at most one call per progress interval, which stretches under
// load as the progress updates' does: chat.appendStream is rate-limited
// per app too, and a burst of streamed answers must not spend it.
func (st *streamer) chunk(chunk string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.off || st.ts == "" {
		return
	}
	st.pending.WriteString(st.md.write(st.preview.Feed(chunk)))
	if strings.TrimSpace(st.pending.String()) == "" {
		return
	}
	if st.a.clock.Now().Sub(st.last) >= st.a.progressInterval() {
		st.flush(st.ctx)
	}
}

// flush appends the text not yet sent, after the cards that changed.
func (st *streamer) flush(ctx context.Context) {
	chunks := st.unsentTasks()
	if text := st.pending.String(); text != "" && ctx.Err() == nil {
		chunks = append(chunks, slack.NewMarkdownTextChunk(text))
		st.pending.Reset()
	}
	st.appendChunks(ctx, chunks)
}

// appendChunks sends chunks with chat.appendStream. A failed append ends
// the streaming (the whole answer still replaces the message), except when
// the run was canceled: then finish sends what did not go, with the
// notice.
func (st *streamer) appendChunks(ctx context.Context, chunks []slack.StreamChunk) {
	if len(chunks) == 0 || ctx.Err() != nil {
		return
	}
	st.last = st.a.clock.Now()
	if _, _, err := st.a.api.AppendStreamContext(ctx, st.q.channel, st.ts, slack.MsgOptionChunks(chunks...)); err != nil {
		if ctx.Err() == nil {
			st.off = true
		}
		st.a.log.DebugContext(ctx, "stream append failed", "channel", st.q.channel, "err", err)
		return
	}
	st.taskMu.Lock()
	st.tasks.sent(chunks)
	st.taskMu.Unlock()
}

// finish makes the streamed message the answer m: the rest of the text
// and the last state of the cards (the step in progress complete, or
// error when the answer failed) with the end of the stream, then (after
// done, which removes any progress message) the whole answer in its place.
// It reports whether m was delivered so; when not, the caller delivers it
// as without streaming (a streamed message that could not become the
// answer is deleted, so the thread never shows half an answer).
func (st *streamer) finish(ctx context.Context, m blockkit.Message, failed bool, done func()) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	started := st.ts != "" && !st.off
	st.off = true
	if st.ts == "" {
		return false
	}
	var chunks []slack.StreamChunk
	if started {
		st.taskMu.Lock()
		if failed {
			st.tasks.end(slack.TaskCardStatusError)
		} else {
			st.tasks.end(slack.TaskCardStatusComplete)
		}
		chunks = st.tasks.unsent()
		st.taskMu.Unlock()
		if text := st.pending.String() + st.md.flush(); text != "" {
			chunks = append(chunks, slack.NewMarkdownTextChunk(text))
		}
	}
	var opts []slack.MsgOption
	if len(chunks) > 0 {
		opts = append(opts, slack.MsgOptionChunks(chunks...))
	}
	if _, _, err := st.a.api.StopStreamContext(ctx, st.q.channel, st.ts, opts...); err != nil {
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
	// A star may pair with the next chunk's, a "]" begin a link with it.
	if trimmed := strings.TrimRight(s, "*]"); len(trimmed) < len(s) {
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

// toMarkdown doubles each lone star that hugs a word, and keeps the
// model's [label](address) from becoming a link while it streams: the
// model's words may come from the data, and the answer that replaces the
// stream shows where such a link goes (answer.Text.Exposed).
func toMarkdown(s string) string {
	s = strings.ReplaceAll(s, "](", "] (")
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
