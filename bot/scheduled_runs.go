package bot

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/store"
)

// What a scheduler (package scheduler, which sits above bot) needs of the
// bot: a claimed run answered as its owner (RunScheduled), kept as a turn
// where it was posted (KeepScheduled), the local surfaces' posts
// (LocalDeliverer), and the words and time zones its notes use.

// Delivered is where a scheduled run was posted.
type Delivered struct {
	// ThreadID is the thread the message is in ("C1:1700000000.000100").
	ThreadID string
	// Channel and TS are the message's, for the run's record.
	Channel, TS string
}

// Refusal is a Deliverer's error for a post its surface will not make for
// the schedule's owner (they left the channel it posts to): the schedule
// stops, and its owner is told Reason.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return "refused: " + r.Reason }

// Undeliverable is a Deliverer's error for a post the surface will not
// take where the schedule says until someone acts (the channel archived or
// gone, the bot not in it): trying again within the run cannot pass, so
// the run fails at once and its owner is told Reason ("the channel is
// archived").
type Undeliverable struct {
	Reason string
	Err    error
}

func (u *Undeliverable) Error() string { return "cannot post: " + u.Reason + ": " + u.Err.Error() }

// Unwrap is the surface's own error.
func (u *Undeliverable) Unwrap() error { return u.Err }

// ErrMembershipUnknown is what an Owners error wraps when the surface
// could not say now whether a schedule's owner is still a member of a
// channel the run depends on (Slack rate-limited or down): the run reads
// nothing and is tried again, and its owner is told that, not that their
// identity is in doubt.
var ErrMembershipUnknown = errors.New("whether the owner is still in the channel is unknown")

// Logger is the bot's logger.
func (b *Bot) Logger() *slog.Logger { return b.log }

// ScheduleCommand is the command that lists and manages schedules on
// surface ("/ask schedules" in Slack).
func (b *Bot) ScheduleCommand(surface string) string { return b.scheduleCommand(surface) }

// LocationOf is the time zone tz names, else TZ's.
func (b *Bot) LocationOf(tz string) *time.Location { return b.locationOf(tz) }

// RunScheduled runs a claimed run's query through the workflow as its
// owner, in a thread of the schedule's own (its query logs say
// "schedule-<id>"), without the model.
func (b *Bot) RunScheduled(ctx context.Context, c store.Claim, lateAfter time.Duration) (*nodes.State, error) {
	sch := c.Schedule
	channel := policyChannel(sch)
	s := &nodes.State{
		UserQuery: "[schedule " + sch.ID + "] " + sch.Question, UserID: sch.OwnerID, UserEmail: sch.OwnerEmail,
		ChannelID: channel, ThreadTS: "schedule-" + sch.ID, Started: time.Now(),
		Intent: nodes.IntentScheduledRun, Scheduled: &nodes.ScheduledRun{Schedule: sch, Due: c.Due,
			Late: c.Attempt == 1 && b.now().Sub(c.Due) > lateAfter, Previous: sch.LastValue},
	}
	s, _, err := b.run(ctx, s)
	return s, err
}

// policyChannel is the channel a schedule's runs ask from, for its
// owner's access policy and row scoping: where it posts, or for a direct
// message (whose channel id the bot may not know) and the web chat's and
// terminal's, where it was made.
func policyChannel(sch store.Schedule) string {
	if sch.DestKind == string(schedule.DestDM) || sch.Surface != nodes.SurfaceSlack {
		return sch.SourceChannel
	}
	return sch.DestChannel
}

// KeepScheduled keeps a posted run as a turn of the thread it went to,
// with its result, so its Export CSV and Show SQL work there and
// follow-ups see it.
func (b *Bot) KeepScheduled(ctx context.Context, s *nodes.State, threadID string) {
	if threadID == "" {
		return
	}
	sch := s.Scheduled.Schedule
	// It ran for its owner, from the channel whose policy it ran under,
	// as that policy (within a ceiling, the policy within it: s.Policy):
	// the rows are served to them alone, and run again for anyone else.
	runFor := store.Asker{UserID: s.UserID, Email: s.UserEmail, ChannelID: s.ChannelID, Policy: s.Policy}
	if err := b.cache.Put(ctx, store.CachedResult{ThreadID: threadID, QueryID: s.QueryID, Query: s.Query,
		Question: sch.Question, Result: s.Result, RunFor: runFor}); err != nil {
		b.log.WarnContext(ctx, "keep a scheduled run's result", "thread", threadID, "err", err)
	}
	var reply []byte
	if s.Reply != nil {
		reply, _ = answer.Marshal(s.Reply)
	}
	// The turn reads as the question asked again, which Show SQL names.
	_, err := b.db.AddTurn(ctx, store.Turn{ThreadID: threadID, UserID: sch.OwnerID, ChannelID: sch.DestChannel,
		UserMessage: sch.Question, BotResponse: s.Answer, Intent: string(s.Intent), Query: s.Query,
		QueryID: s.QueryID, Question: sch.Question, Reply: reply})
	if err != nil {
		b.log.WarnContext(ctx, "keep a scheduled run as a turn", "thread", threadID, "err", err)
	}
}

// LocalDeliverer posts the web chat's and the command line's schedules:
// the run becomes a turn of the schedule's thread, which the page and
// `chat --thread` show; a note to the owner is a turn there too.
type LocalDeliverer struct{ b *Bot }

// LocalDeliverer posts b's web chat's and command line's schedules.
func (b *Bot) LocalDeliverer() LocalDeliverer { return LocalDeliverer{b: b} }

// Deliver says where the run went: the schedule's thread, which keeps it
// as a turn (KeepScheduled).
func (l LocalDeliverer) Deliver(_ context.Context, sch store.Schedule, _ Reply) (Delivered, error) {
	if sch.DestThread == "" {
		return Delivered{}, errors.New("a local schedule without its thread")
	}
	return Delivered{ThreadID: sch.DestThread}, nil
}

// Tell adds the note to the thread the schedule was made in: its spans as
// the reply, its plain text as the bot's words (what the model's history,
// the web thread and the command line read).
func (l LocalDeliverer) Tell(ctx context.Context, sch store.Schedule, text answer.Text) error {
	reply, _ := answer.Marshal(&answer.Answer{Kind: answer.KindNotice, Text: text})
	_, err := l.b.db.AddTurn(ctx, store.Turn{ThreadID: sch.SourceThread, UserID: sch.OwnerID, ChannelID: sch.SourceChannel,
		UserMessage: "[schedule " + sch.ID + "]", BotResponse: text.Plain(), Intent: string(nodes.IntentSchedule), Reply: reply})
	return err
}
