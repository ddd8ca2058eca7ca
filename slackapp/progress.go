package slackapp

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/bot"
)

// progress shows what the workflow is doing while a question is answered:
// task cards in the answer's streamed message where the stream is in use,
// else the thread status in direct messages where the app has that
// feature, otherwise a "working…" message in the thread that the answer
// replaces. It is the answer's bot.Progress; updates go out from a goroutine of
// their own, at most one per Config.ProgressInterval, so a slow Slack
// never slows the answer.
type progress struct {
	a *App
	q question
	// st is the answer's stream, whose task cards show progress; nil when
	// it is not in use.
	st *streamer
	// status: the thread status shows progress.
	status bool
	// workingTS is the "working…" message, when status is not used.
	workingTS string

	labels   chan string
	stopped  chan struct{}
	finished chan struct{}
	// watching: the update loop runs (from watch until stop).
	watching bool
}

// startProgress shows the first sign of work: the answer's streamed
// message when streaming is in use, else the thread status in a direct
// message when the app may set it, else a "working…" message.
// The first update is posted even when shutdown cancels ctx meanwhile: a
// progress message that exists must be known, so that the answer or the
// shutdown notice can replace it.
func (a *App) startProgress(ctx context.Context, q question) *progress {
	p := &progress{a: a, q: q, labels: make(chan string, 1), stopped: make(chan struct{}), finished: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), reportTimeout)
	defer cancel()
	if st := a.newStreamer(q); st != nil && st.begin(ctx) {
		p.st = st
		if a.hooks.Progress != nil {
			a.hooks.Progress(time.Since(q.received))
		}
		return p
	}
	first := "Working on it…"
	if q.dm && a.cfg.AssistantStatus && !a.noStatus.Load() {
		err := a.setStatus(ctx, q, first)
		p.status = err == nil
		if err != nil {
			if statusUnavailable(err) {
				a.noStatus.Store(true)
			}
			a.log.DebugContext(ctx, "assistant status unavailable: posting a progress message", "err", err)
		}
	}
	if !p.status {
		ts, err := a.post(ctx, q.channel, q.threadTS, workingMessage(first))
		if err != nil {
			a.log.WarnContext(ctx, "progress message not posted", "channel", q.channel, "err", err)
		}
		p.workingTS = ts
	}
	if (p.status || p.workingTS != "") && a.hooks.Progress != nil {
		a.hooks.Progress(time.Since(q.received))
	}
	return p
}

// watch starts showing the labels of the nodes the workflow starts, until
// stop. Updates use ctx: the run's context.
func (p *progress) watch(ctx context.Context) {
	if p.st != nil || p.status || p.workingTS != "" {
		p.watching = true
		go p.loop(ctx)
	}
}

// Started queues the step's label; a label not yet shown is replaced.
// With the stream, the step moves its task cards at once, and the label
// only wakes the loop that sends them.
func (p *progress) Started(_ context.Context, s bot.Step) {
	label := s.Label
	if p.st != nil {
		if !p.st.phase(s.Phase) {
			return
		}
		label = s.Node
	}
	if label == "" {
		return
	}
	select {
	case <-p.labels:
	default:
	}
	select {
	case p.labels <- label:
	default:
	}
}

// Finished is part of bot.Progress; progress shows starts only.
func (p *progress) Finished(context.Context, bot.Step) {}

// options are the Ask options of the answer: p follows its steps, and
// its text streams under the cards where the stream is in use.
func (p *progress) options() []bot.AskOption {
	opts := []bot.AskOption{bot.WithProgress(p)}
	if p.st != nil {
		opts = append(opts, bot.WithText(p.st.chunk))
	}
	return opts
}

func (p *progress) loop(ctx context.Context) {
	defer close(p.finished)
	last := ""
	for {
		select {
		case <-p.stopped:
			return
		case label := <-p.labels:
			if label == last && p.st == nil {
				continue
			}
			last = label
			p.show(ctx, label)
			wait := p.a.progressInterval()
			if wait <= 0 {
				continue
			}
			select {
			case <-p.stopped:
				return
			case <-p.a.clock.After(wait):
			}
		}
	}
}

// clock is the time an answer's updates are spaced by.
type clock interface {
	Now() time.Time
	// After is time.After: the channel gets the time once d has passed.
	After(d time.Duration) <-chan time.Time
}

// wallClock is the real time.
type wallClock struct{}

func (wallClock) Now() time.Time                         { return time.Now() }
func (wallClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// progressShare is how many running turns share one progress interval:
// beyond it, each turn's updates are spaced out further.
const progressShare = 16

// progressInterval is the least time between two progress updates of one
// answer: ProgressInterval, stretched as more turns run at once, so that a
// burst of questions keeps the app's chat.update calls (a rate-limited
// method, whose limit every thread shares) about where 16 answers would.
// The first "working…" message and the answer are never held back.
func (a *App) progressInterval() time.Duration {
	running := 0
	if a.disp != nil {
		running = a.disp.turns.Running()
	}
	return a.cfg.ProgressInterval * time.Duration(max(1, (running+progressShare-1)/progressShare))
}

func (p *progress) show(ctx context.Context, label string) {
	if p.st != nil {
		p.st.showTasks(ctx)
		return
	}
	var err error
	if p.status {
		err = p.a.setStatus(ctx, p.q, label)
	} else {
		err = p.a.update(ctx, p.q.channel, p.workingTS, workingMessage(label))
	}
	if err != nil && ctx.Err() == nil {
		p.a.log.DebugContext(ctx, "progress update failed", "err", err)
	}
}

// stop ends the updates and waits for one in flight, so that no late
// progress update can overwrite the answer.
func (p *progress) stop() {
	select {
	case <-p.stopped:
	default:
		close(p.stopped)
	}
	if p.watching {
		<-p.finished
	}
}

// setStatus shows label as the assistant thread status: "is writing SQL…".
func (a *App) setStatus(ctx context.Context, q question, label string) error {
	return a.api.SetAssistantThreadsStatusContext(ctx, slack.AssistantThreadsSetStatusParameters{
		ChannelID: q.channel, ThreadTS: q.threadTS, Status: "is " + lowerFirst(label),
	})
}

// statusUnavailable reports errors meaning this app cannot set assistant
// statuses at all, as opposed to not in this conversation.
func statusUnavailable(err error) bool {
	var se slack.SlackErrorResponse
	if !errors.As(err, &se) {
		return false
	}
	switch se.Err {
	case "missing_scope", "not_allowed_token_type", "unknown_method", "method_deprecated", "feature_not_enabled", "no_permission":
		return true
	}
	return false
}

// workingMessage is the progress message: one context line.
func workingMessage(label string) blockkit.Message {
	text := "⏳ " + label
	return blockkit.Message{
		Text:   text,
		Blocks: []slack.Block{slack.NewContextBlock("progress", slack.NewTextBlockObject(slack.MarkdownType, "_"+text+"_", false, false))},
	}
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	// Keep acronyms such as "SQL" as they are.
	if n == len(s) || unicode.IsUpper(rune(s[n])) {
		return s
	}
	return strings.ToLower(string(r)) + s[n:]
}
