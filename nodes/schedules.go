package nodes

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/store"
)

// ScheduleKeeper is what listing and managing schedules needs of the bot's
// own state; *store.DB implements it.
type ScheduleKeeper interface {
	ScheduleByID(ctx context.Context, id string) (store.Schedule, error)
	Schedules(ctx context.Context, f store.ScheduleFilter) ([]store.Schedule, error)
	ChangeSchedule(ctx context.Context, c store.ScheduleChange) (store.Schedule, error)
	DeleteSchedule(ctx context.Context, id string) error
	DeletePendingSchedule(ctx context.Context, id string) error
}

// ScheduleRules are the bot's rules of schedules that the nodes do not
// hold: who is a schedule admin, where an owner may post, and how people
// list their schedules on a surface.
type ScheduleRules interface {
	// IsAdmin reports whether user may manage every schedule of a
	// channel (SCHEDULE_ADMINS, else EXAMPLE_ADMINS).
	IsAdmin(user string) bool
	// Refusal is why sch may not be saved for its owner, in a sentence
	// for them, with its kind; "" when it may.
	Refusal(ctx context.Context, sch store.Schedule) (ErrorKind, string)
	// Command is how people list their schedules on surface ("/ask
	// schedules" on Slack, "schedules" elsewhere).
	Command(surface string) string
}

// ScheduleScope says whose schedules list_schedules lists.
type ScheduleScope int

// The scopes of a list.
const (
	// MySchedules are the asker's own.
	MySchedules ScheduleScope = iota
	// ChannelSchedules are every schedule posting to (or made in) the
	// asker's channel: a schedule admin's view.
	ChannelSchedules
)

// What people read about their schedules.
const (
	textScheduleGone     = "I can't find that schedule: it may have been deleted."
	textScheduleNotYours = "Only the person who made this schedule can do that (or a schedule admin)."
	textScheduleFailed   = "I couldn't change the schedule just now. Please try again in a moment."
	// TextSchedulesOff answers anything about schedules when they are off.
	TextSchedulesOff     = "Schedules are turned off here (SCHEDULES=false)."
	textNoSchedules      = "You have no schedules. Press Schedule under an answer, or say “send me this every Monday at 9” in its thread."
	textNoChannelSched   = "Nothing is scheduled to post in this channel."
	textNotScheduleAdmin = "Only schedule admins (SCHEDULE_ADMINS) can see every schedule of a channel."
)

// schedulesPhrase is a message asking for one's schedules ("schedules",
// "my schedules", "list my schedules"), which route_intent sends to
// list_schedules outside Slack (where "/ask schedules" shows the list to
// the asker alone; a thread would show it to everyone in it).
var schedulesPhrase = regexp.MustCompile(`(?i)^\W*(?:(?:show|list)\s+)?(?:my\s+|all\s+my\s+)?schedules\W*$`)

// maxListed bounds the schedules one list shows with buttons (two each,
// within Slack's 25 elements of an actions block).
const maxListed = 12

