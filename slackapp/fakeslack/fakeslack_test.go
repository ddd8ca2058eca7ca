package fakeslack_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

func newClient(s *fakeslack.Server, token string) *slack.Client {
	return slack.New(token, slack.OptionAPIURL(s.APIURL()), slack.OptionAppLevelToken(fakeslack.AppToken))
}

func answerBlocks(text, queryID string) []slack.Block {
	return []slack.Block{
		slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, text, false, false), nil, nil),
		slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, "3 rows · in 1.2 s", false, false)),
		slack.NewActionBlock("answer_actions:"+queryID,
			slack.NewButtonBlockElement("export_csv", queryID, slack.NewTextBlockObject(slack.PlainTextType, "Export CSV", false, false)),
			slack.NewButtonBlockElement("show_sql", queryID, slack.NewTextBlockObject(slack.PlainTextType, "Show SQL", false, false)),
		),
	}
}

func TestChatRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake := fakeslack.New(t)
	api := newClient(fake, fakeslack.BotToken)

	channel, ts, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("Thinking…", false))
	require.NoError(t, err)
	assert.Equal(t, "C1", channel)

	_, replyTS, msg, err := api.PostMessageWithResponseContext(ctx, "C1", slack.MsgOptionText("fallback", false),
		slack.MsgOptionBlocks(answerBlocks("We had *12* orders.", "q1")...), slack.MsgOptionTS(ts))
	require.NoError(t, err)
	assert.Greater(t, replyTS, ts, "timestamps must increase")
	assert.Equal(t, ts, msg.ThreadTimestamp, "the returned message object names the thread")
	assert.Equal(t, fakeslack.BotID, msg.BotID)
	require.Len(t, msg.Blocks.BlockSet, 3, "the returned message carries the blocks")

	_, _, text, err := api.UpdateMessageContext(ctx, "C1", ts, slack.MsgOptionText("Done", false), slack.MsgOptionBlocks())
	require.NoError(t, err)
	assert.Equal(t, "Done", text)

	ephTS, err := api.PostEphemeralContext(ctx, "C1", "U1", slack.MsgOptionText("only you", false), slack.MsgOptionTS(ts))
	require.NoError(t, err)

	got := fake.Messages()
	require.Len(t, got, 3)
	want := []fakeslack.Message{
		{Channel: "C1", TS: ts, Text: "Done", Updates: 1},
		{Channel: "C1", TS: replyTS, ThreadTS: ts, Text: "fallback", Blocks: got[1].Blocks},
		{Channel: "C1", TS: ephTS, ThreadTS: ts, Text: "only you", Ephemeral: true, User: "U1"},
	}
	assert.Equal(t, want, got)
	assert.Equal(t, []string{"We had *12* orders.", "3 rows · in 1.2 s", "Export CSV", "Show SQL"}, got[1].BlockTexts())
	assert.Nil(t, got[0].Blocks, "an empty blocks array removes the blocks")

	posts := fake.Calls("chat.postMessage")
	require.Len(t, posts, 2)
	assert.Equal(t, fakeslack.BotToken, posts[0].Token)
	assert.Equal(t, http.StatusOK, posts[0].Status)
	assert.Equal(t, ts, posts[1].Args.Get("thread_ts"))
	assert.Empty(t, posts[1].Args.Get("token"), "the token is in Call.Token, not Args")
	assert.Len(t, fake.Calls(""), 4)
}

