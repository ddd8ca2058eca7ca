package fakeslack_test

import (
	"context"
	"io"
	"log"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

// socketClient runs a real slack-go Socket Mode client against fake until
// the test ends and returns its Socket Mode requests (events, interactions,
// commands) on a channel.
func socketClient(t *testing.T, fake *fakeslack.Server) (*socketmode.Client, <-chan socketmode.Event) {
	t.Helper()
	api := slack.New(fakeslack.BotToken, slack.OptionAPIURL(fake.APIURL()), slack.OptionAppLevelToken(fakeslack.AppToken))
	client := socketmode.New(api, socketmode.OptionLog(log.New(io.Discard, "", 0)))
	ctx, cancel := context.WithCancel(context.Background())
	requests := make(chan socketmode.Event, 16)
	runDone := make(chan error, 1)
	go func() { runDone <- client.RunContext(ctx) }()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case evt := <-client.Events:
				switch evt.Type {
				case socketmode.EventTypeEventsAPI, socketmode.EventTypeInteractive, socketmode.EventTypeSlashCommand:
					requests <- evt
				}
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-runDone:
		case <-time.After(fakeslack.WaitTimeout):
			t.Errorf("the Socket Mode client did not stop")
		}
	})
	return client, requests
}

func receive(t *testing.T, requests <-chan socketmode.Event) socketmode.Event {
	t.Helper()
	select {
	case evt := <-requests:
		return evt
	case <-time.After(fakeslack.WaitTimeout):
		t.Fatal("no Socket Mode request reached the client")
		return socketmode.Event{}
	}
}

func TestSocketModeEventsAndAcks(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	client, requests := socketClient(t, fake)
	fake.WaitConnected(t)

	id := fake.Send(t, fakeslack.Envelope{
		Type:    "events_api",
		Payload: fakeslack.EventCallback("Ev001", fakeslack.AppMention("C1", "U1", "<@UBOT0001> revenue last week?", "1700000001.000100", "")),
	})
	evt := receive(t, requests)
	require.Equal(t, socketmode.EventTypeEventsAPI, evt.Type)
	require.NotNil(t, evt.Request)
	assert.Equal(t, id, evt.Request.EnvelopeID)
	outer, isEvent := evt.Data.(slackevents.EventsAPIEvent)
	require.True(t, isEvent, "got %T", evt.Data)
	assert.Equal(t, fakeslack.TeamID, outer.TeamID)
	mention, isMention := outer.InnerEvent.Data.(*slackevents.AppMentionEvent)
	require.True(t, isMention, "got %T", outer.InnerEvent.Data)
	assert.Equal(t, "<@UBOT0001> revenue last week?", mention.Text)
	assert.Equal(t, "C1", mention.Channel)
	assert.Equal(t, "U1", mention.User)
	assert.Equal(t, "1700000001.000100", mention.TimeStamp)
	assert.Empty(t, mention.ThreadTimeStamp)

	require.NoError(t, client.Ack(*evt.Request))
	ack := fake.WaitAck(t, id)
	assert.Equal(t, id, ack.EnvelopeID)
	assert.Nil(t, ack.Payload, "a plain ack has no payload")

	// Slack asks clients to reconnect from time to time; the client must
	// come back and keep receiving.
	fake.Disconnect("refresh_requested")
	fake.WaitConnected(t)
	assert.Equal(t, 2, fake.Connects())
	id2 := fake.SendEvent(t, fakeslack.MessageEvent("D1", "im", "U1", "and this week?", "1700000002.000100", "1700000001.000100"))
	evt = receive(t, requests)
	msg, isMessage := evt.Data.(slackevents.EventsAPIEvent).InnerEvent.Data.(*slackevents.MessageEvent)
	require.True(t, isMessage)
	assert.Equal(t, "im", msg.ChannelType)
	assert.Equal(t, "1700000001.000100", msg.ThreadTimeStamp)
	require.NoError(t, client.Ack(*evt.Request))
	fake.WaitAck(t, id2)
	assert.Len(t, fake.Acks(), 2)
}