// ListSchedules answers "schedules": the asker's schedules, or a channel's
// for a schedule admin (ScheduleScope), each with what it does, when it
// runs next and how it last went, and buttons to pause, resume or delete
// it. It never calls the model.
func (n *Nodes) ListSchedules(ctx context.Context, s *State) error {
	if n.ScheduleKeeper == nil {
		s.SetReply(FormatSimple, failureNotice(TextSchedulesOff))
		return nil
	}
	f := store.ScheduleFilter{OwnerID: s.UserID, Limit: maxListed + 1}
	empty := textNoSchedules
	if s.ScheduleScope == ChannelSchedules {
		if !n.ScheduleRules.IsAdmin(s.UserID) {
			s.SetReply(FormatSimple, failureNotice(textNotScheduleAdmin))
			return nil
		}
		f = store.ScheduleFilter{Channel: s.ChannelID, Limit: maxListed + 1}
		empty = textNoChannelSched
	}
	list, err := n.ScheduleKeeper.Schedules(ctx, f)
	if err != nil {
		n.scheduleFailed(ctx, s, err)
		return nil
	}
	if len(list) == 0 {
		s.SetReply(FormatSimple, notice(empty))
		return nil
	}
	a := &answer.Answer{Kind: answer.KindNotice}
	for i, sch := range list[:min(len(list), maxListed)] {
		if i > 0 {
			a.Text = append(a.Text, answer.Plain("\n")...)
		}
		a.Text = answer.Concat(a.Text, words(fmt.Sprintf("%d. ", i+1)), n.scheduleLine(sch, s.ScheduleScope == ChannelSchedules))
		toggle := answer.Action{ID: ActionSchedulePause, Label: fmt.Sprintf("Pause %d", i+1), Value: sch.ID}
		if sch.State != store.ScheduleActive {
			toggle = answer.Action{ID: ActionScheduleResume, Label: fmt.Sprintf("Resume %d", i+1), Value: sch.ID}
		}
		a.Actions = append(a.Actions, toggle, answer.Action{ID: ActionScheduleDelete, Label: fmt.Sprintf("Delete %d", i+1), Value: sch.ID})
	}
	if len(list) > maxListed {
		a.Text = answer.Concat(a.Text, words("\n…and more: `analyticsbot schedules list` shows them all."))
	}
	s.SetReply(FormatSimple, a)
	return nil
}

// ManageSchedule answers a press on the schedule ScheduleID
// (ScheduleAction): save or cancel a pending one (its owner), pause, resume
// or delete one (its owner or a schedule admin). It never calls the model.
func (n *Nodes) ManageSchedule(ctx context.Context, s *State) error {
	if n.ScheduleKeeper == nil {
		s.SetReply(FormatSimple, failureNotice(TextSchedulesOff))
		return nil
	}
	id, action := s.ScheduleID, s.ScheduleAction
	sch, err := n.ScheduleKeeper.ScheduleByID(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.fail(ErrNoPreviousQuery, "no schedule "+id)
		s.SetReply(FormatError, failureNotice(textScheduleGone))
		return nil
	case err != nil:
		n.scheduleFailed(ctx, s, err)
		return nil
	}
	mine := sch.OwnerID == s.UserID
	if !mine && (action == ActionScheduleSave || action == ActionScheduleCancel || !n.ScheduleRules.IsAdmin(s.UserID)) {
		s.fail(ErrForbidden, "not the owner of schedule "+id)
		s.SetReply(FormatError, failureNotice(textScheduleNotYours))
		return nil
	}
	w, err := schedule.ParseSpec(sch.Spec, n.location(sch.TimeZone))
	if err != nil {
		n.scheduleFailed(ctx, s, err)
		return nil
	}
	keep := n.ScheduleKeeper
	var text answer.Text
	switch action {
	case ActionScheduleSave:
		if kind, reason := n.ScheduleRules.Refusal(ctx, sch); reason != "" {
			s.fail(kind, reason)
			s.SetReply(FormatError, failureNotice(reason))
			return nil
		}
		next := w.Next(n.Now())
		sch, err = keep.ChangeSchedule(ctx, store.ScheduleChange{ID: id, From: []store.ScheduleState{store.SchedulePending},
			To: store.ScheduleActive, Next: &next})
		text = answer.Concat(words("Saved: I'll "), DescribeSchedule(sch, w), words(fmt.Sprintf(". The first run is %s. `%s` lists your schedules.",
			formatWhen(next, w.Location), n.ScheduleRules.Command(sch.Surface))))
	case ActionScheduleCancel:
		err = keep.DeletePendingSchedule(ctx, id)
		text = words("Cancelled: nothing was scheduled.")
	case ActionSchedulePause:
		sch, err = keep.ChangeSchedule(ctx, store.ScheduleChange{ID: id, From: []store.ScheduleState{store.ScheduleActive},
			To: store.SchedulePaused})
		text = answer.Concat(words("Paused "), quote(sch.Question), words(fmt.Sprintf(". Resume it from `%s`.", n.ScheduleRules.Command(sch.Surface))))
	case ActionScheduleResume:
		next := w.Next(n.Now())
		sch, err = keep.ChangeSchedule(ctx, store.ScheduleChange{ID: id,
			From: []store.ScheduleState{store.SchedulePaused, store.ScheduleStopped}, To: store.ScheduleActive, Next: &next})
		text = answer.Concat(words("Resumed "), quote(sch.Question), words(": the next run is "+formatWhen(next, w.Location)+"."))
	case ActionScheduleDelete:
		err = keep.DeleteSchedule(ctx, id)
		text = answer.Concat(words("Deleted "), quote(sch.Question), words("."))
	default:
		return fmt.Errorf("manage schedule: unknown action %q", action) // the caller checks presses
	}
	switch {
	case errors.Is(err, store.ErrScheduleState):
		text = answer.Concat(words("Nothing changed: "), quote(sch.Question), words(" is "+stateWords(sch.State)+"."))
	case errors.Is(err, store.ErrNotFound):
		text = words(textScheduleGone)
	case err != nil:
		n.scheduleFailed(ctx, s, err)
		return nil
	}
	n.Logger.InfoContext(ctx, "schedule changed", "schedule", id, "action", action, "user", s.UserID, "owner", sch.OwnerID)
	s.SetReply(FormatSimple, &answer.Answer{Kind: answer.KindNotice, Text: text})
	return nil
}

