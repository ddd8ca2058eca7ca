package nodes

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// ScheduleStore keeps schedules; *store.DB implements it.
type ScheduleStore interface {
	AddSchedule(ctx context.Context, s store.Schedule) (store.Schedule, error)
}

// Surfaces a schedule is made on and posts to.
const (
	SurfaceSlack = "slack"
	SurfaceWeb   = "web"
	SurfaceCLI   = "cli"
	// SurfaceMCP is the MCP server's (package mcpserver): its threads,
	// like the web chat's, belong to the identity that starts them.
	SurfaceMCP = "mcp"
)

// SurfaceOf names the surface a channel id belongs to: the web chat's, the
// command line's and the MCP server's own channels, else Slack.
func SurfaceOf(channelID string) string {
	switch channelID {
	case "web":
		return SurfaceWeb
	case "terminal", "cli", "eval":
		return SurfaceCLI
	case "mcp":
		return SurfaceMCP
	}
	return SurfaceSlack
}

// Actions of the schedule flow's buttons; their values are a schedule id,
// or, for a preset, the query id and a cron spec ("3fa85f64 0 9 * * 1").
const (
	ActionSchedule       = string(IntentSchedule)
	ActionSchedulePreset = "schedule_preset"
	ActionScheduleSave   = "schedule_save"
	ActionScheduleCancel = "schedule_cancel"
	ActionSchedulePause  = "schedule_pause"
	ActionScheduleResume = "schedule_resume"
	ActionScheduleDelete = "schedule_delete"
)

// Presets are the recurrences the Schedule button offers in one press.
var Presets = []struct{ Label, Spec string }{
	{"Every weekday at 09:00", "0 9 * * 1-5"},
	{"Every Monday at 09:00", "0 9 * * 1"},
	{"The 1st of each month at 09:00", "0 9 1 * *"},
}

// textScheduleHow tells people how to say a schedule in words.
const textScheduleHow = "Or say it in this thread, e.g. “post this to #growth every Friday at 5pm”, " +
	"“send me this daily at 8:30 as CSV” or “alert me when it is above 100, checked every hour”."

// Schedule turns an answer of the thread into a pending schedule and asks
// its owner to confirm it in plain words: the answer a button names (or the
// thread's latest), when it runs (a preset or the message's words, read
// without the model), where it posts, in what form and, for an alert, on
// what condition. The Schedule button alone answers with the presets.
func (n *Nodes) Schedule(ctx context.Context, s *State) error {
	if n.Schedules == nil {
		s.SetReply(FormatSimple, failureNotice(TextSchedulesOff))
		return nil
	}
	ctx = audienceCtx(ctx, s)
	turn, ok := n.scheduledAnswer(ctx, s)
	if !ok {
		return nil
	}
	loc := n.location(s.TimeZone)
	var (
		req      schedule.Request
		restated string // the model's words for the request, when it reworded it
	)
	switch {
	case s.SchedulePreset != "":
		w, err := schedule.ParseSpec(s.SchedulePreset, loc)
		if err != nil {
			s.fail(ErrInvalidQuery, "preset: "+err.Error())
			return nil
		}
		req = schedule.Request{When: w, HasWhen: true, To: schedule.Destination{Kind: schedule.DestDM}}
	case s.IntentSource == "button":
		s.SetReply(FormatSimple, presetsReply(turn))
		return nil
	default:
		req = schedule.ParseRequest(linkChannels(s.UserQuery, s.Channels), loc)
		if req.Zone != nil {
			// The zone the words name ("in Europe/London") is the
			// schedule's, the restatement's too.
			loc = req.Zone
		}
		if req.Unread && n.Model != nil {
			again := n.rereadSchedule(ctx, s, turn, req, loc)
			req, restated = again.req, again.restated
		}
		if req.To.Kind == "" {
			req.To.Kind = schedule.DestThread
		}
		if s.Private() && req.To.Kind == schedule.DestThread {
			// A private answer's runs go where its owner alone reads them.
			req.To.Kind = schedule.DestDM
		}
		if !req.HasWhen && req.Unclear == "" && req.Condition.Kind != "" {
			// "Tell me when it is above 100": an alert that says not how
			// often is checked every hour, which the confirmation says.
			req.When, req.HasWhen = alertCheck(loc), true
			if req.Zone != nil {
				req.When.Location = req.Zone
			}
		}
	}
	// An alert is read against the answer's result: read once, for the
	// checks below (nil when it is not at hand).
	var res *warehouse.Result
	if req.Condition.Kind != "" {
		if cached, err := n.Cache.Get(ctx, s.ThreadTS, turn.QueryID); err == nil {
			res = &cached.Result
		}
	}
	unclear := n.unclear(s, req, res)
	if unclear == "" {
		req.Condition, unclear = watchedColumn(req.Condition, res)
	}
	if unclear != "" {
		s.SetReply(FormatSimple, &answer.Answer{Kind: answer.KindNotice, Text: answer.Plain(unclear + " " + textScheduleHow)})
		return nil
	}
	var note string
	req.Condition, note = percentUnit(turn, req.Condition, res)
	sch, err := n.Schedules.AddSchedule(ctx, n.pending(s, turn, req))
	if err != nil {
		dataFailure(s, err)
		return nil
	}
	s.ScheduleID = sch.ID
	end := ", first on " + formatWhen(req.When.Next(n.Now()), req.When.Location) + "."
	if note != "" {
		end += " " + note
	}
	text := answer.Concat(words("I'll "), DescribeSchedule(sch, req.When), words(end+" Shall I save it?"))
	switch {
	case restated != "":
		text = answer.Concat(words("I read that as "), quote(answer.Labels(restated)), words(": "), text)
	case req.Ignored != "":
		text = answer.Concat(words("I didn't read "), quote(schedule.Excerpt(req.Ignored)), words(", so check this: "), text)
	}
	s.SetReply(FormatSimple, &answer.Answer{Kind: answer.KindNotice, Text: text,
		Actions: []answer.Action{
			{ID: ActionScheduleSave, Label: "Save schedule", Value: sch.ID},
			{ID: ActionScheduleCancel, Label: "Cancel", Value: sch.ID},
		}})
	return nil
}

