package bot

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
)

// The presses answered here, without the workflow or the model: a 👍 or 👎
// on an answer (also as Slack's feedback element, FeedbackActionID with
// "feedback_up:<query id>"), and an admin's Verify.
const (
	ActionFeedbackUp   = nodes.ActionFeedbackUp
	ActionFeedbackDown = nodes.ActionFeedbackDown
	ActionVerify       = string(nodes.IntentVerify)
)

// What users read after a press of these.
const (
	textThanksUp       = "Thanks for the 👍. I'll learn from this answer for similar questions."
	textThanksUpSeen   = "Thanks for the 👍. This query is already one of my examples."
	textThanksUpKnown  = "Thanks for the 👍."
	textThanksDown     = "Thanks for telling me. What was wrong? Reply in this thread with “feedback: …” and whoever looks after me will read it."
	textAlreadyRated   = "You already gave this answer a %s; nothing changed."
	textNoAnswer       = "I can't find that answer in this thread. Only answers with a result can be rated or verified."
	textFeedbackFailed = "I couldn't save that just now. Please try again in a moment."
	textNoted          = "Thanks, I've added your note to your 👎."
	textNoDownvote     = "I have no 👎 of yours in this thread to add that note to. Press 👎 under the answer first."
	textEmptyNote      = "Your note was empty: write what was wrong after “feedback:”."
	textNotAdmin       = "Only the people listed in EXAMPLE_ADMINS can verify queries."
	textVerified       = "✓ Verified. Answers that run this query now say so, and similar questions will learn from it."
	textVerifyBackend  = "That answer's query was written for another backend; it cannot be verified here."
	labelVerify        = "Verify this query"
)

// feedbackNote is a thread reply that adds a note to the user's 👎.
var feedbackNote = regexp.MustCompile(`(?is)^\s*feedback\s*:\s*(.*)$`)

// IsFeedbackNote reports whether text is a note on a 👎 ("feedback: …"),
// which Ask answers without the model.
func IsFeedbackNote(text string) bool { return feedbackNote.MatchString(text) }

// pressOf splits a Slack feedback element's press (action
// FeedbackActionID, value "feedback_up:<id>") into its action and value.
func pressOf(action, value string) (string, string) {
	if action == blockkit.FeedbackActionID {
		if a, v, ok := strings.Cut(value, ":"); ok {
			return a, v
		}
	}
	return action, value
}

// Rate records m.UserID's 👍 (rating store.RatingUp) or 👎 on the answer of
// queryID in m's thread, with an optional note. A 👍 makes the answer's
// question and query a candidate example (verified at once after
// EXAMPLES_AUTO_VERIFY users' 👍). Pressing the same again changes
// nothing. The reply is for the user who pressed, not the thread. A
// thread that is not m.UserID's gets ErrNoThread (see CheckThread).
func (b *Bot) Rate(ctx context.Context, m Message, rating int, queryID, note string) (*nodes.State, error) {
	if err := b.CheckThread(ctx, m); err != nil {
		return nil, err
	}
	return b.rate(ctx, m, rating, queryID, note)
}

func (b *Bot) rate(ctx context.Context, m Message, rating int, queryID, note string) (*nodes.State, error) {
	s := b.pressState(m, nodes.IntentFeedback, queryID)
	if !queryIDPattern.MatchString(queryID) {
		return nil, fmt.Errorf("%w: %q is not a query id (8 hex characters)", ErrBadAction, queryID)
	}
	if rating != store.RatingUp && rating != store.RatingDown {
		return nil, fmt.Errorf("%w: rating %d", ErrBadAction, rating)
	}
	turn, ok := b.answerTurn(ctx, s)
	if !ok {
		return s, nil
	}
	question := turn.Question
	if question == "" {
		question = turn.UserMessage
	}
	f, changed, err := b.db.RecordFeedback(ctx, store.Feedback{ThreadID: m.ThreadID, QueryID: queryID, UserID: m.UserID,
		ChannelID: m.ChannelID, Rating: rating, Note: note, Question: question})
	if err != nil {
		return b.pressFailed(ctx, s, err), nil
	}
	s.Query, s.QueryID = turn.Query, turn.QueryID
	if !changed {
		respond(s, notice(fmt.Sprintf(textAlreadyRated, ratingEmoji(rating))))
		return s, nil
	}
	if rating == store.RatingDown {
		text := textThanksDown
		if f.Note != "" {
			text = textNoted
		}
		respond(s, notice(text))
		return s, nil
	}
	text := textThanksUpKnown
	if e, err := b.promote(ctx, f, turn); err != nil {
		b.log.WarnContext(ctx, "make a 👍'd answer an example", "thread", m.ThreadID, "query_id", queryID, "err", err)
	} else if e.ID != 0 {
		text = textThanksUp
		if e.Status != store.StatusCandidate {
			text = textThanksUpSeen
		}
	}
	msg := notice(text)
	if b.isExampleAdmin(m.UserID) {
		msg.QueryID, msg.Actions = queryID, []answer.Action{{ID: ActionVerify, Label: labelVerify}}
	}
	respond(s, msg)
	return s, nil
}

