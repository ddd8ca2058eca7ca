package slackapp

import (
	"context"
	"fmt"

	"github.com/slack-go/slack"

	reply "github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/bot"
)

// Replies for their asker alone. In a channel whose ceiling caps the
// asker's policy (docs/access.md), an answer beyond the ceiling reaches
// its asker as an ephemeral message in the thread (or, when Slack refuses
// that, in their direct message with the bot), and the thread gets the
// reply's Note; the presses on it answer the same way, and its CSV
// goes to their direct messages, since Slack has no file only one member
// of a channel sees.

// What the presser of a private answer's Export CSV reads.
const (
	textCSVInDM    = "I sent you the CSV in a direct message: it holds more than this channel may see."
	textCSVNotInDM = "I couldn't send you the CSV in a direct message. Please try again in a moment."
)

// textPrivately is what the thread reads of a reply for its asker alone
// that carries no note of its own.
const textPrivately = "I replied privately."

// privateNote is what the thread reads in place of r, its asker's alone.
func (a *App) privateNote(r bot.Reply) blockkit.Message {
	if r.Note == nil {
		return blockkit.Reply(&reply.Answer{Kind: reply.KindNotice, Text: reply.Plain(textPrivately)})
	}
	return blockkit.Reply(r.Note)
}

// privateAnswer shows the reply m of q's asker to them alone in q's
// thread; when Slack refuses the ephemeral message, it goes to their
// direct message with the bot, without the buttons, which act on the
// channel's thread.
func (a *App) privateAnswer(ctx context.Context, q question, r bot.Reply) error {
	m, inDM := a.reply(r), a.reply(r)
	if r.Answer != nil {
		m, inDM = blockkit.Reply(privateReply(r.Answer, false)), blockkit.Reply(privateReply(r.Answer, true))
	}
	opts := []slack.MsgOption{slack.MsgOptionText(m.Text, false), slack.MsgOptionBlocks(m.Blocks...), slack.MsgOptionTS(q.threadTS)}
	_, err := a.api.PostEphemeralContext(ctx, q.channel, q.user, opts...)
	if err == nil {
		return nil
	}
	a.log.WarnContext(ctx, "private answer not shown in the thread: sending it in a direct message", "channel", q.channel, "err", err)
	if _, err := a.post(ctx, q.user, "", inDM); err != nil {
		return fmt.Errorf("private answer: %w", err)
	}
	return nil
}

// privateReply is r as its asker alone sees it: without the questions to
// ask next, whose buttons would post them in the channel's thread; in a
// direct message without any button.
func privateReply(r *reply.Answer, dm bool) *reply.Answer {
	out := *r
	out.FollowUps, out.Questions = nil, nil
	if dm {
		out.Actions, out.QueryID, out.Feedback = nil, "", false
	}
	return &out
}

// privately shows m to the presser alone where they pressed: through the
// press's response URL, which answers in the place of the message pressed
// (its thread included), else as an ephemeral message.
func (a *App) privately(ctx context.Context, p press, m blockkit.Message) (delivered bool) {
	if a.trustedResponseURL(p.responseURL) {
		blocks := slack.Blocks{BlockSet: m.Blocks}
		err := slack.PostWebhookContext(ctx, p.responseURL, &slack.WebhookMessage{Text: m.Text, Blocks: &blocks, ResponseType: slack.ResponseTypeEphemeral})
		if err == nil {
			return true
		}
		a.log.WarnContext(ctx, "private reply through the response URL failed", "channel", p.channel, "err", err)
	}
	return a.ephemeral(ctx, p.channel, p.threadTS, p.user, "", m)
}

// privateCSV sends the export of a private answer to the presser's direct
// message with the bot (a post to their user id opens it) and tells them
// so where they pressed.
func (a *App) privateCSV(ctx context.Context, p press, r bot.Reply) (delivered bool) {
	heading := blockkit.Reply(&reply.Answer{Kind: reply.KindNotice,
		Text: reply.Mentions(reply.ParseText(fmt.Sprintf("The CSV you asked for in <#%s>:", p.channel)))})
	dm, ts, err := a.postIn(ctx, p.user, "", heading)
	if err == nil {
		err = a.uploadCSV(ctx, press{channel: dm, threadTS: ts, user: p.user}, r)
	}
	if err != nil {
		a.log.ErrorContext(ctx, "private CSV not delivered", "channel", p.channel, "err", err)
		a.privately(ctx, p, blockkit.Error(textCSVNotInDM, nil))
		return false
	}
	a.privately(ctx, p, blockkit.Reply(&reply.Answer{Kind: reply.KindNotice, Text: reply.Plain(textCSVInDM)}))
	return true
}
