package fakeslack_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

func TestEventCallback(t *testing.T) {
	t.Parallel()
	raw := fakeslack.EventCallback("Ev42", fakeslack.AppMention("C1", "U1", "hi <@UBOT0001> and <@U2|bob>", "1700000005.000100", "1700000001.000100"))

	var outer slackevents.EventsAPICallbackEvent
	require.NoError(t, json.Unmarshal(raw, &outer))
	assert.Equal(t, "event_callback", outer.Type)
	assert.Equal(t, "Ev42", outer.EventID)
	assert.Equal(t, fakeslack.AppID, outer.APIAppID)
	assert.InDelta(t, time.Now().Unix(), outer.EventTime, 60)
	require.Len(t, outer.Authorizations, 1)
	assert.Equal(t, slack.EventAuthorization{TeamID: fakeslack.TeamID, UserID: fakeslack.BotUserID, IsBot: true}, outer.Authorizations[0])

	parsed, err := slackevents.ParseEvent(raw, slackevents.OptionVerifyToken(&slackevents.TokenComparator{VerificationToken: fakeslack.VerificationToken}))
	require.NoError(t, err)
	mention, isMention := parsed.InnerEvent.Data.(*slackevents.AppMentionEvent)
	require.True(t, isMention, "got %T", parsed.InnerEvent.Data)
	assert.Equal(t, slackevents.AppMentionEvent{
		Type: "app_mention", User: "U1", Text: "hi <@UBOT0001> and <@U2|bob>", TimeStamp: "1700000005.000100",
		ThreadTimeStamp: "1700000001.000100", Channel: "C1", EventTimeStamp: "1700000005.000100", Blocks: mention.Blocks,
	}, *mention)

	require.Len(t, mention.Blocks.BlockSet, 1)
	rt, isRichText := mention.Blocks.BlockSet[0].(*slack.RichTextBlock)
	require.True(t, isRichText, "got %T", mention.Blocks.BlockSet[0])
	section := rt.Elements[0].(*slack.RichTextSection)
	var kinds []string
	for _, e := range section.Elements {
		kinds = append(kinds, string(e.RichTextSectionElementType()))
	}
	assert.Equal(t, []string{"text", "user", "text", "user"}, kinds, "mentions become user elements")
	assert.Equal(t, "UBOT0001", section.Elements[1].(*slack.RichTextSectionUserElement).UserID)
}

func TestUserMessagesOmitEmptyThread(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		event map[string]any
		want  string
	}{
		{name: "mention", event: fakeslack.AppMention("C1", "U1", "x", "1.2", ""), want: "app_mention"},
		{name: "message", event: fakeslack.MessageEvent("D1", "im", "U1", "x", "1.2", ""), want: "message"},
	}
	for _, tc := range tests {
		_, hasThread := tc.event["thread_ts"]
		assert.False(t, hasThread, "%s: a top-level message has no thread_ts", tc.name)
		assert.Equal(t, tc.want, tc.event["type"], tc.name)
		assert.Equal(t, "1.2", tc.event["event_ts"], tc.name)
	}
	assert.Equal(t, "im", fakeslack.MessageEvent("D1", "im", "U1", "x", "1.2", "")["channel_type"])
}

func TestBlockActionPayload(t *testing.T) {
	t.Parallel()
	var cb slack.InteractionCallback
	require.NoError(t, json.Unmarshal(fakeslack.BlockAction("U1", "C1", "1700000002.000100", "", "export_csv", "q9"), &cb))
	assert.Equal(t, slack.InteractionTypeBlockActions, cb.Type)
	assert.Equal(t, "U1", cb.User.ID)
	assert.Equal(t, "C1", cb.Channel.ID)
	assert.Equal(t, fakeslack.TeamID, cb.Team.ID)
	assert.Equal(t, fakeslack.AppID, cb.APIAppID)
	assert.Equal(t, slack.Container{Type: "message", MessageTs: "1700000002.000100", ChannelID: "C1"}, cb.Container)
	assert.Equal(t, "1700000002.000100", cb.Message.Timestamp)
	assert.Empty(t, cb.Message.ThreadTimestamp)
	require.Len(t, cb.ActionCallback.BlockActions, 1)
	action := cb.ActionCallback.BlockActions[0]
	assert.Equal(t, slack.ActionType("button"), action.Type)
	assert.Equal(t, "export_csv", action.ActionID)
	assert.Equal(t, "answer_actions:q9", action.BlockID)
	assert.Equal(t, "q9", action.Value)
	assert.NotEmpty(t, action.ActionTs)
	assert.NotEmpty(t, cb.TriggerID)
	assert.True(t, strings.HasPrefix(cb.ResponseURL, "https://hooks.slack.com/actions/"), "got %q", cb.ResponseURL)
}