// promote makes the 👍'd answer's question and query a candidate example
// (an existing example, of any status, is kept as it is) and links the
// feedback to it; after EXAMPLES_AUTO_VERIFY different users' 👍 the
// candidate is verified.
func (b *Bot) promote(ctx context.Context, f store.Feedback, turn store.Turn) (store.Example, error) {
	fingerprint := b.backend.Dialect().Fingerprint
	if fingerprint == nil || turn.Query.Backend != b.backend.Name() {
		return store.Example{}, nil
	}
	fp, err := fingerprint(turn.Query.Text)
	if err != nil {
		return store.Example{}, fmt.Errorf("fingerprint: %w", err)
	}
	e, _, err := b.db.AddExample(ctx, store.Example{Backend: b.backend.Name(), Question: f.Question, Query: turn.Query.Text,
		Fingerprint: fp, Source: store.SourceFeedback, Status: store.StatusCandidate, ProposedBy: f.UserID})
	if err != nil {
		return store.Example{}, err
	}
	if err := b.db.LinkFeedbackExample(ctx, f.ID, e.ID); err != nil {
		return e, err
	}
	if n := b.cfg.ExamplesAutoVerify; n > 0 && e.Status == store.StatusCandidate {
		users, err := b.db.ExampleUpvoters(ctx, e.ID)
		if err != nil {
			return e, err
		}
		if users >= n {
			return b.db.SetExampleStatus(ctx, e.ID, store.StatusVerified, fmt.Sprintf("%d users' 👍", users))
		}
	}
	return e, nil
}

// Note adds note to m.UserID's 👎 on queryID in m's thread (the latest 👎
// when queryID is empty); ErrNoThread for a thread that is not theirs.
func (b *Bot) Note(ctx context.Context, m Message, queryID, note string) (*nodes.State, error) {
	if err := b.CheckThread(ctx, m); err != nil {
		return nil, err
	}
	return b.note(ctx, m, queryID, note)
}

func (b *Bot) note(ctx context.Context, m Message, queryID, note string) (*nodes.State, error) {
	s := b.pressState(m, nodes.IntentFeedback, queryID)
	if queryID != "" && !queryIDPattern.MatchString(queryID) {
		return nil, fmt.Errorf("%w: %q is not a query id (8 hex characters)", ErrBadAction, queryID)
	}
	if strings.TrimSpace(note) == "" {
		s.ErrorKind = nodes.ErrEmptyMessage
		respond(s, failure(textEmptyNote))
		return s, nil
	}
	f, err := b.db.NoteFeedback(ctx, m.ThreadID, queryID, m.UserID, note)
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.ErrorKind = nodes.ErrNoPreviousQuery
		respond(s, failure(textNoDownvote))
		return s, nil
	case err != nil:
		return b.pressFailed(ctx, s, err), nil
	}
	s.QueryID = f.QueryID
	respond(s, notice(textNoted))
	return s, nil
}

// Verify makes the query of the answer queryID in m's thread a verified
// example, for a user of EXAMPLE_ADMINS; ErrNoThread for a thread that is
// not theirs.
func (b *Bot) Verify(ctx context.Context, m Message, queryID string) (*nodes.State, error) {
	if err := b.CheckThread(ctx, m); err != nil {
		return nil, err
	}
	return b.verify(ctx, m, queryID)
}