func TestPostMessageErrors(t *testing.T) {
	t.Parallel()
	dividers := make([]slack.Block, 51)
	for i := range dividers {
		dividers[i] = slack.NewDividerBlock()
	}
	tests := []struct {
		name    string
		token   string
		channel string
		opts    []slack.MsgOption
		want    string
	}{
		{name: "no text", token: fakeslack.BotToken, channel: "C1", want: "no_text"},
		{name: "only empty blocks", token: fakeslack.BotToken, channel: "C1", opts: []slack.MsgOption{slack.MsgOptionBlocks()}, want: "no_text"},
		{name: "not in channel", token: fakeslack.BotToken, channel: "CNOTIN", opts: []slack.MsgOption{slack.MsgOptionText("hi", false)}, want: "not_in_channel"},
		{name: "no channel", token: fakeslack.BotToken, opts: []slack.MsgOption{slack.MsgOptionText("hi", false)}, want: "channel_not_found"},
		{name: "wrong token", token: "xoxb-wrong", channel: "C1", opts: []slack.MsgOption{slack.MsgOptionText("hi", false)}, want: "invalid_auth"},
		{name: "no token", token: "", channel: "C1", opts: []slack.MsgOption{slack.MsgOptionText("hi", false)}, want: "not_authed"},
		{name: "app token", token: fakeslack.AppToken, channel: "C1", opts: []slack.MsgOption{slack.MsgOptionText("hi", false)}, want: "not_allowed_token_type"},
		{name: "51 blocks", token: fakeslack.BotToken, channel: "C1", opts: []slack.MsgOption{slack.MsgOptionBlocks(dividers...)}, want: "invalid_blocks"},
		{name: "text too long", token: fakeslack.BotToken, channel: "C1", opts: []slack.MsgOption{slack.MsgOptionText(strings.Repeat("x", 40001), false)}, want: "msg_too_long"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake := fakeslack.New(t)
			fake.SetNotInChannel("CNOTIN")
			_, _, err := newClient(fake, tc.token).PostMessageContext(context.Background(), tc.channel, tc.opts...)
			var slackErr slack.SlackErrorResponse
			require.ErrorAs(t, err, &slackErr)
			assert.Equal(t, tc.want, slackErr.Err, "got error %q, want %q", slackErr.Err, tc.want)
			assert.Empty(t, fake.Messages(), "a rejected post stores nothing")
			calls := fake.Calls("chat.postMessage")
			require.Len(t, calls, 1)
			assert.Equal(t, tc.want, calls[0].Error)
			assert.Equal(t, tc.token, calls[0].Token)
		})
	}
}

func TestInvalidBlocksExplainsLikeSlack(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	long := slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, strings.Repeat("a", 3001), false, false), nil, nil)
	_, _, err := newClient(fake, fakeslack.BotToken).PostMessage("C1", slack.MsgOptionBlocks(long))
	var slackErr slack.SlackErrorResponse
	require.ErrorAs(t, err, &slackErr)
	assert.Equal(t, "invalid_blocks", slackErr.Err)
	require.Len(t, slackErr.ResponseMetadata.Messages, 1)
	assert.Equal(t, "[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]", slackErr.ResponseMetadata.Messages[0])
	assert.Contains(t, fake.Calls("chat.postMessage")[0].Detail, "/blocks/0/text/text")
}

func TestUpdateUnknownMessage(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	api := newClient(fake, fakeslack.BotToken)
	_, ts, err := api.PostMessage("C1", slack.MsgOptionText("hi", false))
	require.NoError(t, err)

	tests := []struct{ name, channel, ts string }{
		{name: "unknown ts", channel: "C1", ts: "1600000000.000100"},
		{name: "other channel", channel: "C2", ts: ts},
	}
	for _, tc := range tests {
		_, _, _, err := api.UpdateMessage(tc.channel, tc.ts, slack.MsgOptionText("new", false))
		var slackErr slack.SlackErrorResponse
		require.ErrorAs(t, err, &slackErr, tc.name)
		assert.Equal(t, "message_not_found", slackErr.Err, tc.name)
	}
	assert.Equal(t, "hi", fake.Messages()[0].Text)
}

// postRaw posts a form to the fake the way any Slack client could.
func postRaw(t *testing.T, endpoint string, form url.Values) map[string]any {
	t.Helper()
	resp, err := http.PostForm(endpoint, form)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	var body map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	return body
}

func TestRawRequests(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	tests := []struct {
		name   string
		method string
		form   url.Values
		want   map[string]any
	}{
		{name: "unknown method", method: "users.list", form: url.Values{"token": {fakeslack.BotToken}},
			want: map[string]any{"ok": false, "error": "unknown_method"}},
		{name: "zero length upload", method: "files.getUploadURLExternal",
			form: url.Values{"token": {fakeslack.BotToken}, "filename": {"a.csv"}, "length": {"0"}},
			want: map[string]any{"ok": false, "error": "invalid_arguments"}},
		{name: "token in form", method: "auth.test", form: url.Values{"token": {fakeslack.BotToken}},
			want: map[string]any{"ok": true, "url": "https://fake.slack.com/", "team": "Fake", "user": "analyticsbot",
				"team_id": fakeslack.TeamID, "user_id": fakeslack.BotUserID, "bot_id": fakeslack.BotID}},
	}
	for _, tc := range tests {
		got := postRaw(t, fake.APIURL()+tc.method, tc.form)
		assert.Equal(t, tc.want, got, tc.name)
	}
}

