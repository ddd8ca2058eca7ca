package fakeslack_test

import (
	"context"
	"testing"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

// Messages carry their metadata into conversations.history and
// conversations.replies; a post to a user id goes to the app's DM with
// them, the channel conversations.open returns; Slack refuses malformed
// metadata and conversations.open without im:write.
func TestHistoryRepliesAndMetadata(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	api := newClient(fake, fakeslack.BotToken)
	ctx := context.Background()
	md := slack.SlackMetadata{EventType: "run", EventPayload: map[string]any{"schedule": "abcd0123", "due": 1796029200}}

	_, root, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("root", false))
	require.NoError(t, err)
	_, reply, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("in thread", false), slack.MsgOptionTS(root), slack.MsgOptionMetadata(md))
	require.NoError(t, err)
	_, top, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("top", false), slack.MsgOptionMetadata(md))
	require.NoError(t, err)

	h, err := api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: "C1", IncludeAllMetadata: true})
	require.NoError(t, err)
	require.Len(t, h.Messages, 2, "top-level messages only")
	assert.Equal(t, top, h.Messages[0].Timestamp, "newest first")
	assert.Equal(t, "run", h.Messages[0].Metadata.EventType)
	assert.Equal(t, "abcd0123", h.Messages[0].Metadata.EventPayload["schedule"])
	h, err = api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: "C1"})
	require.NoError(t, err)
	assert.Empty(t, h.Messages[0].Metadata.EventType, "metadata only when asked for")

	replies, _, _, err := api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: "C1", Timestamp: root, IncludeAllMetadata: true})
	require.NoError(t, err)
	require.Len(t, replies, 2, "the parent, then its replies")
	assert.Equal(t, root, replies[0].Timestamp)
	assert.Equal(t, reply, replies[1].Timestamp)
	assert.Equal(t, "run", replies[1].Metadata.EventType)

	dm, _, err := api.PostMessageContext(ctx, "UALICE01", slack.MsgOptionText("hi", false))
	require.NoError(t, err)
	assert.Equal(t, "DUALICE01", dm, "a post to a user goes to the app's DM with them")
	_, _, _, err = api.OpenConversationContext(ctx, &slack.OpenConversationParameters{Users: []string{"UALICE01"}})
	assert.ErrorContains(t, err, "missing_scope", "conversations.open needs im:write")
	fake.SetScopes(append(append([]string{}, fakeslack.Scopes...), "im:write")...)
	c, _, _, err := api.OpenConversationContext(ctx, &slack.OpenConversationParameters{Users: []string{"UALICE01"}})
	require.NoError(t, err)
	assert.Equal(t, "DUALICE01", c.ID)

	_, _, err = api.PostMessageContext(ctx, "C1", slack.MsgOptionText("x", false), slack.MsgOptionMetadata(slack.SlackMetadata{EventType: "run"}))
	assert.ErrorContains(t, err, "invalid_metadata_format", "metadata needs an event_payload")
}
