package bot

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// What people read about their schedules.
const (
	textScheduleGone     = "I can't find that schedule: it may have been deleted."
	textScheduleNotYours = "Only the person who made this schedule can do that (or a schedule admin)."
	textScheduleFailed   = "I couldn't change the schedule just now. Please try again in a moment."
	textSchedulesOff     = "Schedules are turned off here (SCHEDULES=false)."
	textNoSchedules      = "You have no schedules. Press Schedule under an answer, or say “send me this every Monday at 9” in its thread."
	textNoChannelSched   = "Nothing is scheduled to post in this channel."
	textNotScheduleAdmin = "Only schedule admins (SCHEDULE_ADMINS) can see every schedule of a channel."
)

var scheduleIDPattern = regexp.MustCompile(`^[0-9a-f]{8}$`)

// isScheduleAction reports whether action is a press of the schedule flow
// that the bot answers without the workflow.
func isScheduleAction(action string) bool {
	switch action {
	case nodes.ActionScheduleSave, nodes.ActionScheduleCancel, nodes.ActionSchedulePause,
		nodes.ActionScheduleResume, nodes.ActionScheduleDelete:
		return true
	}
	return false
}

// presetPress reads a preset's value, "<query id> <cron spec>".
func presetPress(value string) (queryID, spec string, err error) {
	queryID, spec, _ = strings.Cut(strings.TrimSpace(value), " ")
	if !queryIDPattern.MatchString(queryID) || strings.TrimSpace(spec) == "" {
		return "", "", fmt.Errorf("%w: %q is not a query id and a schedule", ErrBadAction, value)
	}
	w, err := schedule.ParseSpec(spec, time.UTC)
	if err != nil {
		return "", "", fmt.Errorf("%w: %q: %v", ErrBadAction, spec, err)
	}
	if w.TooOften() {
		return "", "", fmt.Errorf("%w: %q runs more often than every %s", ErrBadAction, spec, schedule.MinInterval)
	}
	return queryID, strings.TrimSpace(spec), nil
}

// ManageSchedule answers a press on a schedule: save or cancel a pending
// one (its owner), pause, resume or delete one (its owner or a schedule
// admin). The reply is for the presser. It never calls the model. A
// thread that is not m.UserID's gets ErrNoThread (see CheckThread).
func (b *Bot) ManageSchedule(ctx context.Context, m Message, action, id string) (*nodes.State, error) {
	if err := b.CheckThread(ctx, m); err != nil {
		return nil, err
	}
	return b.manageSchedule(ctx, m, action, id)
}