// IsScheduleAction reports whether action is a press on a schedule that
// manage_schedule answers.
func IsScheduleAction(action string) bool {
	i, ok := ButtonIntent(action)
	return ok && i == IntentManageSchedule
}

// scheduleLine is one schedule in a list: "“Games per year”: every Monday
// at 09:00 (Europe/London) in a direct message; next Monday 30 November at
// 09:00; last run posted. [3fa85f64]".
func (n *Nodes) scheduleLine(sch store.Schedule, owner bool) answer.Text {
	loc := n.location(sch.TimeZone)
	what := answer.Concat(words("on the cron schedule "), answer.Plain(sch.Spec))
	if w, err := schedule.ParseSpec(sch.Spec, loc); err == nil {
		what = describeSchedule(sch, w, true, owner)
	}
	line := ""
	switch sch.State {
	case store.ScheduleActive:
		if sch.NextRunAt != nil {
			line += "; next " + formatWhen(*sch.NextRunAt, loc)
		}
	case store.SchedulePaused:
		line += "; *paused*"
	case store.ScheduleStopped:
		line += "; *stopped*: " + sch.StopReason
	}
	if sch.LastOutcome != "" {
		line += "; last run " + outcomeWords(sch.LastOutcome)
	}
	if owner {
		line += "; made by <@" + sch.OwnerID + ">"
	}
	return answer.Concat(what, words(line+" `"+sch.ID+"`"))
}

// outcomeWords says how a run ended.
func outcomeWords(outcome string) string {
	switch outcome {
	case store.RunQuiet:
		return "sent nothing (the condition did not hold)"
	case store.RunFailed:
		return "failed"
	case store.RunRefused:
		return "was refused"
	case store.RunPaused:
		return "sent nothing (paused while it ran)"
	}
	return outcome
}

func stateWords(s store.ScheduleState) string {
	if s == store.SchedulePending {
		return "not saved yet"
	}
	return string(s)
}

// scheduleFailed answers a press whose schedule could not be read or
// changed.
func (n *Nodes) scheduleFailed(ctx context.Context, s *State, err error) {
	n.Logger.ErrorContext(ctx, "schedule", "schedule", s.ScheduleID, "err", err)
	s.SetReply(FormatSimple, failureNotice(textScheduleFailed))
}