func (b *Bot) verify(ctx context.Context, m Message, queryID string) (*nodes.State, error) {
	s := b.pressState(m, nodes.IntentVerify, queryID)
	if !queryIDPattern.MatchString(queryID) {
		return nil, fmt.Errorf("%w: %q is not a query id (8 hex characters)", ErrBadAction, queryID)
	}
	if !b.isExampleAdmin(m.UserID) {
		s.ErrorKind = nodes.ErrForbidden
		respond(s, failure(textNotAdmin))
		return s, nil
	}
	turn, ok := b.answerTurn(ctx, s)
	if !ok {
		return s, nil
	}
	fingerprint := b.backend.Dialect().Fingerprint
	if fingerprint == nil || turn.Query.Backend != b.backend.Name() {
		s.ErrorKind = nodes.ErrInvalidQuery
		respond(s, failure(textVerifyBackend))
		return s, nil
	}
	fp, err := fingerprint(turn.Query.Text)
	if err != nil {
		s.ErrorKind = nodes.ErrInvalidQuery
		respond(s, failure(textVerifyBackend))
		return s, nil
	}
	question := turn.Question
	if question == "" {
		question = turn.UserMessage
	}
	e, added, err := b.db.AddExample(ctx, store.Example{Backend: b.backend.Name(), Question: question, Query: turn.Query.Text,
		Fingerprint: fp, Source: store.SourceAdmin, Status: store.StatusVerified, ProposedBy: m.UserID, VerifiedBy: m.UserID})
	if err == nil && !added && e.Status != store.StatusVerified {
		_, err = b.db.SetExampleStatus(ctx, e.ID, store.StatusVerified, m.UserID)
	}
	if err != nil {
		return b.pressFailed(ctx, s, err), nil
	}
	s.Query, s.QueryID = turn.Query, turn.QueryID
	respond(s, notice(textVerified))
	return s, nil
}

// answerTurn finds the answer s refers to; a missing one is recorded on s.
func (b *Bot) answerTurn(ctx context.Context, s *nodes.State) (store.Turn, bool) {
	turn, err := b.db.TurnByQueryID(ctx, s.ThreadTS, s.ReferencedQueryID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.ErrorKind = nodes.ErrNoPreviousQuery
		respond(s, failure(textNoAnswer))
		return turn, false
	case err != nil:
		b.pressFailed(ctx, s, err)
		return turn, false
	}
	return turn, true
}

func (b *Bot) pressState(m Message, intent nodes.Intent, queryID string) *nodes.State {
	if m.ThreadID == "" {
		m.ThreadID = NewThreadID()
	}
	return &nodes.State{UserQuery: m.Text, UserID: m.UserID, ChannelID: m.ChannelID, ThreadTS: m.ThreadID,
		Started: time.Now(), Intent: intent, ReferencedQueryID: queryID}
}

// pressFailed records a failure of the bot's database on s: the user reads
// that it did not work, the log why.
func (b *Bot) pressFailed(ctx context.Context, s *nodes.State, err error) *nodes.State {
	b.log.ErrorContext(ctx, "press not saved", "intent", s.Intent, "thread", s.ThreadTS, "err", err)
	s.ErrorKind, s.ErrorDetail = nodes.ErrDatabaseDown, err.Error()
	respond(s, failure(textFeedbackFailed))
	return s
}

func respond(s *nodes.State, a *answer.Answer) {
	f := nodes.FormatSimple
	if s.ErrorKind != "" {
		f = nodes.FormatError
	}
	s.SetReply(f, a)
}

// notice and failure are the replies to a press: a note, or what went
// wrong.
func notice(text string) *answer.Answer {
	return &answer.Answer{Kind: answer.KindNotice, Text: answer.Plain(text)}
}

func failure(text string) *answer.Answer {
	return &answer.Answer{Kind: answer.KindError, Text: answer.Plain(text)}
}

func (b *Bot) isExampleAdmin(user string) bool {
	return user != "" && slices.Contains(b.cfg.ExampleAdmins, user)
}

func ratingEmoji(rating int) string {
	if rating == store.RatingUp {
		return "👍"
	}
	return "👎"
}