func (b *Bot) manageSchedule(ctx context.Context, m Message, action, id string) (*nodes.State, error) {
	if !scheduleIDPattern.MatchString(id) {
		return nil, fmt.Errorf("%w: %q is not a schedule id (8 hex characters)", ErrBadAction, id)
	}
	s := b.pressState(m, nodes.IntentSchedule, "")
	s.ScheduleID = id
	if !b.cfg.Schedules {
		respond(s, failure(textSchedulesOff))
		return s, nil
	}
	sch, err := b.db.ScheduleByID(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.ErrorKind = nodes.ErrNoPreviousQuery
		respond(s, failure(textScheduleGone))
		return s, nil
	case err != nil:
		return b.scheduleFailed(ctx, s, err), nil
	}
	mine := sch.OwnerID == m.UserID
	if !mine && (action == nodes.ActionScheduleSave || action == nodes.ActionScheduleCancel || !b.isScheduleAdmin(m.UserID)) {
		s.ErrorKind = nodes.ErrForbidden
		respond(s, failure(textScheduleNotYours))
		return s, nil
	}
	w, err := schedule.ParseSpec(sch.Spec, b.locationOf(sch.TimeZone))
	if err != nil {
		return b.scheduleFailed(ctx, s, err), nil
	}
	var text string
	switch action {
	case nodes.ActionScheduleSave:
		if kind, reason := b.destinationRefusal(ctx, sch); reason != "" {
			s.ErrorKind = kind
			respond(s, failure(reason))
			return s, nil
		}
		next := w.Next(b.now())
		sch, err = b.db.ChangeSchedule(ctx, store.ScheduleChange{ID: id, From: []store.ScheduleState{store.SchedulePending},
			To: store.ScheduleActive, Next: &next})
		text = fmt.Sprintf("Saved: I'll %s. The first run is %s. `%s` lists your schedules.",
			nodes.DescribeSchedule(sch, w), whenOf(next, w.Location), b.scheduleCommand(sch.Surface))
	case nodes.ActionScheduleCancel:
		err = b.db.DeletePendingSchedule(ctx, id)
		text = "Cancelled: nothing was scheduled."
	case nodes.ActionSchedulePause:
		sch, err = b.db.ChangeSchedule(ctx, store.ScheduleChange{ID: id, From: []store.ScheduleState{store.ScheduleActive},
			To: store.SchedulePaused})
		text = fmt.Sprintf("Paused “%s”. Resume it from `%s`.", sch.Question, b.scheduleCommand(sch.Surface))
	case nodes.ActionScheduleResume:
		next := w.Next(b.now())
		sch, err = b.db.ChangeSchedule(ctx, store.ScheduleChange{ID: id,
			From: []store.ScheduleState{store.SchedulePaused, store.ScheduleStopped}, To: store.ScheduleActive, Next: &next})
		text = fmt.Sprintf("Resumed “%s”: the next run is %s.", sch.Question, whenOf(next, w.Location))
	case nodes.ActionScheduleDelete:
		err = b.db.DeleteSchedule(ctx, id)
		text = fmt.Sprintf("Deleted “%s”.", sch.Question)
	default:
		return nil, fmt.Errorf("%w: unknown schedule action %q", ErrBadAction, action)
	}
	switch {
	case errors.Is(err, store.ErrScheduleState):
		text = fmt.Sprintf("Nothing changed: “%s” is %s.", sch.Question, stateWords(sch.State))
	case errors.Is(err, store.ErrNotFound):
		text = textScheduleGone
	case err != nil:
		return b.scheduleFailed(ctx, s, err), nil
	}
	b.log.InfoContext(ctx, "schedule changed", "schedule", id, "action", action, "user", m.UserID, "owner", sch.OwnerID)
	if action != nodes.ActionScheduleSave {
		text = answer.Defuse(text) // only Save's words name a channel
	}
	respond(s, &answer.Answer{Kind: answer.KindNotice, Text: answer.Mentions(answer.ParseText(text))})
	return s, nil
}

// Membership tells whether user is a member of channel (Slack's
// conversations.members); the Slack app sets it with SetMembership.
type Membership func(ctx context.Context, channel, user string) (bool, error)

// SetMembership lets schedules check that their owner is a member of the
// channel they post to.
func (b *Bot) SetMembership(m Membership) { b.membership = m }

