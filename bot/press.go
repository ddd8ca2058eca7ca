package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
)

// The presses of ratings and Verify, which the graph answers without the
// model (nodes/feedback.go, package feedback): a 👍 or 👎 on an answer
// (also as Slack's feedback element, FeedbackActionID with
// "feedback_up:<query id>"), and an admin's Verify.
const (
	ActionFeedbackUp   = nodes.ActionFeedbackUp
	ActionFeedbackDown = nodes.ActionFeedbackDown
	ActionVerify       = string(nodes.IntentVerify)
)

// ActionFeedback is the action of Slack's feedback element (and of the
// web reply's feedback): its value is the rating and the answer's query
// id, "feedback_up:<query id>".
const ActionFeedback = blockkit.FeedbackActionID

// ErrUnknownAction is the ErrBadAction of a press whose action none takes.
var ErrUnknownAction = fmt.Errorf("%w: unknown action", ErrBadAction)

// UnknownAction is the error of a press of action, which none takes: it
// names those that are taken, the intent table's and also (a surface's
// own, such as the web's note on a 👎).
func UnknownAction(action string, also ...string) error {
	return fmt.Errorf("%w %s; the actions are %s", ErrUnknownAction, answer.Quoted(action), strings.Join(append(pressable(), also...), ", "))
}

// ForThread reports whether the reply to a press of action is for the
// thread (a file, the SQL, an explanation, a refreshed answer), not for
// the presser alone (a rating, Verify, a schedule's buttons): a surface
// holds back such a press repeated at once, a double click, whose reply
// would be posted twice.
func ForThread(action string) bool {
	intent, ok := nodes.ButtonIntent(action)
	return ok && !presserOnly(intent)
}

// pressOf splits a Slack feedback element's press (action
// FeedbackActionID, value "feedback_up:<id>") into its action and value.
func pressOf(action, value string) (string, string) {
	if action == ActionFeedback {
		if a, v, ok := strings.Cut(value, ":"); ok {
			return a, v
		}
	}
	return action, value
}

// pressOn is the state of a press of action with value: ErrBadAction for
// an action the intent table does not know or a malformed value.
func (b *Bot) pressOn(m Message, action, value string) (*nodes.State, error) {
	intent, ok := nodes.ButtonIntent(action)
	if !ok {
		return nil, UnknownAction(action)
	}
	switch {
	case intent == nodes.IntentManageSchedule:
		return b.scheduleState(m, action, value)
	case action == nodes.ActionSchedulePreset:
		id, preset, err := presetPress(value)
		if err != nil {
			return nil, err
		}
		s, err := b.buttonState(m, intent, id)
		if err == nil {
			s.SchedulePreset = preset
		}
		return s, err
	case intent == nodes.IntentFeedback:
		s, err := b.pressState(m, intent, value)
		if err == nil {
			s.Rating = store.RatingDown
			if action == ActionFeedbackUp {
				s.Rating = store.RatingUp
			}
		}
		return s, err
	case nodes.Aside(intent):
		return b.pressState(m, intent, value)
	}
	return b.buttonState(m, intent, value)
}

// buttonState is the state of a press of an answer's button, which the
// thread keeps as a turn of its own ("[button] show_sql 02d81c2d").
func (b *Bot) buttonState(m Message, intent nodes.Intent, queryID string) (*nodes.State, error) {
	if m.Text == "" {
		m.Text = "[button] " + string(intent) + " " + queryID
	}
	return b.pressState(m, intent, queryID)
}

// pressable lists the action ids a press may carry, for the error of one
// that is none.
func pressable() []string {
	var out []string
	for _, s := range nodes.Intents {
		if s.Label != "" {
			out = append(out, string(s.Intent))
		}
		out = append(out, s.Actions...)
	}
	return out
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
	if rating != store.RatingUp && rating != store.RatingDown {
		return nil, fmt.Errorf("%w: a rating is %d (good) or %d (bad), not %d", ErrBadAction, store.RatingUp, store.RatingDown, rating)
	}
	s, err := b.pressState(m, nodes.IntentFeedback, queryID)
	if err != nil {
		return nil, err
	}
	s.Rating, s.Note = rating, note
	s, _, err = b.run(ctx, s)
	return s, err
}

// Note adds note to m.UserID's 👎 on queryID in m's thread (the latest 👎
// when queryID is empty); ErrNoThread for a thread that is not theirs, and
// ErrBadAction for an empty note (a press of the web's note box with
// nothing in it: the presser's mistake, worded for no surface's syntax).
func (b *Bot) Note(ctx context.Context, m Message, queryID, note string) (*nodes.State, error) {
	if err := b.CheckThread(ctx, m); err != nil {
		return nil, err
	}
	if queryID != "" && !queryIDPattern.MatchString(queryID) {
		return nil, fmt.Errorf("%w: %s is not a query id (8 hex characters)", ErrBadAction, answer.Quoted(queryID))
	}
	if strings.TrimSpace(note) == "" {
		return nil, fmt.Errorf("%w: the note is empty: write what was wrong", ErrBadAction)
	}
	s := b.stateOf(m)
	s.Intent, s.ReferencedQueryID, s.Note = nodes.IntentFeedback, queryID, note
	s, _, err := b.run(ctx, s)
	return s, err
}

// Verify makes the query of the answer queryID in m's thread a verified
// example, for a user of EXAMPLE_ADMINS; ErrNoThread for a thread that is
// not theirs.
func (b *Bot) Verify(ctx context.Context, m Message, queryID string) (*nodes.State, error) {
	if err := b.CheckThread(ctx, m); err != nil {
		return nil, err
	}
	s, err := b.pressState(m, nodes.IntentVerify, queryID)
	if err != nil {
		return nil, err
	}
	s, _, err = b.run(ctx, s)
	return s, err
}

// pressState is the state of a press of intent on the answer queryID;
// ErrBadAction when queryID is none.
func (b *Bot) pressState(m Message, intent nodes.Intent, queryID string) (*nodes.State, error) {
	if !queryIDPattern.MatchString(queryID) {
		return nil, fmt.Errorf("%w: %s is not a query id (8 hex characters)", ErrBadAction, answer.Quoted(queryID))
	}
	s := b.stateOf(m)
	s.Intent, s.ReferencedQueryID = intent, queryID
	return s, nil
}
