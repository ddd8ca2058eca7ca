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
// thread (Slack's AI app view): the demo's questions, or the verified
// examples people use most.
func (a *App) onAssistantThreadStarted(e *slackevents.AssistantThreadStartedEvent) {
	t := e.AssistantThread
	if t.ChannelID == "" || t.ThreadTimeStamp == "" {
		a.log.Warn("assistant thread without channel or thread: ignored")
		return
	}
	a.submit(job{
		thread: threadID(t.ChannelID, t.ThreadTimeStamp),
		kind:   "assistant",
		run: func(ctx context.Context) {
			questions := a.bot.SuggestedQuestions(ctx, bot.Message{UserID: t.UserID, ChannelID: t.ChannelID}, 4)
			if len(questions) == 0 {
				return
			}
			params := slack.AssistantThreadsSetSuggestedPromptsParameters{
				ChannelID: t.ChannelID, ThreadTS: t.ThreadTimeStamp, Title: "Try asking",
			}
			for _, q := range questions {
				params.AddPrompt(clipRunes(q, 75), q)
			}
			if err := a.api.SetAssistantThreadsSuggestedPromptsContext(ctx, params); err != nil {
				a.log.WarnContext(ctx, "suggested prompts not set", "channel", t.ChannelID, "err", err)
			}
		},
		report: func(context.Context, error) {},
	})
}

// setThreadTitle names an assistant thread after its first question. A
// workspace without the assistant view refuses it; that costs nothing.
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
