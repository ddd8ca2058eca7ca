package slackapp

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
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

	// Over HTTP too: answered 200 (or Slack sends it again, to panic
	// again), the command with the same words.
	for _, tt := range []struct {
		name, body string
		serve      func(http.ResponseWriter, *http.Request, []byte, time.Time)
		want       string
	}{
		{"an event", `{"type":"event_callback","event":{"type":"app_mention","user":"U1","channel":"C1","text":"<@UBOT> hi","ts":"1700000000.000300"}}`, a.serveEvents, ""},
		{"a press", "payload=" + url.QueryEscape(`{"type":"block_actions","user":{"id":"U1"},"container":{"channel_id":"C1","message_ts":"1700000000.000400"},"actions":[{"type":"button","block_id":"actions","action_id":"show_sql","value":"q1"}]}`), a.serveInteractions, ""},
		{"a command", "command=%2Fask&text=help&user_id=U1&channel_id=C1", a.serveCommands, "Something went wrong on my side"},
	} {
		before := strings.Count(logs.String(), "panicked")
		req := httptest.NewRequest(http.MethodPost, "/slack", strings.NewReader(tt.body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		require.NotPanics(t, func() { tt.serve(rec, req, []byte(tt.body), time.Now()) }, tt.name)
		assert.Equal(t, http.StatusOK, rec.Code, tt.name)
		assert.Contains(t, rec.Body.String(), tt.want, tt.name)
		assert.Equal(t, before+1, strings.Count(logs.String(), "panicked"), "%s: its panic logged", tt.name)
	}
}
