package slackapp

import (
	"context"
	"errors"
	"fmt"

	"github.com/slack-go/slack"

	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/bot"
)

// What users read when their message could not be answered normally.
const (
	textBusy        = "I'm answering a lot of questions right now and couldn't take yours. Please ask again in a minute."
	textStopping    = "I was restarting and couldn't answer your message. Please ask again."
	textInterrupted = "I was restarting and had to stop answering this. Please ask again."
	textInternal    = "Something went wrong on my side while answering. Please try again; if it keeps happening, tell whoever runs me."
)

// answer is the work of answering one question, in two steps. prepare is
// cheap and runs as soon as the question is next in its thread: it checks
// the question is for the bot, claims it, and shows the first progress
// update, so a user sees a reaction at once even while every worker is
// busy. run then answers in a worker slot.
type answer struct {
	a *App
	q question
	// check, when set, replaces the checks of a message event: a slash
	// command posts the question first and answers in its thread.
	check func(ctx context.Context, w *answer) bool
	p     *progress
	// awaitFirst says the question is not its thread's first: its answer
	// waits for the first one's turn, which another process may be writing.
	// first says it is, and its end is recorded for those waiting.
	awaitFirst, first bool
}

// job returns the dispatcher job of the answer.
func (w *answer) job(kind, thread string) job {
	return job{thread: thread, kind: kind, prepare: w.prepare, run: w.run, report: w.report}
}

// prepare reports whether the question is to be answered: not when another
// delivery of it was handled already, nor when it is a reply in a thread
// the bot is not part of. A question it takes records its thread before
// the first progress shows.
func (w *answer) prepare(ctx context.Context) bool {
	ok := false
	if w.check != nil {
		ok = w.check(ctx, w)
	} else {
		ok = w.checkMessage(ctx)
	}
	if !ok {
		return false
	}
	if !w.q.dm {
		w.awaitFirst = w.enterThread(ctx)
	}
	w.p = w.a.startProgress(ctx, w.q)
	return true
}

// enterThread records that the bot was asked in the question's thread, so
// that every process sharing the database answers replies in it from now
// on, though no answer of it is saved yet; Slack may send a reply to
// another process than the one answering. It reports whether the question
// follows up an earlier one, whose answer it then waits for.
func (w *answer) enterThread(ctx context.Context) bool {
	a, q := w.a, w.q
	if q.followUpOnly {
		return true // checkMessage found the thread known
	}
	first, err := a.bot.AskedInThread(ctx, threadID(q.channel, q.threadTS), q.user)
	if err != nil {
		// The answer's saved turn will make the thread known instead.
		a.log.WarnContext(ctx, "thread not recorded: other processes ignore replies in it until its answer is saved",
			"channel", q.channel, "thread", q.threadTS, "err", err)
		return false
	}
	w.first = first
	return !first
}

func (w *answer) checkMessage(ctx context.Context) bool {
	a, q := w.a, w.q
	if q.followUpOnly {
		known, err := a.bot.KnowsThread(ctx, threadID(q.channel, q.threadTS))
		if err != nil {
			// Without the store we cannot tell whether the bot is part of
			// this thread; staying quiet beats answering strangers.
			a.log.WarnContext(ctx, "thread reply not answered: cannot look up the thread", "channel", q.channel, "thread", q.threadTS, "err", err)
			return false
		}
		if !known {
			a.log.DebugContext(ctx, "thread reply not answered: the bot was not asked in this thread", "channel", q.channel, "thread", q.threadTS, "ts", q.ts)
			return false
		}
	}
	if !a.dedupe.claim(ctx, "message:"+q.channel+":"+q.ts) {
		a.log.DebugContext(ctx, "message already handled", "channel", q.channel, "ts", q.ts)
		return false
	}
	return true
}

// run answers the question with live progress in its thread, replacing
// the progress message.
func (w *answer) run(ctx context.Context) {
	a, q, p := w.a, w.q, w.p
	log := a.log.With("channel", q.channel, "thread", q.threadTS, "ts", q.ts)
	p.watch(ctx)
	st := p.st
	if st != nil {
		st.attach(ctx)
	}
	in := bot.Message{ThreadID: threadID(q.channel, q.threadTS), UserID: q.user, ChannelID: q.channel, Text: q.text, Channels: q.channels,
		Email: a.people.email(ctx, q.user), TimeZone: a.people.timeZone(ctx, q.user)}
	// The thread's first question may still be answered, here or by
	// another process: its answer is this one's history.
	if w.awaitFirst && a.bot.AwaitFirstTurn(ctx, in.ThreadID) {
		log.DebugContext(ctx, "waited for the answer of the thread's first question")
	}
	r, err := a.bot.Ask(ctx, in, p.options()...)
	defer r.Close()
	p.stop()
	w.firstDone(ctx)

	// A reply for its asker alone (beyond the channel's ceiling): the
	// thread reads its note, the asker the reply.
	msg, sendCtx := a.reply(r), ctx
	private := r.Private() && ctx.Err() == nil
	if private {
		msg = a.privateNote(r)
	}
	if ctx.Err() != nil {
		msg = blockkit.Error(textInterrupted, nil)
		var cancel context.CancelFunc
		sendCtx, cancel = context.WithTimeout(context.WithoutCancel(ctx), reportTimeout)
		defer cancel()
	}
	if err != nil {
		log.ErrorContext(ctx, "answer failed", "err", err)
	}
	// A streamed message becomes the answer, and the progress message goes
	// first; otherwise the answer replaces the progress message (or is
	// posted, when there is none left).
	workingTS := p.workingTS
	failed := err != nil || ctx.Err() != nil
	streamed := st != nil && st.finish(sendCtx, msg, failed, func() {
		a.deleteMessage(sendCtx, q.channel, workingTS)
		workingTS = ""
	})
	if !streamed {
		if err := a.send(sendCtx, q.channel, q.threadTS, workingTS, msg); err != nil {
			log.ErrorContext(ctx, "answer not delivered", "err", err)
		}
	}
	if private {
		if err := a.privateAnswer(sendCtx, q, r); err != nil {
			log.ErrorContext(ctx, "private answer not delivered", "err", err)
		}
	}
	if err == nil && r.NewThread && ctx.Err() == nil {
		a.setThreadTitle(ctx, q)
	}
}