// destinationRefusal is why sch may not be saved for its owner, in a
// sentence for them, with the refusal's kind, or "": they must be a member
// of a channel it posts to (other than the one they made it in), and their
// access policy there, within the channel's ceiling, must let them read its
// query.
func (b *Bot) destinationRefusal(ctx context.Context, sch store.Schedule) (nodes.ErrorKind, string) {
	channel := policyChannel(sch)
	if sch.Surface == nodes.SurfaceSlack && sch.DestKind == string(schedule.DestChannel) && sch.DestChannel != sch.SourceChannel {
		if b.membership == nil {
			return nodes.ErrForbidden, "I can only post in the channel you asked in."
		}
		member, err := b.membership(ctx, sch.DestChannel, sch.OwnerID)
		switch {
		case err != nil:
			b.log.WarnContext(ctx, "check a schedule's channel membership", "schedule", sch.ID, "channel", sch.DestChannel, "err", err)
			return nodes.ErrForbidden, "I couldn't check that you are a member of that channel, so I won't post there for you. Make the schedule from the channel itself."
		case !member:
			return nodes.ErrForbidden, "You are not a member of that channel, so I won't post there for you."
		}
	}
	if b.access == nil {
		return "", ""
	}
	p, err := b.access.Admit(access.Who{UserID: sch.OwnerID, ChannelID: channel, DM: strings.HasPrefix(channel, "D"),
		Local: slices.Contains(localChannels, channel)})
	var ref *access.Refusal
	if errors.As(err, &ref) {
		return nodes.ErrNotAdmitted, ref.Reason
	}
	a, capped := b.scheduleAccess(sch, p)
	ctx = warehouse.WithCaller(ctx, warehouse.Caller{UserID: sch.OwnerID, Email: sch.OwnerEmail, ChannelID: channel, Access: a})
	if we, ok := errors.AsType[*warehouse.Error](warehouse.Permits(ctx, b.backend, sch.Query.Text)); ok && we.Kind == warehouse.Forbidden {
		// The guard's reason names only what the query reaches for.
		if name, ok := strings.CutPrefix(we.Reason, "you may not read "); ok && capped {
			return nodes.ErrAccessDenied, "I can't post that there: what is posted in that channel may not show " + name + "."
		}
		return nodes.ErrAccessDenied, "I can't post that there: " + we.Reason + "."
	}
	return "", ""
}

// ScheduleScope says whose schedules ListSchedules lists.
type ScheduleScope int

// The scopes of a list.
const (
	// MySchedules are the asker's own.
	MySchedules ScheduleScope = iota
	// ChannelSchedules are every schedule posting to (or made in) the
	// asker's channel: a schedule admin's view.
	ChannelSchedules
)

// maxListed bounds the schedules one list shows with buttons (two each,
// within Slack's 25 elements of an actions block).
const maxListed = 12

// ListSchedules answers "/ask schedules": the asker's schedules, or a
// channel's for a schedule admin, each with what it does, when it runs
// next and how it last went, and buttons to pause, resume or delete it.
func (b *Bot) ListSchedules(ctx context.Context, m Message, scope ScheduleScope) (*nodes.State, error) {
	s := b.pressState(m, nodes.IntentSchedule, "")
	if !b.cfg.Schedules {
		respond(s, failure(textSchedulesOff))
		return s, nil
	}
	f := store.ScheduleFilter{OwnerID: m.UserID, Limit: maxListed + 1}
	empty := textNoSchedules
	if scope == ChannelSchedules {
		if !b.isScheduleAdmin(m.UserID) {
			respond(s, failure(textNotScheduleAdmin))
			return s, nil
		}
		f = store.ScheduleFilter{Channel: m.ChannelID, Limit: maxListed + 1}
		empty = textNoChannelSched
	}
	list, err := b.db.Schedules(ctx, f)
	if err != nil {
		return b.scheduleFailed(ctx, s, err), nil
	}
	if len(list) == 0 {
		respond(s, notice(empty))
		return s, nil
	}
	a := &answer.Answer{Kind: answer.KindNotice}
	var lines []string
	for i, sch := range list[:min(len(list), maxListed)] {
		lines = append(lines, fmt.Sprintf("%d. %s", i+1, b.scheduleLine(sch, scope == ChannelSchedules)))
		toggle := answer.Action{ID: nodes.ActionSchedulePause, Label: fmt.Sprintf("Pause %d", i+1), Value: sch.ID}
		if sch.State != store.ScheduleActive {
			toggle = answer.Action{ID: nodes.ActionScheduleResume, Label: fmt.Sprintf("Resume %d", i+1), Value: sch.ID}
		}
		a.Actions = append(a.Actions, toggle, answer.Action{ID: nodes.ActionScheduleDelete, Label: fmt.Sprintf("Delete %d", i+1), Value: sch.ID})
	}
	if len(list) > maxListed {
		lines = append(lines, "…and more: `analyticsbot schedules list` shows them all.")
	}
	a.Text = answer.Mentions(answer.ParseText(strings.Join(lines, "\n")))
	respond(s, a)
	return s, nil
}