// unclear is what keeps req from being a schedule of the answer whose
// result is res (nil when not at hand), in a sentence for the asker; ""
// when nothing does.
func (n *Nodes) unclear(s *State, req schedule.Request, res *warehouse.Result) string {
	switch {
	case req.Unclear != "":
		return req.Unclear
	case !req.HasWhen:
		return "I couldn't tell how often to send it."
	case req.When.TooOften():
		return fmt.Sprintf("That would run more often than every %d minutes, which I don't do.", int(schedule.MinInterval.Minutes()))
	case SurfaceOf(s.ChannelID) == SurfaceSlack && req.To.Kind == schedule.DestChannel && req.To.Channel == "" && req.To.Name != "":
		// Slack sends a channel picked from its list as a link with its
		// id; a name typed out may be no channel at all.
		return fmt.Sprintf("I couldn't tell which channel “#%s” is: type # and pick it from Slack's list, so that it becomes a link.", req.To.Name)
	}
	if col := req.Condition.Column; col != "" {
		// The column is what counts, not today's value: an empty result
		// or a NULL (a sum of no rows) may well change by the next check.
		if res != nil && numberColumn(res.Columns, col) < 0 {
			return fmt.Sprintf("The answer has no number column “%s”: its columns are %s.", col, strings.Join(res.ColumnNames(), ", "))
		}
	}
	return ""
}

// watchedColumn names the column an alert on a value reads when its words
// named none, from the answer's result res: its one number column, so the
// confirmation and every post say what is compared. An answer with
// several number columns (a year beside a count) or none has no value to
// pick: unclear says so and how to name one. Without the result at hand
// (res nil: its cache expired) c comes back as it was, and runs read the
// first number column.
func watchedColumn(c schedule.Condition, res *warehouse.Result) (_ schedule.Condition, unclear string) {
	switch c.Kind {
	case "", schedule.CondAnyRows, schedule.CondNoRows:
		return c, ""
	}
	if c.Column != "" {
		return c, ""
	}
	if res == nil {
		return c, ""
	}
	var numbers []string
	for _, col := range res.Columns {
		if col.Kind == warehouse.KindNumber {
			numbers = append(numbers, col.Name)
		}
	}
	switch len(numbers) {
	case 0:
		return c, fmt.Sprintf("The answer has no number to watch: its columns are %s.",
			strings.Join(res.ColumnNames(), ", "))
	case 1:
		c.Column = numbers[0]
		return c, ""
	}
	named := c
	named.Column = numbers[len(numbers)-1]
	return c, fmt.Sprintf("The answer has several numbers (%s): say which to watch, e.g. “alert me %s”.",
		strings.Join(numbers, ", "), named.Describe())
}

// alertCheck is how often an alert is checked when its words do not say.
func alertCheck(loc *time.Location) schedule.When {
	w, _ := schedule.ParseSpec("0 * * * *", loc) // a valid spec
	return w
}

// scheduledAnswer finds the answer a schedule is made of; it records on s
// why there is none, or why the asker may not read it.
func (n *Nodes) scheduledAnswer(ctx context.Context, s *State) (store.Turn, bool) {
	turn, ok := n.referredAnswer(ctx, s, lookup{none: "nothing to schedule"})
	if !ok {
		return turn, false
	}
	if !n.ours(s, turn.Query) || !n.mayRead(ctx, s, turn.Query) {
		return turn, false
	}
	return turn, true
}

