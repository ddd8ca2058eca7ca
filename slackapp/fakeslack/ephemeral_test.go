package fakeslack_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

// An ephemeral message, as Slack has it: refused to someone outside a
// channel whose members are known; a click on its button says
// is_ephemeral, names its thread and carries no message object.
func TestEphemeralMessages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake := fakeslack.New(t)
	api := newClient(fake, fakeslack.BotToken)
	fake.SetMembers("CSHARED", "UIN")

	_, err := api.PostEphemeralContext(ctx, "CSHARED", "UOUT", slack.MsgOptionText("only you", false))
	assert.ErrorContains(t, err, "user_not_in_channel")

	_, root, err := api.PostMessageContext(ctx, "CSHARED", slack.MsgOptionText("the question's answer", false))
	require.NoError(t, err)
	ts, err := api.PostEphemeralContext(ctx, "CSHARED", "UIN", slack.MsgOptionTS(root),
		slack.MsgOptionBlocks(answerBlocks("only you see *this*", "q1")...), slack.MsgOptionText("only you", false))
	require.NoError(t, err)

	var cb slack.InteractionCallback
	require.NoError(t, json.Unmarshal(fake.BlockAction("UIN", "CSHARED", ts, "", "export_csv", "q1"), &cb))
	assert.True(t, cb.Container.IsEphemeral)
	assert.Equal(t, root, cb.Container.ThreadTs, "the ephemeral message's thread")
	assert.Equal(t, ts, cb.Container.MessageTs)
	assert.Empty(t, cb.Message.Timestamp, "no message object")

	require.NoError(t, slack.PostWebhookContext(ctx, cb.ResponseURL, &slack.WebhookMessage{Text: "answered", ResponseType: slack.ResponseTypeEphemeral}))
	last := fake.Messages()[len(fake.Messages())-1]
	assert.Equal(t, fakeslack.Message{Channel: "CSHARED", TS: last.TS, ThreadTS: root, Text: "answered", Ephemeral: true, User: "UIN"}, last,
		"the response URL answers in the ephemeral message's thread")

	require.NoError(t, json.Unmarshal(fake.BlockAction("UIN", "CSHARED", root, "", "export_csv", "q1"), &cb))
	assert.False(t, cb.Container.IsEphemeral, "a message everyone sees")
	assert.Equal(t, root, cb.Message.Timestamp)
}

// A slash command's response URL cannot replace the command's
// acknowledgement: replace_original acts on a clicked message, and a
// command has none, so the reply is a new ephemeral message and the
// acknowledgement stays (it is the ack's payload, not a message the fake
// holds).
func TestCommandResponseURLDoesNotReplaceTheAck(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	url := fake.SlashCommand("/ask", "top regions", "U2", "C2")["response_url"]
	require.NoError(t, slack.PostWebhookContext(context.Background(), url, &slack.WebhookMessage{Text: "refused", ResponseType: slack.ResponseTypeEphemeral, ReplaceOriginal: true}))
	require.NoError(t, slack.PostWebhookContext(context.Background(), url, &slack.WebhookMessage{Text: "refused again", ResponseType: slack.ResponseTypeEphemeral, ReplaceOriginal: true}))
	msgs := fake.Messages()
	require.Len(t, msgs, 2, "each reply is a message of its own")
	assert.Equal(t, fakeslack.Message{Channel: "C2", TS: msgs[0].TS, Text: "refused", Ephemeral: true, User: "U2"}, msgs[0])
	assert.Equal(t, "refused again", msgs[1].Text)
	assert.Equal(t, "true", fake.Calls("response_url")[0].Args.Get("replace_original"), "the fake records what was asked")
}
