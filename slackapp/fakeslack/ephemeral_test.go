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