// pending is the schedule req asks of turn's answer, for s's asker.
func (n *Nodes) pending(s *State, turn store.Turn, req schedule.Request) store.Schedule {
	surface := SurfaceOf(s.ChannelID)
	sch := store.Schedule{
		State: store.SchedulePending, OwnerID: s.UserID, OwnerEmail: s.UserEmail, Surface: surface,
		SourceThread: s.ThreadTS, SourceChannel: s.ChannelID,
		Query: turn.Query, QueryID: cmp.Or(turn.QueryID, warehouse.IDOf(n.Warehouse, turn.Query)),
		Question: cmp.Or(turn.Question, turn.UserMessage),
		Spec:     req.When.Spec, TimeZone: req.When.Location.String(),
		DestKind: string(req.To.Kind), Format: string(cmp.Or(req.Format, schedule.FormatAnswer)),
		CondKind: string(req.Condition.Kind), CondThreshold: req.Condition.Threshold, CondColumn: req.Condition.Column,
		CondUnit: string(req.Condition.Unit),
	}
	switch {
	case surface != SurfaceSlack:
		// The web chat and the command line have one place to post: the
		// thread, which shows the runs when it is opened again.
		sch.DestKind, sch.DestChannel, sch.DestThread = string(schedule.DestThread), s.ChannelID, s.ThreadTS
	case req.To.Kind == schedule.DestDM:
		sch.DestChannel = s.UserID // Slack posts to a user id in the app's DM with them
	case req.To.Kind == schedule.DestChannel:
		sch.DestChannel, sch.DestName = cmp.Or(req.To.Channel, s.ChannelID), req.To.Name
		if req.To.Channel == "" && req.To.Name != "" {
			sch.DestChannel = "#" + req.To.Name
		}
	default:
		sch.DestChannel, sch.DestThread = s.ChannelID, s.ThreadTS
	}
	return sch
}

// presetsReply offers the presets for the answer behind turn.
func presetsReply(turn store.Turn) *answer.Answer {
	a := &answer.Answer{Kind: answer.KindNotice,
		Text: answer.Concat(words("When should I send you "), quote(cmp.Or(turn.Question, turn.UserMessage)),
			words("? "+textScheduleHow))}
	for _, p := range Presets {
		a.Actions = append(a.Actions, answer.Action{ID: ActionSchedulePreset, Label: p.Label, Value: turn.QueryID + " " + p.Spec})
	}
	return a
}

// DescribeSchedule says in plain words what a schedule does: "post
// “Games per year” in <#C0123|growth> every Monday at 09:00
// (Europe/London), only when count is above 100", its channel a mention
// and its question shown as it was typed, never as markup.
func DescribeSchedule(s store.Schedule, w schedule.When) answer.Text {
	return describeSchedule(s, w, false, false)
}

// describeSchedule words s as DescribeSchedule does, or, listed, for a
// list of schedules read wherever it was asked for: a thread is named by
// its channel ("in a thread of <#C0123>"), and, others set, a schedule
// that sends its owner a message names them ("send <@U1> …").
func describeSchedule(s store.Schedule, w schedule.When, listed, others bool) answer.Text {
	what := "send you"
	if others {
		what = "send <@" + s.OwnerID + ">"
	}
	switch s.DestKind {
	case string(schedule.DestThread):
		what = "post"
	case string(schedule.DestChannel):
		what = "post"
	}
	if s.Format == string(schedule.FormatCSV) {
		what += " the CSV of"
	}
	where := " in a direct message"
	switch s.DestKind {
	case string(schedule.DestThread):
		where = " in this thread"
		switch {
		case listed && s.Surface == SurfaceSlack && s.DestChannel != "":
			where = " in a thread of " + channelLabel(s)
		case listed:
			where = " in the conversation it was made in"
		case s.Surface != SurfaceSlack:
			where = " in this conversation"
		}
	case string(schedule.DestChannel):
		where = " in " + channelLabel(s)
	}
	rest := fmt.Sprintf("%s %s (%s)", where, w.Describe(), s.TimeZone)
	if c := ConditionOf(s); c.Kind != "" {
		rest += ", only " + c.Describe()
	}
	return answer.Concat(words(what+" "), quote(s.Question), words(rest))
}

// channelLabel names a schedule's channel for people: a Slack mention
// (Slack shows the channel's current name; other surfaces "#growth"), or
// the name as written.
func channelLabel(s store.Schedule) string {
	name := strings.TrimPrefix(s.DestName, "#")
	switch {
	case s.DestChannel != "" && !strings.HasPrefix(s.DestChannel, "#") && name == "":
		return "<#" + s.DestChannel + ">"
	case s.DestChannel != "" && !strings.HasPrefix(s.DestChannel, "#"):
		return "<#" + s.DestChannel + "|" + name + ">"
	case name != "":
		return "#" + name
	}
	return s.DestChannel
}

// ConditionOf is a schedule's alert condition.
func ConditionOf(s store.Schedule) schedule.Condition {
	return schedule.Condition{Kind: schedule.ConditionKind(s.CondKind), Threshold: s.CondThreshold,
		Column: s.CondColumn, Unit: schedule.ThresholdUnit(s.CondUnit)}
}

// location is the asker's time zone, else the bot's (TZ).
func (n *Nodes) location(tz string) *time.Location {
	if tz != "" {
		if loc, err := time.LoadLocation(tz); err == nil {
			return loc
		}
	}
	if n.TimeZone != nil {
		return n.TimeZone
	}
	return time.UTC
}

// formatWhen writes a run's time for people: "Monday 30 November at 09:00".
func formatWhen(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("Monday 2 January at 15:04")
}