// firstDone records, for the thread's first question, that it was answered
// or will not be: replies in the thread wait no longer, though no turn was
// saved (a schedule's list, a failure).
func (w *answer) firstDone(ctx context.Context) {
	if !w.first {
		return
	}
	w.first = false
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), reportTimeout)
	defer cancel()
	if err := w.a.bot.AnsweredInThread(ctx, threadID(w.q.channel, w.q.threadTS)); err != nil {
		w.a.log.WarnContext(ctx, "thread's first answer not recorded: replies in it may wait for it",
			"channel", w.q.channel, "thread", w.q.threadTS, "err", err)
	}
}

// report tells the user in the thread that the question will not be
// answered, and why, replacing the progress message if there is one.
func (w *answer) report(ctx context.Context, why error) {
	a, q := w.a, w.q
	if q.threadTS == "" {
		return // a slash command that never got its thread: respond handles it
	}
	w.firstDone(ctx)
	working, msg := "", blockkit.Error(whyText(why), nil)
	if w.p != nil {
		w.p.stop()
		working = w.p.workingTS
		if w.p.st != nil && w.p.st.finish(ctx, msg, true, func() {}) {
			return
		}
	}
	if err := a.send(ctx, q.channel, q.threadTS, working, msg); err != nil {
		a.log.ErrorContext(ctx, "could not tell the user their message was not answered",
			"channel", q.channel, "thread", q.threadTS, "why", why, "err", err)
	}
}

// reply is the message of r. A run that failed before writing a reply
// gets the generic apology.
func (a *App) reply(r bot.Reply) blockkit.Message {
	if r.Answer == nil {
		return blockkit.Error(textInternal, nil)
	}
	return blockkit.Reply(r.Answer)
}

// send posts m in the thread, or replaces the message updateTS with it.
// Slack refuses blocks it finds invalid; the plain-text rendering then
// goes instead, so the user always gets the content.
func (a *App) send(ctx context.Context, channel, threadTS, updateTS string, m blockkit.Message) error {
	if updateTS == "" {
		_, err := a.post(ctx, channel, threadTS, m)
		return err
	}
	err := a.update(ctx, channel, updateTS, m)
	if err == nil {
		return nil
	}
	// The progress message may have been deleted, or Slack would not
	// update it: post a new one, then delete the progress message, so the
	// thread does not keep a "⏳ …" beside the answer.
	a.log.WarnContext(ctx, "replace the progress message", "channel", channel, "ts", updateTS, "err", err)
	if _, err := a.post(ctx, channel, threadTS, m); err != nil {
		return err
	}
	a.deleteMessage(ctx, channel, updateTS)
	return nil
}

// post sends m as a new message in the thread and returns its timestamp.
func (a *App) post(ctx context.Context, channel, threadTS string, m blockkit.Message) (string, error) {
	_, ts, err := a.postIn(ctx, channel, threadTS, m)
	return ts, err
}

// postIn is post that also returns the channel Slack posted in: the DM's
// id for a post to a user id, the id for a channel's name.
func (a *App) postIn(ctx context.Context, channel, threadTS string, m blockkit.Message, extra ...slack.MsgOption) (string, string, error) {
	opts := []slack.MsgOption{slack.MsgOptionText(m.Text, false), slack.MsgOptionBlocks(m.Blocks...)}
	if threadTS != "" {
		opts = append(opts, slack.MsgOptionTS(threadTS))
	}
	in, ts, err := a.api.PostMessageContext(ctx, channel, append(opts, extra...)...)
	if isInvalidBlocks(err) && len(m.Blocks) > 0 {
		a.log.ErrorContext(ctx, "slack refused the blocks: sending plain text", "channel", channel, "err", err)
		in, ts, err = a.api.PostMessageContext(ctx, channel, append(append(plainOptions(m), slack.MsgOptionTS(threadTS)), extra...)...)
	}
	if err != nil {
		return "", "", fmt.Errorf("chat.postMessage in %s: %w", channel, err)
	}
	return in, ts, nil
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

// plainOptions render m without blocks (blockkit.PlainMrkdwn: a code block
// so tables keep their columns, escaped so no value becomes a mention or a
// link). An empty block list clears the blocks of an updated message.
func plainOptions(m blockkit.Message) []slack.MsgOption {
	return []slack.MsgOption{slack.MsgOptionText(blockkit.PlainMrkdwn(m.Blocks), false), slack.MsgOptionBlocks()}
}

// isInvalidBlocks reports Slack refusing a message's blocks.
func isInvalidBlocks(err error) bool {
	var se slack.SlackErrorResponse
	return errors.As(err, &se) && (se.Err == "invalid_blocks" || se.Err == "invalid_blocks_format" || se.Err == "msg_too_long")
}
