package fakeslack

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// VerificationToken is the legacy verification token in the payloads the
// builders make.
const VerificationToken = "fake-verification-token"

// Response URLs the package-level builders put in payloads; they lead
// nowhere. The Server's builders use ResponseURL instead.
const (
	fakeActionResponseURL  = "https://hooks.slack.com/actions/" + TeamID + "/1000000001/fakeactionresponse"
	fakeCommandResponseURL = "https://hooks.slack.com/commands/" + TeamID + "/1000000002/fakecommandresponse"
)

var (
	payloadSeq  atomic.Int64
	lastActionT atomic.Int64 // microseconds of the last action_ts handed out
)

// newTriggerID returns a trigger id in Slack's form. Like Slack's, each is
// unique, also across test processes: apps deduplicate deliveries by it,
// possibly in a database the processes share.
func newTriggerID() string {
	n := payloadSeq.Add(1)
	return fmt.Sprintf("%d.%d.%s", 1700000000+n, 1000000000+n, randomHex(16))
}

// newActionTS returns the current time as an action_ts, later than any
// handed out before.
func newActionTS() string {
	for {
		last, now := lastActionT.Load(), time.Now().UnixMicro()
		now = max(now, last+1)
		if lastActionT.CompareAndSwap(last, now) {
			return fmt.Sprintf("%d.%06d", now/1_000_000, now%1_000_000)
		}
	}
}

// newUUID returns a random version 4 UUID, the form of Slack's envelope ids.
func newUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// EventCallback wraps an inner event in the Events API envelope Slack sends
// (type "event_callback"), ready for Envelope.Payload. It panics if event
// cannot be marshalled.
func EventCallback(eventID string, event any) json.RawMessage {
	return mustJSON(map[string]any{
		"token":                 VerificationToken,
		"team_id":               TeamID,
		"context_team_id":       TeamID,
		"api_app_id":            AppID,
		"event":                 event,
		"type":                  "event_callback",
		"event_id":              eventID,
		"event_time":            time.Now().Unix(),
		"event_context":         "4-fake-" + eventID,
		"is_ext_shared_channel": false,
		"authorizations": []map[string]any{{
			"enterprise_id":         nil,
			"team_id":               TeamID,
			"user_id":               BotUserID,
			"is_bot":                true,
			"is_enterprise_install": false,
		}},
	})
}

// AppMention is an app_mention event, as Slack sends it when user mentions
// the bot; threadTS is left out when "".
func AppMention(channel, user, text, ts, threadTS string) map[string]any {
	e := userMessage(channel, user, text, ts, threadTS)
	e["type"] = "app_mention"
	return e
}

// MessageEvent is a message event from a user; channelType is "im",
// "channel", "group" or "mpim". threadTS is left out when "".
func MessageEvent(channel, channelType, user, text, ts, threadTS string) map[string]any {
	e := userMessage(channel, user, text, ts, threadTS)
	e["type"] = "message"
	e["channel_type"] = channelType
	return e
}

// AssistantThreadStarted is the event of a user opening a new thread with
// the app in Slack's assistant view (a DM channel).
func AssistantThreadStarted(channel, user, threadTS string) map[string]any {
	return map[string]any{
		"type": "assistant_thread_started",
		"assistant_thread": map[string]any{
			"user_id": user, "channel_id": channel, "thread_ts": threadTS,
			"context": map[string]any{"channel_id": "", "team_id": TeamID, "enterprise_id": ""},
		},
		"event_ts": threadTS,
	}
}

// AppHomeOpened is the event of user opening a tab of the app's App Home:
// "messages" (their conversation with the app: under the Agent messaging
// experience, where a conversation starts), "home" or "about". channel is
// their DM with the app.
func AppHomeOpened(channel, user, tab string) map[string]any {
	return map[string]any{
		"type": "app_home_opened", "user": user, "channel": channel, "tab": tab,
		"event_ts": newActionTS(),
	}
}

// AppContextChanged is the event of user, with the app's conversation open
// (channel, their DM with the app), moving to another place in Slack:
// viewing is the channel they now see, "" for nowhere (Slack sends an empty
// context then).
func AppContextChanged(channel, user, viewing string) map[string]any {
	context := map[string]any{}
	if viewing != "" {
		context["entities"] = []map[string]any{{"type": "slack#/types/channel_id", "value": viewing, "team_id": TeamID}}
	}
	return map[string]any{
		"type": "app_context_changed", "user": user, "channel": channel,
		"context": context, "event_ts": newActionTS(),
	}
}

func userMessage(channel, user, text, ts, threadTS string) map[string]any {
	e := map[string]any{
		"client_msg_id": newUUID(),
		"user":          user,
		"text":          text,
		"ts":            ts,
		"team":          TeamID,
		"channel":       channel,
		"event_ts":      ts,
		"blocks":        richText(text),
	}
	if threadTS != "" {
		e["thread_ts"] = threadTS
	}
	return e
}

var userMention = regexp.MustCompile(`<@([A-Z0-9]+)(\|[^>]*)?>`)

// richText is the rich_text block Slack adds to a user's message: user
// mentions become user elements, the rest text elements.
func richText(text string) []map[string]any {
	var elems []map[string]any
	last := 0
	for _, m := range userMention.FindAllStringSubmatchIndex(text, -1) {
		if m[0] > last {
			elems = append(elems, map[string]any{"type": "text", "text": text[last:m[0]]})
		}
		elems = append(elems, map[string]any{"type": "user", "user_id": text[m[2]:m[3]]})
		last = m[1]
	}
	if last < len(text) {
		elems = append(elems, map[string]any{"type": "text", "text": text[last:]})
	}
	return []map[string]any{{
		"type":     "rich_text",
		"block_id": "fake" + strconv.Itoa(len(text)),
		"elements": []map[string]any{{"type": "rich_text_section", "elements": elems}},
	}}
}

