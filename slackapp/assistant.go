package slackapp

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/analyticsbot/analyticsbot/bot"
)

// maxTitle bounds an assistant thread's title taken from its first
// question.
const maxTitle = 80

// onAssistantThreadStarted offers suggested prompts in a new assistant
// thread: an installation made with the legacy assistant_view, where each
// conversation is a thread Slack opens. The prompts go to that thread.
func (a *App) onAssistantThreadStarted(e *slackevents.AssistantThreadStartedEvent) {
	t := e.AssistantThread
	if t.ChannelID == "" || t.ThreadTimeStamp == "" {
		a.log.Warn("assistant thread without channel or thread: ignored")
		return
	}
	a.suggestPrompts("assistant", t.UserID, t.ChannelID, t.ThreadTimeStamp)
}

// onAppHomeOpened offers suggested prompts when a user opens the app's
// Messages tab: under Slack's Agent messaging experience (agent_view), that
// is where a conversation starts, each message the root of its own thread.
// The prompts go to the conversation: Slack ignores a thread_ts there.
// The other tabs (the Home tab is off in the manifest, About) need nothing.
func (a *App) onAppHomeOpened(e *slackevents.AppHomeOpenedEvent) {
	if e.Tab != "messages" {
		return
	}
	if e.Channel == "" || e.User == "" {
		a.log.Warn("messages tab opened without channel or user: ignored")
		return
	}
	a.suggestPrompts("agent", e.User, e.Channel, "")
}

// onAppContextChanged hears where the user is in Slack while the app's
// conversation is open. Nothing follows from it: an answer depends on the
// conversation it is asked in (its channel's access rules and ceiling),
// never on a channel the user happens to be looking at, so the event is
// only logged. The manifest does not subscribe to it; an app that does
// gets it acknowledged and ignored.
func (a *App) onAppContextChanged(e *slackevents.AppContextChangedEvent) {
	a.log.Debug("app context changed: ignored", "channel", e.Channel, "entities", len(e.Context.Entities))
}

// suggestPrompts sets up to four suggested prompts in channel (and
// thread, "" for the whole conversation): the demo's questions, or the
// verified examples people use most that user may ask.
func (a *App) suggestPrompts(kind, user, channel, thread string) {
	a.submit(job{
		thread: threadID(channel, thread),
		kind:   kind,
		run: func(ctx context.Context) {
			questions := a.bot.SuggestedQuestions(ctx, bot.Message{UserID: user, ChannelID: channel}, 4)
			if len(questions) == 0 {
				return
			}
			params := slack.AssistantThreadsSetSuggestedPromptsParameters{ChannelID: channel, ThreadTS: thread, Title: "Try asking"}
			for _, q := range questions {
				params.AddPrompt(clipRunes(q, 75), q)
			}
			if err := a.api.SetAssistantThreadsSuggestedPromptsContext(ctx, params); err != nil {
				a.log.WarnContext(ctx, "suggested prompts not set", "channel", channel, "err", err)
			}
		},
		report: func(context.Context, error) {},
	})
}

// setThreadTitle names an assistant thread after its first question. Only
// a legacy assistant thread has a root apart from its first question; in
// the Agent messaging experience the question is the root, and a
// workspace without the feature refuses it, which costs nothing.
func (a *App) setThreadTitle(ctx context.Context, q question) {
	if !q.dm || q.threadTS == "" || q.threadTS == q.ts {
		return
	}
	err := a.api.SetAssistantThreadsTitleContext(ctx, slack.AssistantThreadsSetTitleParameters{
		ChannelID: q.channel, ThreadTS: q.threadTS, Title: clipRunes(q.text, maxTitle),
	})
	if err != nil {
		a.log.DebugContext(ctx, "assistant thread title not set", "channel", q.channel, "err", err)
	}
}

// clipRunes cuts s to n characters, marking the cut with "…".
func clipRunes(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
