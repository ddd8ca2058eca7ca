package slackapp

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/slack-go/slack/slackevents"
)

// question is a user message the bot answers.
type question struct {
	channel string
	user    string
	// text is the question as typed, Slack's markup read (plainText).
	text string
	// channels are the channel mentions text names as "#name": name → id.
	channels map[string]string
	// ts is the message's own timestamp; threadTS the thread it belongs
	// to and the answer goes to (ts itself for a top-level message).
	ts, threadTS string
	// followUpOnly means the message did not address the bot: it is
	// answered only in a thread the bot already answered in.
	followUpOnly bool
	// dm marks a direct message, where the assistant status may work.
	dm bool
	// received is when the event arrived, for the progress hook.
	received time.Time
}

// threadID names a Slack thread in the store: channel and root timestamp.
func threadID(channel, threadTS string) string { return channel + ":" + threadTS }

// onEvent routes an Events API callback. It returns at once: the work is
// queued on the message's thread.
func (a *App) onEvent(ev slackevents.EventsAPIEvent, received time.Time) {
	if ev.Type != slackevents.CallbackEvent {
		return
	}
	switch e := ev.InnerEvent.Data.(type) {
	case *slackevents.AppMentionEvent:
		a.onMention(e, received)
	case *slackevents.MessageEvent:
		a.onMessage(e, received)
	case *slackevents.AssistantThreadStartedEvent:
		a.onAssistantThreadStarted(e)
	case *slackevents.AppHomeOpenedEvent:
		a.onAppHomeOpened(e)
	case *slackevents.AppContextChangedEvent:
		a.onAppContextChanged(e)
	}
}

func (a *App) onMention(e *slackevents.AppMentionEvent, received time.Time) {
	if a.fromBot(e.User, e.BotID) {
		return
	}
	t := plainText(e.Text, a.botUserID)
	a.submitQuestion(question{
		channel: e.Channel, user: e.User, text: t.text, channels: t.channels,
		ts: e.TimeStamp, threadTS: rootTS(e.ThreadTimeStamp, e.TimeStamp), received: received,
	})
}

// onMessage answers direct messages, and replies in threads the bot is
// part of. Edits, deletions, joins and other subtypes are not questions.
func (a *App) onMessage(e *slackevents.MessageEvent, received time.Time) {
	if e.SubType != "" && e.SubType != "thread_broadcast" {
		return
	}
	if a.fromBot(e.User, e.BotID) || e.User == "" {
		return
	}
	t := plainText(e.Text, a.botUserID)
	q := question{
		channel: e.Channel, user: e.User, text: t.text, channels: t.channels,
		ts: e.TimeStamp, threadTS: rootTS(e.ThreadTimeStamp, e.TimeStamp), received: received,
	}
	switch e.ChannelType {
	case "im":
		q.dm = true
	case "channel", "group", "mpim":
		// A top-level message is chatter unless it mentions the bot, and a
		// mention comes as its own app_mention event.
		if e.ThreadTimeStamp == "" || a.mentionsBot(e.Text) {
			return
		}
		q.followUpOnly = true
	default:
		return
	}
	a.submitQuestion(q)
}

// fromBot reports messages of this bot or any other bot: answering them
// could loop forever.
func (a *App) fromBot(user, botID string) bool {
	return botID != "" || (user != "" && user == a.botUserID)
}

func (a *App) mentionsBot(text string) bool {
	return a.botUserID != "" && strings.Contains(text, "<@"+a.botUserID)
}

func rootTS(threadTS, ts string) string {
	if threadTS != "" {
		return threadTS
	}
	return ts
}

// submitQuestion queues the answer of q on its thread. A full queue is
// answered with an apology at once rather than dropped. An event without
// a channel, a user or a timestamp has no thread to answer in and no one
// to answer: it is dropped (Slack has its acknowledgement already).
func (a *App) submitQuestion(q question) {
	if q.channel == "" || q.user == "" || q.ts == "" {
		a.log.Warn("slack event without channel, user or timestamp dropped",
			"channel", q.channel, "user", q.user, "ts", q.ts)
		return
	}
	w := &answer{a: a, q: q}
	a.submit(w.job("message", threadID(q.channel, q.threadTS)))
}

// submit queues j, or reports at once why it cannot run.
func (a *App) submit(j job) {
	j = a.observed(j)
	if err := a.disp.submit(j); err != nil {
		a.log.Warn("slack job not queued", "kind", j.kind, "thread", j.thread, "err", err)
		go a.disp.reportJob(j, err)
	}
}

// observed wraps j so that the Done hook sees it once: after it ran, was
// dropped by prepare, or was reported unrun.
func (a *App) observed(j job) job {
	run, report, prepare := j.run, j.report, j.prepare
	if prepare != nil {
		j.prepare = func(ctx context.Context) bool {
			ok := prepare(ctx)
			if !ok {
				a.done(j.kind)
			}
			return ok
		}
	}
	j.run = func(ctx context.Context) {
		defer a.done(j.kind)
		run(ctx)
	}
	j.report = func(ctx context.Context, why error) {
		report(ctx, why)
		if errors.Is(why, errBusy) || errors.Is(why, errStopping) {
			a.done(j.kind)
		}
	}
	return j
}

func (a *App) done(kind string) {
	if a.hooks.Done != nil {
		a.hooks.Done(kind)
	}
}
