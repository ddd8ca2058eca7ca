package slackapp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/slack-go/slack"

	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/bot"
)

const (
	textBadButton = "That button isn't one of mine, or its value was changed. Ask the question again to get fresh buttons."
	textNoUpload  = "I couldn't upload the CSV file to this conversation. Please try again in a moment."
)

// press is one button press, from an untrusted payload.
type press struct {
	channel, threadTS, user string
	action, value           string
	// private: the message pressed is the presser's alone (ephemeral).
	private bool
	// key deduplicates redeliveries of the same press; again, when set,
	// names it to tell a repeated press (deduper.repeat) received at
	// received.
	key, again  string
	received    time.Time
	responseURL string
}

// onBlockActions queues the presses of a block_actions payload on the
// thread of the message whose buttons were pressed. Which thread that is
// comes from Slack's container, never from the button's value, so a value
// naming another thread's query finds nothing.
func (a *App) onBlockActions(cb slack.InteractionCallback) {
	if cb.Type != slack.InteractionTypeBlockActions {
		return
	}
	channel := firstNonEmpty(cb.Channel.ID, cb.Container.ChannelID)
	root := firstNonEmpty(cb.Container.ThreadTs, cb.Message.ThreadTimestamp, cb.Container.MessageTs, cb.Message.Timestamp)
	if channel == "" || root == "" || cb.User.ID == "" {
		a.log.Warn("button press without channel, message or user: ignored", "trigger", cb.TriggerID)
		return
	}
	message := firstNonEmpty(cb.Container.MessageTs, cb.Message.Timestamp)
	received := a.clock.Now()
	for _, act := range cb.ActionCallback.BlockActions {
		again := pressKey(channel, message, cb.User.ID, act.ActionID, act.Value)
		if blockkit.IsAskAction(act.ActionID) {
			a.askPressed(channel, root, cb.User.ID, act.Value, cb.TriggerID, again, received)
			continue
		}
		p := press{
			channel: channel, threadTS: root, user: cb.User.ID,
			action: blockkit.ActionOf(act.ActionID), value: act.Value, responseURL: cb.ResponseURL,
			private: cb.Container.IsEphemeral, received: received,
		}
		if cb.TriggerID != "" {
			p.key = "action:" + cb.TriggerID + ":" + act.ActionID
		}
		// A button whose reply is for the thread, pressed twice at once,
		// would post its reply twice; one for the presser alone (a
		// rating, a schedule's Pause) is answered each time.
		if bot.ForThread(p.action) {
			p.again = again
		}
		a.submit(job{
			thread: threadID(channel, root),
			kind:   "button",
			run:    func(ctx context.Context) { a.pressButton(ctx, p) },
			report: func(ctx context.Context, why error) {
				a.ephemeral(ctx, p.channel, p.threadTS, p.user, p.responseURL, blockkit.Error(whyText(why), nil))
			},
		})
	}
}

// askPressed asks the question a button carries (a follow-up, a question
// to try) in the thread, as if the presser had typed it: the question is
// posted in the thread, so everyone sees what the answer answers.
// Pressed again at once (again, received: deduper.repeat), it is asked
// once.
func (a *App) askPressed(channel, root, user, value, trigger, again string, received time.Time) {
	text := strings.TrimSpace(value)
	if text == "" {
		return
	}
	q := question{channel: channel, user: user, text: text, threadTS: root, received: time.Now()}
	key := ""
	if trigger != "" {
		key = "ask:" + trigger
	}
	w := &answer{a: a, q: q, check: func(ctx context.Context, w *answer) bool {
		if !a.dedupe.claim(ctx, key) {
			return false
		}
		if a.dedupe.repeat(ctx, again, received) {
			a.log.DebugContext(ctx, "a button pressed again at once: asked once", "channel", channel, "user", user)
			return false
		}
		ts, err := a.post(ctx, channel, root, blockkit.Asked(user, text))
		if err != nil {
			// The answer still comes; it only lacks the question above it.
			a.log.WarnContext(ctx, "asked by a button: cannot post the question", "channel", channel, "err", err)
		}
		w.q.ts = ts
		return true
	}}
	a.submit(w.job("button", threadID(channel, root)))
}

// pressButton runs the button's action without the model and delivers
// its reply by its audience: a file is uploaded into the thread (for a
// reply its presser alone may see, into their direct message), a reply
// for everyone is posted in the thread, one for the presser alone (a
// rating, Verify, a schedule's buttons, anything that went wrong, and
// every press on an answer they alone see: private.go) is shown to them
// alone.
func (a *App) pressButton(ctx context.Context, p press) {
	if !a.dedupe.claim(ctx, p.key) {
		return
	}
	if p.again != "" && a.dedupe.repeat(ctx, p.again, p.received) {
		a.log.DebugContext(ctx, "a button pressed again at once: handled once", "channel", p.channel, "action", p.action, "user", p.user)
		return
	}
	if !a.answerPress(ctx, p) {
		// Pressed again at once, it is tried again, not held back as
		// a repeat of a press whose reply never arrived.
		a.dedupe.forget(ctx, p.again)
	}
}