func TestSlashCommandPayload(t *testing.T) {
	t.Parallel()
	fields := fakeslack.SlashCommand("/ask", "revenue by month", "U1", "C1")
	want := slack.SlashCommand{
		Token: fakeslack.VerificationToken, TeamID: fakeslack.TeamID, TeamDomain: "fake", ChannelID: "C1", ChannelName: "fake-channel",
		UserID: "U1", UserName: "user-U1", Command: "/ask", Text: "revenue by month", ResponseURL: fields["response_url"],
		TriggerID: fields["trigger_id"], APIAppID: fakeslack.AppID,
	}

	form := url.Values{}
	for k, v := range fields {
		form.Set(k, v)
	}
	req := fakeslack.SignedRequest(t, "secret", "http://127.0.0.1/slack/commands", "application/x-www-form-urlencoded", []byte(form.Encode()), time.Now())
	fromForm, err := slack.SlashCommandParse(req)
	require.NoError(t, err)
	assert.Equal(t, want, fromForm, "over HTTP")

	var fromJSON slack.SlashCommand
	require.NoError(t, json.Unmarshal(mustMarshal(t, fields), &fromJSON))
	assert.Equal(t, want, fromJSON, "over Socket Mode")
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func TestSignedRequest(t *testing.T) {
	t.Parallel()
	body := []byte(`{"type":"event_callback","event":{"type":"app_mention"}}`)
	tests := []struct {
		name    string
		secret  string
		at      time.Time
		wantErr error
	}{
		{name: "valid", secret: "s3cret", at: time.Now()},
		{name: "wrong secret", secret: "other", at: time.Now(), wantErr: slack.ErrInvalidSignature},
		{name: "too old", secret: "s3cret", at: time.Now().Add(-10 * time.Minute), wantErr: slack.ErrExpiredTimestamp},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := fakeslack.SignedRequest(t, tc.secret, "http://127.0.0.1/slack/events", "application/json", body, tc.at)
			assert.Equal(t, "application/json", req.Header.Get("Content-Type"))
			got, err := io.ReadAll(req.Body)
			require.NoError(t, err)
			assert.Equal(t, body, got)

			err = verify(req, "s3cret", got)
			if tc.wantErr == nil {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, tc.wantErr)
		})
	}
}

// verify checks the request's signature the way an HTTP-mode app would.
func verify(req *http.Request, secret string, body []byte) error {
	sv, err := slack.NewSecretsVerifier(req.Header, secret)
	if err != nil {
		return err
	}
	if _, err := sv.Write(body); err != nil {
		return err
	}
	return sv.Ensure()
}

func TestInteractionIDsAreUnique(t *testing.T) {
	t.Parallel()
	// Apps deduplicate redeliveries by trigger_id, so two clicks or commands
	// must never share one, not even across fakes.
	var first, second slack.InteractionCallback
	require.NoError(t, json.Unmarshal(fakeslack.BlockAction("U1", "C1", "1.1", "", "show_sql", "q1"), &first))
	require.NoError(t, json.Unmarshal(fakeslack.New(t).BlockAction("U1", "C1", "1.1", "", "show_sql", "q1"), &second))
	assert.NotEqual(t, first.TriggerID, second.TriggerID)
	assert.Less(t, first.ActionCallback.BlockActions[0].ActionTs, second.ActionCallback.BlockActions[0].ActionTs)

	a, b := fakeslack.SlashCommand("/ask", "x", "U1", "C1"), fakeslack.SlashCommand("/ask", "x", "U1", "C1")
	assert.NotEqual(t, a["trigger_id"], b["trigger_id"])
	assert.NotEqual(t, fakeslack.AppMention("C1", "U1", "x", "1.1", "")["client_msg_id"], fakeslack.AppMention("C1", "U1", "x", "1.1", "")["client_msg_id"])
}