func TestSocketModeInteractionsAndResponseURLs(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	client, requests := socketClient(t, fake)
	api := newClient(fake, fakeslack.BotToken)
	_, ts, err := api.PostMessage("C1", slack.MsgOptionText("answer", false),
		slack.MsgOptionBlocks(answerBlocks("We had *12* orders.", "q7")...), slack.MsgOptionTS("1700000000.000001"))
	require.NoError(t, err)
	fake.WaitConnected(t)

	id := fake.SendBlockAction(t, "U1", "C1", ts, "1700000000.000001", "show_sql", "q7")
	evt := receive(t, requests)
	cb, isCallback := evt.Data.(slack.InteractionCallback)
	require.True(t, isCallback, "got %T", evt.Data)
	require.NoError(t, client.Ack(*evt.Request))
	fake.WaitAck(t, id)
	assert.Equal(t, slack.InteractionTypeBlockActions, cb.Type)
	require.Len(t, cb.ActionCallback.BlockActions, 1)
	action := cb.ActionCallback.BlockActions[0]
	assert.Equal(t, "show_sql", action.ActionID)
	assert.Equal(t, "q7", action.Value)
	assert.Equal(t, "answer_actions:q7", action.BlockID)
	assert.Equal(t, "Show SQL", action.Text.Text, "the button's text comes from the posted message")
	assert.Equal(t, ts, cb.Container.MessageTs)
	assert.Equal(t, "1700000000.000001", cb.Container.ThreadTs)
	assert.Equal(t, "C1", cb.Channel.ID)
	assert.Equal(t, "U1", cb.User.ID)
	assert.Equal(t, "answer", cb.Message.Text)
	require.True(t, strings.HasPrefix(cb.ResponseURL, fake.URL+"/response/"), "got %q", cb.ResponseURL)

	_, _, err = api.PostMessage("", slack.MsgOptionResponseURL(cb.ResponseURL, slack.ResponseTypeEphemeral), slack.MsgOptionText("SELECT 1", false))
	require.NoError(t, err)
	_, _, err = api.PostMessage("", slack.MsgOptionReplaceOriginal(cb.ResponseURL), slack.MsgOptionText("replaced", false))
	require.NoError(t, err)

	id = fake.SendSlashCommand(t, "/ask", "top regions", "U2", "C2")
	evt = receive(t, requests)
	cmd, isCommand := evt.Data.(slack.SlashCommand)
	require.True(t, isCommand, "got %T", evt.Data)
	assert.True(t, evt.Request.AcceptsResponsePayload)
	require.NoError(t, client.Ack(*evt.Request, map[string]any{"text": "On it"}))
	ack := fake.WaitAck(t, id)
	assert.JSONEq(t, `{"text":"On it"}`, string(ack.Payload))
	assert.Equal(t, "/ask", cmd.Command)
	assert.Equal(t, "top regions", cmd.Text)
	assert.Equal(t, "C2", cmd.ChannelID)
	assert.Equal(t, "U2", cmd.UserID)
	_, _, err = api.PostMessage("", slack.MsgOptionResponseURL(cmd.ResponseURL, slack.ResponseTypeInChannel), slack.MsgOptionText("Top regions: …", false))
	require.NoError(t, err)
	_, _, err = api.PostMessage("", slack.MsgOptionResponseURL(cmd.ResponseURL, ""), slack.MsgOptionText("just for you", false))
	require.NoError(t, err)

	msgs := fake.Messages()
	require.Len(t, msgs, 4)
	assert.Equal(t, "replaced", msgs[0].Text)
	assert.Equal(t, 1, msgs[0].Updates)
	assert.Nil(t, msgs[0].Blocks, "replace_original replaces the blocks too")
	assert.Equal(t, fakeslack.Message{Channel: "C1", TS: msgs[1].TS, ThreadTS: "1700000000.000001", Text: "SELECT 1", Ephemeral: true, User: "U1"}, msgs[1])
	assert.Equal(t, fakeslack.Message{Channel: "C2", TS: msgs[2].TS, Text: "Top regions: …"}, msgs[2])
	assert.Equal(t, fakeslack.Message{Channel: "C2", TS: msgs[3].TS, Text: "just for you", Ephemeral: true, User: "U2"}, msgs[3])
	assert.Len(t, fake.Calls("response_url"), 4)
}

func TestResponseURLUnknown(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	api := newClient(fake, fakeslack.BotToken)
	_, _, err := api.PostMessage("", slack.MsgOptionResponseURL(fake.URL+"/response/999", ""), slack.MsgOptionText("x", false))
	var codeErr slack.StatusCodeError
	require.ErrorAs(t, err, &codeErr)
	assert.Equal(t, 404, codeErr.Code)

	_, _, err = api.PostMessage("", slack.MsgOptionResponseURL(fake.ResponseURL(), ""), slack.MsgOptionText("anyone", false))
	require.NoError(t, err)
	require.Len(t, fake.Messages(), 1)
	assert.True(t, fake.Messages()[0].Ephemeral)
	calls := fake.Calls("response_url")
	require.Len(t, calls, 2)
	assert.Equal(t, "expired_url", calls[0].Error)

	url := fake.ResponseURL()
	tests := []struct {
		name string
		opts []slack.MsgOption
		want string
	}{
		{name: "no text", want: "no_text"},
		{name: "broken blocks", opts: []slack.MsgOption{slack.MsgOptionText("x", false), slack.MsgOptionBlocks(slack.NewSectionBlock(nil, nil, nil))}, want: "invalid_blocks"},
	}
	for _, tc := range tests {
		_, _, err = api.PostMessage("", append(tc.opts, slack.MsgOptionResponseURL(url, ""))...)
		require.ErrorAs(t, err, &codeErr, tc.name)
		assert.Equal(t, 400, codeErr.Code, "%s: response URLs answer errors with a 4xx, like webhooks", tc.name)
		err = slack.PostWebhook(url, &slack.WebhookMessage{})
		assert.Error(t, err, "%s: PostWebhook sees the failure too", tc.name)
	}
	calls = fake.Calls("response_url")
	assert.Equal(t, "invalid_blocks", calls[len(calls)-2].Error)
	assert.Len(t, fake.Messages(), 1, "failed replies post nothing")
	assert.Equal(t, "anyone", calls[1].Args.Get("text"))
	assert.Equal(t, "false", calls[1].Args.Get("replace_original"), "non-string JSON values are kept as JSON text")
}