// answerPress runs the press and delivers its reply (pressButton says
// where); it reports whether the reply the press was for was delivered:
// not after a refusal or a failure, which the presser is told of.
func (a *App) answerPress(ctx context.Context, p press) (delivered bool) {
	msg := bot.Message{ThreadID: threadID(p.channel, p.threadTS), UserID: p.user, ChannelID: p.channel,
		Email: a.people.email(ctx, p.user), TimeZone: a.people.timeZone(ctx, p.user), Private: p.private}
	r, err := a.bot.Press(ctx, msg, p.action, p.value)
	defer r.Close()
	switch {
	case errors.Is(err, bot.ErrBadAction):
		a.log.WarnContext(ctx, "bad button payload", "channel", p.channel, "user", p.user, "err", err)
		a.ephemeral(ctx, p.channel, p.threadTS, p.user, p.responseURL, blockkit.Error(textBadButton, nil))
		return false
	case err != nil || r.Answer == nil:
		a.log.ErrorContext(ctx, "button press failed", "action", p.action, "err", err)
		a.ephemeral(ctx, p.channel, p.threadTS, p.user, p.responseURL, a.reply(r))
		return false
	}
	switch {
	case r.File != nil && r.Private():
		return a.privateCSV(ctx, p, r)
	case r.File != nil:
		if err := a.uploadCSV(ctx, p, r); err != nil {
			a.log.ErrorContext(ctx, "CSV upload failed", "channel", p.channel, "err", err)
			a.ephemeral(ctx, p.channel, p.threadTS, p.user, p.responseURL, blockkit.Error(textNoUpload, nil))
			return false
		}
	case r.Private() && p.private:
		// Pressed on a message the presser alone sees: the reply goes in
		// its place.
		return a.privately(ctx, p, a.reply(r))
	case r.Private():
		return a.ephemeral(ctx, p.channel, p.threadTS, p.user, p.responseURL, a.reply(r))
	default:
		if err := a.send(ctx, p.channel, p.threadTS, "", a.reply(r)); err != nil {
			a.log.ErrorContext(ctx, "press reply not delivered", "channel", p.channel, "action", p.action, "err", err)
			return false
		}
	}
	return true
}

// uploadAttempts bounds retries of a whole upload: its middle step streams
// the file, which the client cannot replay by itself.
const uploadAttempts = 3

// uploadCSV uploads r's file into the thread with Slack's external upload
// flow (files.getUploadURLExternal, the upload, then
// files.completeUploadExternal), the reply's text as its comment.
func (a *App) uploadCSV(ctx context.Context, p press, r bot.Reply) error {
	f := r.File
	if f == nil {
		return a.send(ctx, p.channel, p.threadTS, "", a.reply(r))
	}
	// The comment is mrkdwn: the reply's words, which may quote the
	// question, escaped for Slack as its blocks are.
	comment := ""
	if r.Answer != nil {
		comment = blockkit.Mrkdwn(r.Answer.Text)
	}
	upload := func() error {
		// Opened per attempt: a full export streams from its file.
		rd, size, err := f.Open()
		if err != nil {
			return backoff.Permanent(err)
		}
		defer rd.Close()
		_, err = a.api.UploadFileContext(ctx, slack.UploadFileParameters{
			Reader: rd, FileSize: int(size),
			Filename: f.Name, Title: f.Title, InitialComment: comment,
			Channel: p.channel, ThreadTimestamp: p.threadTS,
		})
		if err != nil && !transient(err) {
			return backoff.Permanent(err)
		}
		return err
	}
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval = 500*time.Millisecond, 5*time.Second
	if err := backoff.Retry(upload, backoff.WithContext(backoff.WithMaxRetries(b, uploadAttempts-1), ctx)); err != nil {
		return fmt.Errorf("upload %s: %w", f.Name, err)
	}
	return nil
}

// transient reports errors worth retrying: rate limits, server errors and
// lost connections, not Slack refusing the request.
func transient(err error) bool {
	var rl *slack.RateLimitedError
	var sc slack.StatusCodeError
	var se slack.SlackErrorResponse
	switch {
	case errors.As(err, &rl):
		return true
	case errors.As(err, &sc):
		return sc.Code >= 500
	case errors.As(err, &se):
		return se.Err == "internal_error" || se.Err == "fatal_error" || se.Err == "service_unavailable"
	}
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// ephemeral shows m to one user in the thread. When Slack refuses (the bot
// is not in the channel), the interaction's response URL still works.
func (a *App) ephemeral(ctx context.Context, channel, threadTS, user, responseURL string, m blockkit.Message) (delivered bool) {
	opts := []slack.MsgOption{slack.MsgOptionText(m.Text, false), slack.MsgOptionBlocks(m.Blocks...)}
	if threadTS != "" {
		opts = append(opts, slack.MsgOptionTS(threadTS))
	}
	_, err := a.api.PostEphemeralContext(ctx, channel, user, opts...)
	if err == nil {
		return true
	}
	if a.trustedResponseURL(responseURL) {
		blocks := slack.Blocks{BlockSet: m.Blocks}
		err = slack.PostWebhookContext(ctx, responseURL, &slack.WebhookMessage{Text: m.Text, Blocks: &blocks, ResponseType: slack.ResponseTypeEphemeral})
	}
	if err != nil {
		a.log.ErrorContext(ctx, "ephemeral message not delivered", "channel", channel, "user", user, "err", err)
		return false
	}
	return true
}

// trustedResponseURL accepts response URLs on Slack's own HTTPS hosts (or
// on the configured API host, for tests and proxies): the bot never posts
// what it knows to a URL a payload made up.
func (a *App) trustedResponseURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if u.Scheme == "https" && (host == "slack.com" || strings.HasSuffix(host, ".slack.com")) {
		return true
	}
	api, err := url.Parse(a.cfg.APIURL)
	return a.cfg.APIURL != "" && err == nil && u.Scheme == api.Scheme && strings.EqualFold(u.Host, api.Host)
}

// whyText is what a user reads when their request will not run.
func whyText(why error) string {
	switch {
	case errors.Is(why, errBusy):
		return textBusy
	case errors.Is(why, errStopping):
		return textStopping
	}
	return textInternal
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
