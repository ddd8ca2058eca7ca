package slackapp

import (
	"context"
	"errors"
	"fmt"

	"github.com/slack-go/slack"

	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// What users read when their message could not be answered normally.
const (
	textBusy        = "I'm answering a lot of questions right now and couldn't take yours. Please ask again in a minute."
	textStopping    = "I was restarting and couldn't answer your message. Please ask again."
	textInterrupted = "I was restarting and had to stop answering this. Please ask again."
	textInternal    = "Something went wrong on my side while answering. Please try again; if it keeps happening, tell whoever runs me."
)

// answerQuestion answers a message event, unless another delivery of it was
// handled already or it is a thread reply in a thread the bot is not part of.
func (a *App) answerQuestion(ctx context.Context, q question) {
	tid := threadID(q.channel, q.threadTS)
	log := a.log.With("channel", q.channel, "thread", q.threadTS, "ts", q.ts)
	if q.followUpOnly {
		known, err := a.bot.DB().HasThread(ctx, tid)
		if err != nil {
			// Without the store we cannot tell whether the bot is part of
			// this thread; staying quiet beats answering strangers.
			log.WarnContext(ctx, "thread reply not answered: cannot look up the thread", "err", err)
			return
		}
		if !known {
			return
		}
	}
	if !a.dedupe.claim(ctx, "message:"+q.channel+":"+q.ts) {
		log.DebugContext(ctx, "message already handled")
		return
	}
	a.answerInThread(ctx, q)
}

// answerInThread runs the workflow for q with live progress and replies in
// q's thread, replacing the progress message.
func (a *App) answerInThread(ctx context.Context, q question) {
	tid := threadID(q.channel, q.threadTS)
	log := a.log.With("channel", q.channel, "thread", q.threadTS, "ts", q.ts)
	p := a.startProgress(ctx, q)
	s, _, err := a.bot.Ask(ctx, bot.Message{ThreadID: tid, UserID: q.user, ChannelID: q.channel, Text: q.text}, workflow.WithObserver(p))
	p.stop()

	msg, sendCtx := a.reply(s, err), ctx
	if ctx.Err() != nil {
		msg = blockkit.Error(textInterrupted, nil)
		var cancel context.CancelFunc
		sendCtx, cancel = context.WithTimeout(context.WithoutCancel(ctx), reportTimeout)
		defer cancel()
	}
	if err != nil {
		log.ErrorContext(ctx, "answer failed", "err", err)
	}
	if err := a.send(sendCtx, q.channel, q.threadTS, p.workingTS, msg); err != nil {
		log.ErrorContext(ctx, "answer not delivered", "err", err)
	}
}

// reply is the message for the workflow's final state. A run that failed
// before writing a reply gets the generic apology.
func (a *App) reply(s *nodes.State, err error) blockkit.Message {
	if s == nil || len(s.Blocks) == 0 {
		return blockkit.Error(textInternal, nil)
	}
	text := s.ResponseText
	if text == "" {
		text = blockkit.PlainText(s.Blocks)
	}
	return blockkit.Message{Text: text, Blocks: s.Blocks}
}

// reportNotAnswered tells the user in the thread that their message will
// not be answered, and why.
func (a *App) reportNotAnswered(ctx context.Context, q question, why error) {
	text := textInternal
	switch {
	case errors.Is(why, errBusy):
		text = textBusy
	case errors.Is(why, errStopping):
		text = textStopping
	}
	if err := a.send(ctx, q.channel, q.threadTS, "", blockkit.Error(text, nil)); err != nil {
		a.log.ErrorContext(ctx, "could not tell the user their message was not answered",
			"channel", q.channel, "thread", q.threadTS, "why", why, "err", err)
	}
}

// send posts m in the thread, or replaces the message updateTS with it.
// Slack refuses blocks it finds invalid; the plain-text rendering then
// goes instead, so the user always gets the content.
func (a *App) send(ctx context.Context, channel, threadTS, updateTS string, m blockkit.Message) error {
	if updateTS != "" {
		err := a.update(ctx, channel, updateTS, m)
		if err == nil {
			return nil
		}
		// The progress message may have been deleted: post a new one.
		a.log.WarnContext(ctx, "replace the progress message", "channel", channel, "ts", updateTS, "err", err)
	}
	_, err := a.post(ctx, channel, threadTS, m)
	return err
}

// post sends m as a new message in the thread and returns its timestamp.
func (a *App) post(ctx context.Context, channel, threadTS string, m blockkit.Message) (string, error) {
	opts := []slack.MsgOption{slack.MsgOptionText(m.Text, false), slack.MsgOptionBlocks(m.Blocks...)}
	if threadTS != "" {
		opts = append(opts, slack.MsgOptionTS(threadTS))
	}
	_, ts, err := a.api.PostMessageContext(ctx, channel, opts...)
	if isInvalidBlocks(err) && len(m.Blocks) > 0 {
		a.log.ErrorContext(ctx, "slack refused the blocks: sending plain text", "channel", channel, "err", err)
		_, ts, err = a.api.PostMessageContext(ctx, channel, append(plainOptions(m), slack.MsgOptionTS(threadTS))...)
	}
	if err != nil {
		return "", fmt.Errorf("chat.postMessage in %s: %w", channel, err)
	}
	return ts, nil
}

func (a *App) update(ctx context.Context, channel, ts string, m blockkit.Message) error {
	_, _, _, err := a.api.UpdateMessageContext(ctx, channel, ts, slack.MsgOptionText(m.Text, false), slack.MsgOptionBlocks(m.Blocks...))
	if isInvalidBlocks(err) && len(m.Blocks) > 0 {
		a.log.ErrorContext(ctx, "slack refused the blocks: sending plain text", "channel", channel, "err", err)
		_, _, _, err = a.api.UpdateMessageContext(ctx, channel, ts, plainOptions(m)...)
	}
	if err != nil {
		return fmt.Errorf("chat.update of %s in %s: %w", ts, channel, err)
	}
	return nil
}

// maxPlainText keeps the plain-text fallback under Slack's 40,000
// characters with room for the note.
const maxPlainText = 39000

// plainOptions render m without blocks, as a code block so tables keep
// their columns. An empty block list clears the blocks of an updated
// message.
func plainOptions(m blockkit.Message) []slack.MsgOption {
	text := blockkit.PlainText(m.Blocks)
	if r := []rune(text); len(r) > maxPlainText {
		text = string(r[:maxPlainText]) + "\n… (cut)"
	}
	return []slack.MsgOption{slack.MsgOptionText("```\n"+text+"\n```", false), slack.MsgOptionBlocks()}
}

// isInvalidBlocks reports Slack refusing a message's blocks.
func isInvalidBlocks(err error) bool {
	var se slack.SlackErrorResponse
	return errors.As(err, &se) && (se.Err == "invalid_blocks" || se.Err == "invalid_blocks_format" || se.Err == "msg_too_long")
}
