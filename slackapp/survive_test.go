package slackapp

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A handler that panics (a bug; here an app without its bot, whose every
// handler panics) takes neither Socket Mode's one loop nor the process
// down: the envelope is acknowledged, the panic logged with its stack,
// and a slash command answered "something went wrong", not with silence.
func TestSocketModeSurvivesAPanickingHandler(t *testing.T) {
	var logs lockedBuffer
	a := &App{cfg: Config{SlashCommand: "/ask"}, log: slog.New(slog.NewTextHandler(&logs, nil))}
	client := socketmode.New(slack.New("xoxb-test"))
	events := []socketmode.Event{
		{Type: socketmode.EventTypeEventsAPI, Data: slackevents.EventsAPIEvent{Type: slackevents.CallbackEvent,
			InnerEvent: slackevents.EventsAPIInnerEvent{Type: "app_mention", Data: &slackevents.AppMentionEvent{
				User: "U1", Channel: "C1", Text: "<@UBOT> how many games?", TimeStamp: "1700000000.000100"}}}},
		{Type: socketmode.EventTypeInteractive, Data: slack.InteractionCallback{Type: slack.InteractionTypeBlockActions,
			User: slack.User{ID: "U1"}, Container: slack.Container{ChannelID: "C1", MessageTs: "1700000000.000200"},
			ActionCallback: slack.ActionCallbacks{BlockActions: []*slack.BlockAction{{ActionID: "show_sql", Value: "q1"}}}}},
		{Type: socketmode.EventTypeSlashCommand, Data: slack.SlashCommand{Command: "/ask", Text: "help", UserID: "U1", ChannelID: "C1"}},
	}
	for _, evt := range events {
		require.NotPanics(t, func() {
			assert.NoError(t, a.onSocketEvent(context.Background(), client, evt), "the loop goes on after %s", evt.Type)
		}, string(evt.Type))
	}
	assert.Equal(t, 3, strings.Count(logs.String(), "panicked"), "each panic logged: %s", logs.String())
	assert.Contains(t, logs.String(), "stack=")

	reply := a.command(slack.SlashCommand{Command: "/ask", Text: "help", UserID: "U1", ChannelID: "C1"}, time.Now())
	assert.Equal(t, slack.ResponseTypeEphemeral, reply.ResponseType)
	assert.Contains(t, reply.Text, "Something went wrong on my side")
}
