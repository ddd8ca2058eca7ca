package nodes

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/feedback"
	"github.com/analyticsbot/analyticsbot/store"
)

// What people read after a 👍, a 👎, a note or Verify.
const (
	textThanksUp       = "Thanks for the 👍. I'll learn from this answer for similar questions."
	textThanksUpSeen   = "Thanks for the 👍. This query is already one of my examples."
	textThanksRejected = "Thanks for the 👍. This query was rejected as an example, so I won't learn from it."
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
)

// feedbackNote is a message that adds a note to the user's 👎 ("feedback:
// …"); route_intent reads it when Feedback is on.
var feedbackNote = regexp.MustCompile(`(?is)^\s*feedback\s*:\s*(.*)$`)

// Rate answers a 👍 or 👎 (State.Rating, on ReferencedQueryID), or a note on
// the user's 👎 (State.Rating zero, State.Note) without the model: it
// records them in the Ratings book and thanks the user. A 👍 proposes the
// answer as an example; an example admin is offered Verify.
func (n *Nodes) Rate(ctx context.Context, s *State) error {
	if s.Rating == 0 {
		n.note(ctx, s)
		return nil
	}
	r, err := n.Ratings.Rate(ctx, feedback.Rating{ThreadID: s.ThreadTS, QueryID: s.ReferencedQueryID, UserID: s.UserID,
		ChannelID: s.ChannelID, Rating: s.Rating, Note: s.Note})
	if err != nil {
		n.feedbackFailed(ctx, s, err)
		return nil
	}
	// The reply names the rated answer (QueryID) but shows no query: a
	// rating is a thanks, in Slack, the terminal and the web API alike.
	s.QueryID = r.Turn.QueryID
	if r.Unwithdrawn != nil {
		n.Logger.WarnContext(ctx, "withdraw a 👍'd answer's candidate example", "thread", s.ThreadTS, "query_id", s.ReferencedQueryID, "err", r.Unwithdrawn)
	}
	switch {
	case !r.Changed:
		s.SetReply(FormatSimple, notice(fmt.Sprintf(textAlreadyRated, ratingEmoji(s.Rating))))
		return nil
	case s.Rating == store.RatingDown && r.Feedback.Note != "":
		s.SetReply(FormatSimple, notice(textNoted))
		return nil
	case s.Rating == store.RatingDown:
		s.SetReply(FormatSimple, notice(textThanksDown))
		return nil
	}
	text := textThanksUpKnown
	switch {
	case r.Unpromoted != nil:
		n.Logger.WarnContext(ctx, "make a 👍'd answer an example", "thread", s.ThreadTS, "query_id", s.ReferencedQueryID, "err", r.Unpromoted)
	case r.Example.Status == store.StatusRejected:
		// An admin set it aside: it is never shown, whatever 👍 it gets.
		text = textThanksRejected
	case r.Example.ID != 0 && r.Example.Status != store.StatusCandidate:
		text = textThanksUpSeen
	case r.Example.ID != 0:
		text = textThanksUp
	}
	msg := notice(text)
	if n.Ratings.IsAdmin(s.UserID) {
		spec, _ := SpecOf(IntentVerify)
		msg.QueryID, msg.Actions = s.ReferencedQueryID, []answer.Action{{ID: string(IntentVerify), Label: spec.Label}}
	}
	s.SetReply(FormatSimple, msg)
	return nil
}

// note adds s.Note to the user's 👎 on ReferencedQueryID (the latest when
// empty).
func (n *Nodes) note(ctx context.Context, s *State) {
	if strings.TrimSpace(s.Note) == "" {
		s.fail(ErrEmptyMessage, "empty note")
		s.SetReply(FormatError, failureNotice(textEmptyNote))
		return
	}
	f, err := n.Ratings.Note(ctx, s.ThreadTS, s.ReferencedQueryID, s.UserID, s.Note)
	if err != nil {
		n.feedbackFailed(ctx, s, err)
		return
	}
	s.QueryID = f.QueryID
	s.SetReply(FormatSimple, notice(textNoted))
}

// Verify makes the query of the answer ReferencedQueryID a verified
// example, for an example admin, without the model.
func (n *Nodes) Verify(ctx context.Context, s *State) error {
	turn, err := n.Ratings.Verify(ctx, s.ThreadTS, s.ReferencedQueryID, s.UserID)
	if err != nil {
		n.feedbackFailed(ctx, s, err)
		return nil
	}
	s.Query, s.QueryID = turn.Query, turn.QueryID
	s.SetReply(FormatSimple, notice(textVerified))
	return nil
}

// feedbackFailed words a failure of a rating, a note or Verify: what the
// book refused, or, for its database, that it did not work (the log says
// why).
func (n *Nodes) feedbackFailed(ctx context.Context, s *State, err error) {
	kind, text := ErrDatabaseDown, textFeedbackFailed
	switch {
	case errors.Is(err, feedback.ErrNoAnswer):
		kind, text = ErrNoPreviousQuery, textNoAnswer
	case errors.Is(err, feedback.ErrNoDownvote):
		kind, text = ErrNoPreviousQuery, textNoDownvote
	case errors.Is(err, feedback.ErrNotAdmin):
		kind, text = ErrForbidden, textNotAdmin
	case errors.Is(err, feedback.ErrOtherBackend):
		kind, text = ErrInvalidQuery, textVerifyBackend
	default:
		n.Logger.ErrorContext(ctx, "press not saved", "intent", s.Intent, "thread", s.ThreadTS, "err", err)
	}
	s.fail(kind, err.Error())
	s.SetReply(FormatError, failureNotice(text))
}

// notice and failureNotice are replies of text alone: a note, or what went
// wrong.
func notice(text string) *answer.Answer {
	return &answer.Answer{Kind: answer.KindNotice, Text: answer.Plain(text)}
}

func failureNotice(text string) *answer.Answer {
	return &answer.Answer{Kind: answer.KindError, Text: answer.Plain(text)}
}

func ratingEmoji(rating int) string {
	if rating == store.RatingUp {
		return "👍"
	}
	return "👎"
}
