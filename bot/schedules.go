package bot

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

var scheduleIDPattern = regexp.MustCompile(`^[0-9a-f]{8}$`)

// presetPress reads a preset's value, "<query id> <cron spec>".
func presetPress(value string) (queryID, spec string, err error) {
	queryID, spec, _ = strings.Cut(strings.TrimSpace(value), " ")
	if !queryIDPattern.MatchString(queryID) || strings.TrimSpace(spec) == "" {
		return "", "", fmt.Errorf("%w: %s is not a query id followed by a schedule", ErrBadAction, answer.Quoted(value))
	}
	written := strings.Join(strings.Fields(spec), " ")
	w, err := schedule.ParseSpec(spec, time.UTC)
	if err != nil {
		return "", "", fmt.Errorf("%w: %s", ErrBadAction, specProblem(written, err))
	}
	if w.TooOften() {
		return "", "", fmt.Errorf("%w: schedules run at most once %s; %s runs more often", ErrBadAction,
			everyWords(schedule.MinInterval), answer.Quoted(written))
	}
	return queryID, strings.TrimSpace(spec), nil
}

// specProblem is why the spec written (its fields, one space apart) is not
// a schedule, given its parse error err. The parser's sentences are for
// people and cut a long spec short, but they do not escape what a terminal
// would act on, so they are said only for a short, printable one; any
// other spec is quoted as presses quote what they send (answer.Quoted), with the
// rule it breaks.
func specProblem(written string, err error) string {
	printable := strings.IndexFunc(written, func(r rune) bool { return !unicode.IsPrint(r) }) < 0
	if printable && utf8.RuneCountInString(written) <= answer.MaxQuoted {
		return err.Error()
	}
	return answer.Quoted(written) + " is not a cron schedule: give five cron fields (minute, hour, day of the month, month, day of the week), e.g. “0 9 * * 1”"
}

// everyWords says how often runs d apart come, as people say it: "every 5
// minutes", "every hour" (not time.Duration's "5m0s").
func everyWords(d time.Duration) string {
	n, unit := int(d/time.Minute), "minute"
	if d%time.Hour == 0 {
		n, unit = int(d/time.Hour), "hour"
	}
	if n == 1 {
		return "every " + unit
	}
	return fmt.Sprintf("every %d %ss", n, unit)
}

// ManageSchedule answers a press on a schedule: save or cancel a pending
// one (its owner), pause, resume or delete one (its owner or a schedule
// admin), through the graph (manage_schedule). The reply is for the
// presser. It never calls the model. A thread that is not m.UserID's gets
// ErrNoThread (see CheckThread).
func (b *Bot) ManageSchedule(ctx context.Context, m Message, action, id string) (*nodes.State, error) {
	if err := b.CheckThread(ctx, m); err != nil {
		return nil, err
	}
	s, err := b.scheduleState(m, action, id)
	if err != nil {
		return nil, err
	}
	s, _, err = b.run(ctx, s)
	return s, err
}

// scheduleState is the state of a press of action on the schedule id.
func (b *Bot) scheduleState(m Message, action, id string) (*nodes.State, error) {
	if !scheduleIDPattern.MatchString(id) {
		return nil, fmt.Errorf("%w: %s is not a schedule id (8 hex characters)", ErrBadAction, answer.Quoted(id))
	}
	if !nodes.IsScheduleAction(action) {
		return nil, fmt.Errorf("%w: unknown schedule action %s", ErrBadAction, answer.Quoted(action))
	}
	s := b.stateOf(m)
	s.Intent, s.ScheduleAction, s.ScheduleID = nodes.IntentManageSchedule, action, id
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
	p, err := b.access.Admit(ctx, access.Who{UserID: sch.OwnerID, ChannelID: channel, DM: strings.HasPrefix(channel, "D"),
		Local: slices.Contains(localChannels, channel)})
	var ref *access.Refusal
	if errors.As(err, &ref) {
		// The reason is the owner's to read: for a Slack user group
		// Slack did not list, "try again in a minute", and the schedule
		// stays pending for them to press Save again.
		kind, _ := b.refusalKind(ctx, sch.OwnerID, channel, ref)
		return kind, ref.Reason
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
type ScheduleScope = nodes.ScheduleScope

// The scopes of a list.
const (
	// MySchedules are the asker's own.
	MySchedules = nodes.MySchedules
	// ChannelSchedules are every schedule posting to (or made in) the
	// asker's channel: a schedule admin's view.
	ChannelSchedules = nodes.ChannelSchedules
)

// ListSchedules answers "/ask schedules" through the graph
// (list_schedules): the asker's schedules, or a channel's for a schedule
// admin, each with what it does, when it runs next and how it last went,
// and buttons to pause, resume or delete it.
func (b *Bot) ListSchedules(ctx context.Context, m Message, scope ScheduleScope) (*nodes.State, error) {
	s := b.stateOf(m)
	s.Intent, s.ScheduleScope = nodes.IntentListSchedules, scope
	s, _, err := b.run(ctx, s)
	return s, err
}

// scheduleRules are the bot's rules of schedules the nodes apply
// (nodes.ScheduleRules).
type scheduleRules struct{ b *Bot }

func (r scheduleRules) IsAdmin(user string) bool { return r.b.isScheduleAdmin(user) }

func (r scheduleRules) Refusal(ctx context.Context, sch store.Schedule) (nodes.ErrorKind, string) {
	return r.b.destinationRefusal(ctx, sch)
}

func (r scheduleRules) Command(surface string) string { return r.b.scheduleCommand(surface) }

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

// isScheduleAdmin reports whether user may manage every schedule of a
// channel: SCHEDULE_ADMINS, else EXAMPLE_ADMINS.
func (b *Bot) isScheduleAdmin(user string) bool {
	admins := b.cfg.ScheduleAdmins
	if len(admins) == 0 {
		admins = b.cfg.ExampleAdmins
	}
	return user != "" && slices.Contains(admins, strings.TrimSpace(user))
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
