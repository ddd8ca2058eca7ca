package slackapp

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/bot"
)

const textCannotPost = "I can't post in this conversation. Invite me with `/invite @%s`, or ask me in a direct message."

// commandReply is the immediate answer to a slash command, shown only to
// the user who typed it.
type commandReply struct {
	ResponseType string        `json:"response_type"`
	Text         string        `json:"text"`
	Blocks       []slack.Block `json:"blocks,omitempty"`
}

func ephemeralReply(m blockkit.Message) commandReply {
	return commandReply{ResponseType: slack.ResponseTypeEphemeral, Text: m.Text, Blocks: m.Blocks}
}

// shows reports whether the reply holds a message; one that does not
// acknowledges the command with nothing shown (an empty body over HTTP, no
// payload over Socket Mode).
func (r commandReply) shows() bool { return r.Text != "" || len(r.Blocks) > 0 }

// helpReply is the help of the slash command, with the questions the bot
// can suggest to cmd's user (the demo's, or verified examples).
func (a *App) helpReply(cmd slack.SlashCommand) commandReply {
	ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
	defer cancel()
	questions := a.bot.HelpQuestions(ctx, bot.Message{UserID: cmd.UserID, ChannelID: cmd.ChannelID}, 4)
	return ephemeralReply(blockkit.Help(a.cfg.SlashCommand, a.bot.Config().Domain, questions))
}

// command is onCommand, whose panic (a bug) is answered as one: the
// command is acknowledged with "something went wrong", or Slack would
// send it again, to panic again.
func (a *App) command(cmd slack.SlashCommand, received time.Time) (reply commandReply) {
	if !a.survive("slash command", func() { reply = a.onCommand(cmd, received) }) {
		return ephemeralReply(blockkit.Error(textInternal, nil))
	}
	return reply
}

// onCommand answers a slash command at once and queues the question: it
// is posted in the channel and answered in the thread that starts. It asks
// Slack nothing: the access check, which may wait on Slack for the
// members of a user group, runs in the job, before the question is posted
// (postCommandQuestion). So a question is acknowledged with no message:
// whatever the check decides, the asker then reads one thing, the question
// posted or why it was not, and never a promise of an answer beside a
// refusal (Slack keeps an acknowledgement's message; a response URL cannot
// replace it).
func (a *App) onCommand(cmd slack.SlashCommand, received time.Time) commandReply {
	// Slack escapes a command's &, < and > as it does a message's; with
	// should_escape off (slack/manifest.yaml) mentions and links come as
	// typed, and plainText leaves those as they are.
	typed := plainText(cmd.Text, a.botUserID)
	text := typed.text
	switch {
	case cmd.Command != a.cfg.SlashCommand:
		return ephemeralReply(blockkit.Error("I don't know the command "+cmd.Command+". Try "+a.cfg.SlashCommand+" help.", nil))
	case bot.Blank(text) || strings.EqualFold(text, "help") || text == "?":
		return a.helpReply(cmd)
	case cmd.ChannelID == "" || cmd.UserID == "":
		return ephemeralReply(blockkit.Error(textInternal, nil))
	}
	if r, ok := a.schedulesCommand(cmd, text); ok {
		return r
	}
	q := question{channel: cmd.ChannelID, user: cmd.UserID, text: text, channels: typed.channels, received: received}
	key := ""
	if cmd.TriggerID != "" {
		key = "command:" + cmd.TriggerID
	}
	w := &answer{a: a, q: q, check: func(ctx context.Context, w *answer) bool {
		return a.postCommandQuestion(ctx, w, key, cmd.ResponseURL)
	}}
	// The thread does not exist yet: the command is its own queue.
	j := a.observed(w.job("command", "command:"+cmd.ChannelID+":"+firstNonEmpty(cmd.TriggerID, received.String())))
	report := j.report
	j.report = func(ctx context.Context, why error) {
		if w.q.threadTS == "" {
			a.respond(ctx, cmd.ResponseURL, blockkit.Error(whyText(why), nil))
		}
		report(ctx, why)
	}
	if err := a.disp.submit(j); err != nil {
		a.done(j.kind)
		return ephemeralReply(blockkit.Error(whyText(err), nil))
	}
	return commandReply{}
}

// postCommandQuestion posts the slash command's question in the channel,
// so that the answer has a thread to go to. Someone the access file
// refuses is told why through the command's response URL, and nothing is
// posted for the channel to see.
func (a *App) postCommandQuestion(ctx context.Context, w *answer, key, responseURL string) bool {
	if !a.dedupe.claim(ctx, key) {
		return false
	}
	q := w.q
	m := bot.Message{UserID: q.user, ChannelID: q.channel, Text: q.text}
	var ref *access.Refusal
	if err := a.bot.Admit(ctx, m); errors.As(err, &ref) {
		a.respond(ctx, responseURL, blockkit.Error(ref.Reason, nil))
		a.bot.LogRefusal(ctx, m, ref) // logs why, when Slack did not list a user group
		return false
	}
	ts, err := a.post(ctx, q.channel, "", blockkit.Asked(q.user, q.text))
	if err != nil {
		a.log.WarnContext(ctx, "slash command: cannot post the question", "channel", q.channel, "err", err)
		text := textInternal
		if cannotPost(err) {
			text = strings.Replace(textCannotPost, "%s", a.botName(), 1)
		}
		a.respond(ctx, responseURL, blockkit.Error(text, nil))
		return false
	}
	w.q.ts, w.q.threadTS = ts, ts
	return true
}

// respond sends m to the response URL of a command or interaction, shown
// only to its user.
func (a *App) respond(ctx context.Context, responseURL string, m blockkit.Message) {
	if !a.trustedResponseURL(responseURL) {
		a.log.WarnContext(ctx, "no usable response URL: the user is not told", "text", m.Text)
		return
	}
	blocks := slack.Blocks{BlockSet: m.Blocks}
	err := slack.PostWebhookContext(ctx, responseURL, &slack.WebhookMessage{Text: m.Text, Blocks: &blocks, ResponseType: slack.ResponseTypeEphemeral})
	if err != nil {
		a.log.ErrorContext(ctx, "response URL post failed", "err", err)
	}
}

// cannotPost reports Slack refusing a post because of where it goes.
func cannotPost(err error) bool {
	var se slack.SlackErrorResponse
	if !errors.As(err, &se) {
		return false
	}
	switch se.Err {
	case "not_in_channel", "channel_not_found", "is_archived", "restricted_action", "ekm_access_denied":
		return true
	}
	return false
}

// whyCannotPost says, for a schedule's owner, why Slack will not take a
// post where it goes until someone acts: the channel archived, gone or
// hidden from the bot, the bot not in it, or the channel's settings; ""
// for any other error, which may pass.
func whyCannotPost(err error, botName string) string {
	var se slack.SlackErrorResponse
	if !errors.As(err, &se) {
		return ""
	}
	switch se.Err {
	case "is_archived":
		return "the channel is archived"
	case "not_in_channel":
		return "I'm not in that channel: invite me with /invite @" + botName
	case "channel_not_found":
		// Slack says so of a private channel the bot is not in, too.
		return "I can't find that channel: it was deleted, or it is private and I'm not in it (invite me with /invite @" + botName + ")"
	case "restricted_action":
		return "the channel's settings don't let me post there"
	}
	return ""
}

func (a *App) botName() string {
	if a.botUser != "" {
		return a.botUser
	}
	return "analyticsbot"
}