// BlockAction is the block_actions payload of a click on a button
// (action_id actionID, value value, in block "answer_actions:"+value) in
// the bot's message messageTS; threadTS is left out when "". Its
// response_url leads nowhere: use Server.BlockAction for one on the fake.
func BlockAction(user, channel, messageTS, threadTS, actionID, value string) json.RawMessage {
	return blockAction(fakeActionResponseURL, nil, user, channel, messageTS, threadTS, actionID, value)
}

// blockAction builds the payload; msg, when known, supplies the message's
// text and blocks and the clicked button's text and block id.
func blockAction(responseURL string, msg *Message, user, channel, messageTS, threadTS, actionID, value string) json.RawMessage {
	ephemeral := msg != nil && msg.Ephemeral
	container := map[string]any{"type": "message", "message_ts": messageTS, "channel_id": channel, "is_ephemeral": ephemeral}
	message := map[string]any{"type": "message", "ts": messageTS, "user": BotUserID, "bot_id": BotID, "app_id": AppID, "team": TeamID, "text": ""}
	if threadTS != "" {
		container["thread_ts"] = threadTS
		message["thread_ts"] = threadTS
	}
	blockID := "answer_actions:" + value
	var buttonText any = map[string]any{"type": "plain_text", "text": actionID, "emoji": true}
	action := map[string]any{"type": "button", "action_id": actionID, "value": value, "action_ts": newActionTS()}
	if msg != nil {
		message["text"] = msg.Text
		if msg.Blocks != nil {
			message["blocks"] = msg.Blocks
		}
		if id, typ, text, found := findButton(msg.Blocks, actionID); found {
			blockID, buttonText, action["type"] = id, text, typ
		}
	}
	action["block_id"] = blockID
	if action["type"] == "button" {
		// A feedback button's action has no text: the value says which.
		action["text"] = buttonText
	}
	payload := map[string]any{
		"type":                  "block_actions",
		"token":                 VerificationToken,
		"user":                  map[string]any{"id": user, "username": "user-" + user, "name": "user-" + user, "team_id": TeamID},
		"api_app_id":            AppID,
		"container":             container,
		"trigger_id":            newTriggerID(),
		"team":                  map[string]any{"id": TeamID, "domain": "fake"},
		"enterprise":            nil,
		"is_enterprise_install": false,
		"channel":               map[string]any{"id": channel, "name": "fake-channel"},
		"message":               message,
		"state":                 map[string]any{"values": map[string]any{}},
		"response_url":          responseURL,
		"actions":               []map[string]any{action},
	}
	if ephemeral {
		delete(payload, "message") // Slack sends none for an ephemeral message
	}
	return mustJSON(payload)
}

// findButton finds the element with actionID in the blocks and returns its
// block's id, its type and its text object (none for feedback buttons).
func findButton(blocks json.RawMessage, actionID string) (blockID, typ string, text any, found bool) {
	var parsed []struct {
		BlockID  string `json:"block_id"`
		Elements []struct {
			Type     string          `json:"type"`
			ActionID string          `json:"action_id"`
			Text     json.RawMessage `json:"text"`
		} `json:"elements"`
	}
	if json.Unmarshal(blocks, &parsed) != nil {
		return "", "", nil, false
	}
	for _, b := range parsed {
		for _, e := range b.Elements {
			switch {
			case e.ActionID != actionID || b.BlockID == "":
			case e.Type == "feedback_buttons":
				return b.BlockID, e.Type, nil, true
			case len(e.Text) > 0:
				return b.BlockID, "button", e.Text, true
			}
		}
	}
	return "", "", nil, false
}

// SlashCommand is the fields Slack sends for a slash command: as a form over
// HTTP, as a JSON object of strings over Socket Mode. Its response_url leads
// nowhere: use Server.SlashCommand for one on the fake.
func SlashCommand(command, text, user, channel string) map[string]string {
	return slashCommand(fakeCommandResponseURL, command, text, user, channel)
}

func slashCommand(responseURL, command, text, user, channel string) map[string]string {
	return map[string]string{
		"token":                 VerificationToken,
		"team_id":               TeamID,
		"team_domain":           "fake",
		"channel_id":            channel,
		"channel_name":          "fake-channel",
		"user_id":               user,
		"user_name":             "user-" + user,
		"command":               command,
		"text":                  text,
		"api_app_id":            AppID,
		"is_enterprise_install": "false",
		"response_url":          responseURL,
		"trigger_id":            newTriggerID(),
	}
}

// SignedRequest builds a POST of body to url signed the way Slack signs HTTP
// deliveries: X-Slack-Request-Timestamp is at in Unix seconds and
// X-Slack-Signature is "v0=" + hex HMAC-SHA256 of "v0:<timestamp>:<body>"
// under secret.
func SignedRequest(t testing.TB, secret, url, contentType string, body []byte, at time.Time) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatalf("fakeslack: SignedRequest(%q): %v", url, err)
	}
	ts := strconv.FormatInt(at.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%s:", ts)
	mac.Write(body)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
	return req
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("fakeslack: marshal payload: %v", err))
	}
	return b
}