// scheduleLine is one schedule in a list: "“Games per year”: every Monday
// at 09:00 (Europe/London) in a direct message; next Monday 30 November at
// 09:00; last run posted. [3fa85f64]".
func (b *Bot) scheduleLine(sch store.Schedule, owner bool) string {
	loc := b.locationOf(sch.TimeZone)
	what := "on the cron schedule " + sch.Spec
	if w, err := schedule.ParseSpec(sch.Spec, loc); err == nil {
		what = nodes.DescribeSchedule(sch, w)
	}
	line := what
	switch sch.State {
	case store.ScheduleActive:
		if sch.NextRunAt != nil {
			line += "; next " + whenOf(*sch.NextRunAt, loc)
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
	return line + " `" + sch.ID + "`"
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
	}
	return outcome
}

func stateWords(s store.ScheduleState) string {
	if s == store.SchedulePending {
		return "not saved yet"
	}
	return string(s)
}

// scheduleCommand is how people list their schedules on surface: Slack's
// slash command (SetSlashCommand) with "schedules", or "schedules" typed
// in the web chat or the terminal.
func (b *Bot) scheduleCommand(surface string) string {
	if surface == nodes.SurfaceSlack {
		return b.slashCommand + " schedules"
	}
	return "schedules"
}

// SetSlashCommand names Slack's slash command (SLACK_SLASH_COMMAND) in
// what the bot writes about schedules; "/ask" until it is called.
func (b *Bot) SetSlashCommand(command string) {
	if command = strings.TrimSpace(command); command != "" {
		b.slashCommand = command
	}
}

// schedulesPhrase is a message asking for one's schedules ("schedules",
// "my schedules", "list my schedules"), which Ask answers with
// ListSchedules, without the model.
var schedulesPhrase = regexp.MustCompile(`(?i)^\W*(?:(?:show|list)\s+)?(?:my\s+|all\s+my\s+)?schedules\W*$`)

// IsSchedulesRequest reports whether text asks for one's schedules.
func IsSchedulesRequest(text string) bool { return schedulesPhrase.MatchString(text) }

// isScheduleAdmin reports whether user may manage every schedule of a
// channel: SCHEDULE_ADMINS, else EXAMPLE_ADMINS.
func (b *Bot) isScheduleAdmin(user string) bool {
	admins := b.cfg.ScheduleAdmins
	if len(admins) == 0 {
		admins = b.cfg.ExampleAdmins
	}
	return user != "" && slices.Contains(admins, strings.TrimSpace(user))
}

// scheduleFailed answers a press whose schedule could not be read or
// changed.
func (b *Bot) scheduleFailed(ctx context.Context, s *nodes.State, err error) *nodes.State {
	b.log.ErrorContext(ctx, "schedule", "schedule", s.ScheduleID, "err", err)
	respond(s, failure(textScheduleFailed))
	return s
}

// locationOf is a schedule's time zone, else the bot's.
func (b *Bot) locationOf(tz string) *time.Location {
	if loc, err := time.LoadLocation(tz); err == nil && tz != "" {
		return loc
	}
	return b.cfg.Location()
}

// now is the bot's clock.
func (b *Bot) now() time.Time { return b.nodes.Now() }

// SetClock replaces the bot's clock: what schedules count their next run
// from, and the elapsed times of answers. For tests that move time by
// hand, with the Scheduler's Now.
func (b *Bot) SetClock(now func() time.Time) { b.nodes.Now = now }

// whenOf writes a time for people, in loc: "Monday 30 November at 09:00".
func whenOf(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("Monday 2 January at 15:04")
}