func TestJSONBody(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	body := `{"channel":"C9","text":"hello","blocks":[{"type":"divider"}],"unfurl_links":false}`
	req, err := http.NewRequest(http.MethodPost, fake.APIURL()+"chat.postMessage", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("Authorization", "Bearer "+fakeslack.BotToken)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"ok":true`)

	calls := fake.Calls("chat.postMessage")
	require.Len(t, calls, 1)
	assert.Equal(t, url.Values{"channel": {"C9"}, "text": {"hello"}, "blocks": {`[{"type":"divider"}]`}, "unfurl_links": {"false"}}, calls[0].Args)
	assert.Equal(t, fakeslack.BotToken, calls[0].Token)
	assert.JSONEq(t, `[{"type":"divider"}]`, string(fake.Messages()[0].Blocks))
}

func TestUploadFile(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	api := newClient(fake, fakeslack.BotToken)
	content := make([]byte, 70000)
	for i := range content {
		content[i] = byte(i * 7) // every byte value, well past one multipart buffer
	}

	sum, err := api.UploadFileContext(context.Background(), slack.UploadFileParameters{
		Reader: bytes.NewReader(content), FileSize: len(content), Filename: "result.csv", Title: "Result",
		Channel: "C1", ThreadTimestamp: "1700000000.000100", InitialComment: "Here is the CSV.",
	})
	require.NoError(t, err)

	got := fake.WaitFile(t, func(f fakeslack.File) bool { return f.Name == "result.csv" })
	assert.Equal(t, sum.ID, got.ID)
	assert.Equal(t, "Result", sum.Title)
	assert.True(t, bytes.Equal(content, got.Content), "uploaded %d bytes, stored %d", len(content), len(got.Content))
	assert.Equal(t, fakeslack.File{ID: sum.ID, Name: "result.csv", Title: "Result", Channel: "C1",
		ThreadTS: "1700000000.000100", InitialComment: "Here is the CSV.", Content: got.Content}, got)

	_, err = api.UploadFileContext(context.Background(), slack.UploadFileParameters{
		Content: "a,b\n1,2\n", FileSize: 8, Filename: "small.csv", Channel: "C1",
	})
	require.NoError(t, err)
	files := fake.Files()
	require.Len(t, files, 2)
	assert.Equal(t, "a,b\n1,2\n", string(files[1].Content))
	assert.Equal(t, "small.csv", files[1].Title, "an untitled file is titled by its name")
	assert.Len(t, fake.Calls("upload"), 2)

	_, err = api.CompleteUploadExternalContext(context.Background(), slack.CompleteUploadExternalParameters{
		Files: []slack.FileSummary{{ID: "FNOTTHERE"}}, Channel: "C1",
	})
	var slackErr slack.SlackErrorResponse
	require.ErrorAs(t, err, &slackErr)
	assert.Equal(t, "file_not_found", slackErr.Err)
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	api := newClient(fake, fakeslack.BotToken)
	fake.RateLimitNext("chat.postMessage", 2, 7)

	for i := range 2 {
		_, _, err := api.PostMessage("C1", slack.MsgOptionText("hi", false))
		var rl *slack.RateLimitedError
		require.ErrorAs(t, err, &rl, "call %d", i)
		assert.Equal(t, 7*time.Second, rl.RetryAfter)
	}
	_, _, err := api.PostMessage("C1", slack.MsgOptionText("hi", false))
	require.NoError(t, err, "the third call is past the injected limit")

	var statuses []int
	for _, c := range fake.Calls("chat.postMessage") {
		statuses = append(statuses, c.Status)
	}
	assert.Equal(t, []int{429, 429, 200}, statuses)
	assert.Len(t, fake.Messages(), 1)
}

func TestInjectedFailures(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	api := newClient(fake, fakeslack.BotToken)
	ctx := context.Background()

	fake.FailNext("auth.test", 1, http.StatusServiceUnavailable)
	fake.ErrorNext("auth.test", 1, "fatal_error")
	_, err := api.AuthTestContext(ctx)
	var codeErr slack.StatusCodeError
	require.ErrorAs(t, err, &codeErr, "the failures are used in the order they were injected")
	assert.Equal(t, http.StatusServiceUnavailable, codeErr.Code)
	_, err = api.AuthTestContext(ctx)
	assert.EqualError(t, err, "fatal_error")
	auth, err := api.AuthTestContext(ctx)
	require.NoError(t, err)
	assert.Equal(t, fakeslack.BotUserID, auth.UserID)
	assert.Equal(t, fakeslack.BotID, auth.BotID)
	assert.Equal(t, fakeslack.TeamID, auth.TeamID)
	var outcomes []string
	for _, c := range fake.Calls("auth.test") {
		outcomes = append(outcomes, fmt.Sprintf("%d %s", c.Status, c.Error))
	}
	assert.Equal(t, []string{"503 ", "200 fatal_error", "200 "}, outcomes)

	fake.SetError("chat.postMessage", "channel_not_found")
	for range 2 {
		_, _, err = api.PostMessage("C1", slack.MsgOptionText("hi", false))
		assert.EqualError(t, err, "channel_not_found")
	}
	fake.SetError("chat.postMessage", "")
	_, _, err = api.PostMessage("C1", slack.MsgOptionText("hi", false))
	require.NoError(t, err)
}

// A deleted channel answers channel_not_found to every method naming it,
// conversations.members too, as Slack does; other channels are as they were.
func TestDeletedChannel(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	api := newClient(fake, fakeslack.BotToken)
	ctx := context.Background()
	fake.SetMembers("CGONE", "U1")
	fake.SetMembers("CHERE", "U1")
	fake.DeleteChannel("CGONE")
	_, _, err := api.GetUsersInConversationContext(ctx, &slack.GetUsersInConversationParameters{ChannelID: "CGONE"})
	assert.EqualError(t, err, "channel_not_found")
	_, _, err = api.PostMessageContext(ctx, "CGONE", slack.MsgOptionText("hi", false))
	assert.EqualError(t, err, "channel_not_found")
	_, err = api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: "CGONE"})
	assert.EqualError(t, err, "channel_not_found")
	members, _, err := api.GetUsersInConversationContext(ctx, &slack.GetUsersInConversationParameters{ChannelID: "CHERE"})
	require.NoError(t, err)
	assert.Equal(t, []string{"U1"}, members)
}

func TestAssistantStatus(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	api := newClient(fake, fakeslack.BotToken)
	ctx := context.Background()
	require.NoError(t, api.SetAssistantThreadsStatusContext(ctx, slack.AssistantThreadsSetStatusParameters{
		ChannelID: "D1", ThreadTS: "1700000000.000100", Status: "is thinking…", LoadingMessages: []string{"Reading the schema", "Running SQL"},
	}))
	require.NoError(t, api.SetAssistantThreadsStatusContext(ctx, slack.AssistantThreadsSetStatusParameters{
		ChannelID: "D1", ThreadTS: "1700000000.000100",
	}))
	err := api.SetAssistantThreadsStatusContext(ctx, slack.AssistantThreadsSetStatusParameters{ChannelID: "D1", Status: "x"})
	assert.EqualError(t, err, "invalid_arguments", "thread_ts is required")

	want := []fakeslack.Status{
		{Channel: "D1", ThreadTS: "1700000000.000100", Status: "is thinking…", LoadingMessages: []string{"Reading the schema", "Running SQL"}},
		{Channel: "D1", ThreadTS: "1700000000.000100"},
	}
	assert.Equal(t, want, fake.Statuses())
}

func TestWaitMessageSeesEveryState(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	api := newClient(fake, fakeslack.BotToken)

	posted := make(chan error, 1)
	go func() {
		_, ts, err := api.PostMessage("C1", slack.MsgOptionText("Thinking…", false))
		if err == nil {
			_, _, _, err = api.UpdateMessage("C1", ts, slack.MsgOptionText("Revenue was 12.", false))
		}
		posted <- err
	}()

	answer := fake.WaitMessage(t, "the answer", func(m fakeslack.Message) bool { return strings.HasPrefix(m.Text, "Revenue") })
	assert.Equal(t, 1, answer.Updates)
	placeholder := fake.WaitMessage(t, "the placeholder", func(m fakeslack.Message) bool { return m.Text == "Thinking…" })
	assert.Equal(t, 0, placeholder.Updates, "the placeholder is found as it was, though it has been replaced")
	assert.Equal(t, answer.TS, placeholder.TS)
	require.NoError(t, <-posted)

	calls := fake.WaitCalls(t, "chat.update", 1)
	assert.Equal(t, "Revenue was 12.", calls[0].Args.Get("text"))
}

func TestConnectionsOpenNeedsAppToken(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	tests := []struct {
		name, appToken, wantErr string
	}{
		{name: "app token", appToken: fakeslack.AppToken},
		{name: "bot token", appToken: fakeslack.BotToken, wantErr: "not_allowed_token_type"},
		{name: "no token", appToken: "", wantErr: "not_authed"},
	}
	for _, tc := range tests {
		api := slack.New(fakeslack.BotToken, slack.OptionAPIURL(fake.APIURL()), slack.OptionAppLevelToken(tc.appToken))
		_, wsURL, err := api.StartSocketModeContext(context.Background())
		if tc.wantErr != "" {
			assert.EqualError(t, err, tc.wantErr, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		assert.True(t, strings.HasPrefix(wsURL, "ws"+strings.TrimPrefix(fake.URL, "http")+"/socket?"), "got url %q", wsURL)
	}
}

// Streaming as Slack serves it: a reply in a thread, for one reader in a
// channel, whose text grows until it is stopped; no appends after that, no
// update while it streams.
func TestStreamMethods(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	api := newClient(fake, fakeslack.BotToken)
	ctx := context.Background()

	_, _, err := api.StartStreamContext(ctx, "C1", slack.MsgOptionTS("1.000"), slack.MsgOptionMarkdownText("x"))
	assert.ErrorContains(t, err, "invalid_arguments", "a channel needs the recipient")
	_, _, err = api.StartStreamContext(ctx, "D1", slack.MsgOptionMarkdownText("x"))
	assert.ErrorContains(t, err, "invalid_arguments", "streams are replies")

	_, ts, err := api.StartStreamContext(ctx, "C1", slack.MsgOptionTS("1.000"), slack.MsgOptionMarkdownText("**81"),
		slack.MsgOptionRecipientUserID("U1"), slack.MsgOptionRecipientTeamID(fakeslack.TeamID))
	require.NoError(t, err)
	_, _, _, err = api.UpdateMessageContext(ctx, "C1", ts, slack.MsgOptionText("y", false))
	assert.ErrorContains(t, err, "cant_update_message", "no update while it streams")
	_, _, err = api.AppendStreamContext(ctx, "C1", ts, slack.MsgOptionMarkdownText("60** games"))
	require.NoError(t, err)
	_, _, err = api.AppendStreamContext(ctx, "C1", ts, slack.MsgOptionMarkdownText(strings.Repeat("x", 12001)))
	assert.ErrorContains(t, err, "msg_too_long")
	_, _, err = api.StopStreamContext(ctx, "C1", ts)
	require.NoError(t, err)
	_, _, err = api.AppendStreamContext(ctx, "C1", ts, slack.MsgOptionMarkdownText("late"))
	assert.ErrorContains(t, err, "message_not_in_streaming_state")

	msgs := fake.Messages()
	require.Len(t, msgs, 1)
	assert.Equal(t, "**8160** games", msgs[0].Text)
	assert.Equal(t, "1.000", msgs[0].ThreadTS)
	assert.False(t, msgs[0].Streaming)
	assert.Equal(t, 1, msgs[0].Appends)

	_, _, err = api.DeleteMessageContext(ctx, "C1", ts)
	require.NoError(t, err)
	_, _, err = api.DeleteMessageContext(ctx, "C1", ts)
	assert.ErrorContains(t, err, "message_not_found")
}

// HoldMethod holds a method's calls until released, answering them as
// usual then; a caller that gives up is held no longer; other methods are
// not held.
func TestHoldMethod(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	fake.SetUserGroup("S0DATA", "UANA")
	api := newClient(fake, fakeslack.BotToken)
	release := fake.HoldMethod("usergroups.users.list")

	got := make(chan []string, 1)
	go func() {
		users, _ := api.GetUserGroupMembersContext(context.Background(), "S0DATA")
		got <- users
	}()
	fake.WaitHolding(t, "usergroups.users.list", 1)
	_, err := api.AuthTest()
	require.NoError(t, err, "another method is not held")
	select {
	case users := <-got:
		t.Fatalf("answered while held: %v", users)
	default:
	}
	assert.Empty(t, fake.Calls("usergroups.users.list"), "not answered while held")

	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() {
		_, err := api.GetUserGroupMembersContext(ctx, "S0DATA")
		gaveUp <- err
	}()
	fake.WaitHolding(t, "usergroups.users.list", 2)
	cancel()
	assert.Error(t, <-gaveUp)
	fake.WaitHolding(t, "usergroups.users.list", 1) // the call given up is held no longer

	release()
	assert.Equal(t, []string{"UANA"}, <-got, "answered once released")
	assert.Zero(t, fake.Holding("usergroups.users.list"))
	assert.Len(t, fake.Calls("usergroups.users.list"), 1, "the call given up is not answered")
}
