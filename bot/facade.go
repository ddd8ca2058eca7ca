package bot

import (
	"context"
	"strings"
	"time"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
)

// What front ends call. They get a Reply and the few facts below, never
// the workflow's state or the store (TestFrontEndsImportNoInternals).

// Ask answers a message with the Reply to show. The error is for failures
// of the workflow itself (the Reply then says so as best it can), and
// ErrNoThread for a thread that is not m.UserID's (see CheckThread; on the
// web chat a message without a thread starts one); answers that explain a
// problem come back in the Reply, with their Outcome.
func (b *Bot) Ask(ctx context.Context, m Message, opts ...AskOption) (Reply, error) {
	ctx, ro := runOptions(ctx, opts)
	s, res, err := b.AskState(ctx, m, ro...)
	return replyOf(s, res), err
}

// Press answers a button press (see PressState) with the Reply to show: a
// press that went wrong, a rating, Verify and a schedule's buttons answer
// the presser alone.
func (b *Bot) Press(ctx context.Context, m Message, action, value string, opts ...AskOption) (Reply, error) {
	ctx, ro := runOptions(ctx, opts)
	s, res, err := b.PressState(ctx, m, action, value, ro...)
	return pressReplyOf(s, res), err
}

// PressNote adds the presser's note to their 👎 of queryID (the web's
// "what was wrong?" box; Slack's is a message in the thread).
func (b *Bot) PressNote(ctx context.Context, m Message, queryID, note string) (Reply, error) {
	s, err := b.Note(ctx, m, queryID, note)
	return pressReplyOf(s, noRun), err
}

// PressRating records m.UserID's 👍 (up) or 👎 on queryID with an
// optional note, as Rate does, with the Reply for the presser alone (the
// terminal's ":good" and ":bad what was wrong").
func (b *Bot) PressRating(ctx context.Context, m Message, up bool, queryID, note string) (Reply, error) {
	rating := store.RatingDown
	if up {
		rating = store.RatingUp
	}
	s, err := b.Rate(ctx, m, rating, queryID, note)
	return pressReplyOf(s, noRun), err
}

// ShowSchedules lists the schedules of scope for m's user (Slack's
// "/ask schedules"), for them alone.
func (b *Bot) ShowSchedules(ctx context.Context, m Message, scope ScheduleScope) (Reply, error) {
	s, err := b.ListSchedules(ctx, m, scope)
	r := replyOf(s, noRun)
	r.Audience = AudienceAsker
	return r, err
}

// Blank reports whether a message's text has nothing a reader sees: only
// spaces, invisible characters (NUL, U+200B, U+FEFF, …) and escape
// sequences. Ask answers such a message as an empty one, without the
// model and without keeping a turn; a front end that refuses empty
// messages itself refuses these too.
func Blank(text string) bool { return nodes.Blank(text) }

// Schedule is a schedule as a surface delivers it (see Deliverer).
type Schedule = store.Schedule

// FirstDelivery reports whether key (a Slack event's or press's id) is
// delivered for the first time, to this process or any other sharing the
// database: Slack redelivers what it saw no acknowledgement for. When the
// database cannot tell, it is: a rare double answer beats a lost question.
func (b *Bot) FirstDelivery(ctx context.Context, key string) bool {
	first, err := b.db.ClaimDelivery(ctx, key)
	if err != nil {
		b.log.WarnContext(ctx, "claim delivery: handling it without a claim", "key", key, "err", err)
		return true
	}
	return first
}

// FirstPress reports whether the press named key (a button of one message,
// pressed by one person), received at at, is not a repeat of one handled
// less than window before, on this process or another sharing the
// database. When the database cannot tell, it is not a repeat.
func (b *Bot) FirstPress(ctx context.Context, key string, at time.Time, window time.Duration) bool {
	first, err := b.db.ClaimRepeat(ctx, key, at, window)
	if err != nil {
		b.log.WarnContext(ctx, "claim press: handling it without a claim", "key", key, "err", err)
		return true
	}
	return first
}

// ForgetPress forgets the press named key (FirstPress), one whose reply
// could not be delivered: pressed again at once, it is tried again.
func (b *Bot) ForgetPress(ctx context.Context, key string) {
	if err := b.db.ForgetRepeat(ctx, key); err != nil {
		b.log.WarnContext(ctx, "forget a press: the next one within the window is held back", "key", key, "err", err)
	}
}

// KnowsThread reports whether the bot was asked in the thread: since
// AskedInThread recorded it, on any process sharing the database, or
// because it answered there before.
func (b *Bot) KnowsThread(ctx context.Context, threadID string) (bool, error) {
	return b.db.HasThread(ctx, threadID)
}

// PostedChannel is the channel a schedule's latest run was posted in
// ("" when none was): a direct message's id, which a post to a user id
// learns only from Slack's answer.
func (b *Bot) PostedChannel(ctx context.Context, scheduleID string) (string, error) {
	return b.db.PostedChannel(ctx, scheduleID)
}

// Turn is a saved turn of a thread, as a reloaded conversation shows it.
type Turn struct {
	ID int64
	// User is what the user did: their message, or a button's label
	// ("Show SQL") for a press.
	User string
	// Text is the reply as text (its first 500 characters).
	Text string
	// Intent is what the turn answered ("analytics_query", "show_sql", …).
	Intent string
	// Query is the query the turn ran in its backend's language, Backend
	// that backend's name, QueryID what the answer's buttons carry; empty
	// without a query.
	Query, Backend, QueryID string
	// Reply is the reply as it was shown; nil for a turn saved before
	// replies were kept (or one no longer readable): show Text.
	Reply     *answer.Answer
	CreatedAt time.Time
}

// Thread returns the last limit turns of m's thread with their replies,
// oldest first, for showing it again (a reloaded web page): ErrNoThread
// unless CheckThread lets m.UserID read it.
func (b *Bot) Thread(ctx context.Context, m Message, limit int) ([]Turn, error) {
	turns, err := b.threadTurns(ctx, m, limit)
	if err != nil {
		return nil, err
	}
	out := make([]Turn, len(turns))
	for i, t := range turns {
		out[i] = Turn{ID: t.ID, User: userText(t), Text: t.BotResponse, Intent: t.Intent, Query: t.Query.Text,
			Backend: t.Query.Backend, QueryID: t.QueryID, CreatedAt: t.CreatedAt}
		if len(t.Reply) == 0 {
			continue
		}
		if out[i].Reply, err = answer.Unmarshal(t.Reply); err != nil {
			b.log.WarnContext(ctx, "stored reply unreadable; showing its text", "thread", m.ThreadID, "turn", t.ID, "err", err)
		}
	}
	return out, nil
}

// userText is what the user did in a turn: their message, or for a
// button's turn the button's label ("Show SQL"), never the internal
// "[button] show_sql 02d81c2d".
func userText(t store.Turn) string {
	if !strings.HasPrefix(t.UserMessage, "[button] ") {
		return t.UserMessage
	}
	return nodes.PressName(nodes.Intent(t.Intent))
}

// Button is a button under answers.
type Button struct {
	// Action is the action id Press takes.
	Action string
	Label  string
	// Download says the press answers with a file.
	Download bool
}

// Buttons are the buttons under answers: Export CSV, Show SQL, Refresh,
// and Schedule when schedules are on.
func (b *Bot) Buttons() []Button {
	list := nodes.AnswerButtons(b.cfg.Schedules)
	out := make([]Button, len(list))
	for i, a := range list {
		spec, _ := nodes.SpecOf(nodes.Intent(a.ID))
		out[i] = Button{Action: a.ID, Label: a.Label, Download: spec.File}
	}
	return out
}
