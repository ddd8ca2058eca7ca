package bot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/store"
)

// Refusal is a Deliverer's error for a post its surface will not make for
// the schedule's owner (they left the channel it posts to): the schedule
// stops, and its owner is told Reason.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return "refused: " + r.Reason }

// refusedKinds stop a schedule: its owner may no longer read what it
// reads. permanentKinds fail every attempt alike and are not retried.
var (
	refusedKinds   = map[nodes.ErrorKind]bool{nodes.ErrNotAdmitted: true, nodes.ErrAccessDenied: true}
	permanentKinds = map[nodes.ErrorKind]bool{nodes.ErrInvalidQuery: true, nodes.ErrUnsafeQuery: true,
		nodes.ErrNoData: true, nodes.ErrWarehouseDenied: true}
)

// runFailure is the error kind of a run that did not answer; "" for one
// that did.
func runFailure(s *nodes.State, err error) nodes.ErrorKind {
	switch {
	case err != nil || s == nil:
		return nodes.ErrInternal
	case s.ErrorKind != "":
		return s.ErrorKind
	}
	return ""
}

// failureWords says why a run failed, for its owner.
func failureWords(kind string, attempts int) string {
	why := "something went wrong on my side"
	switch nodes.ErrorKind(kind) {
	case nodes.ErrWarehouseDown, nodes.ErrDatabaseDown:
		why = "the database could not be reached"
	case nodes.ErrWarehouseNoAnswer:
		why = "the database did not answer in time"
	case nodes.ErrQueryTimeout:
		why = "the query took too long"
	case nodes.ErrInvalidQuery, nodes.ErrNoData:
		why = "the query no longer runs on the data as it is now"
	case nodes.ErrWarehouseDenied:
		why = "the bot's database account may not read what it needs"
	case "delivery_failed":
		why = "I couldn't post the message"
	}
	if attempts > 1 {
		why += fmt.Sprintf(", %d tries", attempts)
	}
	return why
}

// runScheduled runs a claimed run's query through the workflow as its
// owner, in a thread of the schedule's own (its query logs say
// "schedule-<id>"), without the model.
func (b *Bot) runScheduled(ctx context.Context, c store.Claim, lateAfter time.Duration) (*nodes.State, error) {
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

// keepScheduled keeps a posted run as a turn of the thread it went to,
// with its result, so its Export CSV and Show SQL work there and
// follow-ups see it.
func (b *Bot) keepScheduled(ctx context.Context, s *nodes.State, threadID string) {
	if threadID == "" {
		return
	}
	sch := s.Scheduled.Schedule
	if err := b.cache.Put(ctx, store.CachedResult{ThreadID: threadID, QueryID: s.QueryID, Query: s.Query,
		Question: sch.Question, Result: s.Result}); err != nil {
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

// localDeliverer posts the web chat's and the command line's schedules:
// the run becomes a turn of the schedule's thread, which the page and
// `chat --thread` show; a note to the owner is a turn there too.
type localDeliverer struct{ b *Bot }

func (l localDeliverer) Deliver(_ context.Context, sch store.Schedule, _ Reply) (Delivered, error) {
	if sch.DestThread == "" {
		return Delivered{}, errors.New("a local schedule without its thread")
	}
	return Delivered{ThreadID: sch.DestThread}, nil
}

func (l localDeliverer) Tell(ctx context.Context, sch store.Schedule, text string) error {
	reply, _ := answer.Marshal(&answer.Answer{Kind: answer.KindNotice, Text: answer.ParseText(text)})
	_, err := l.b.db.AddTurn(ctx, store.Turn{ThreadID: sch.SourceThread, UserID: sch.OwnerID, ChannelID: sch.SourceChannel,
		UserMessage: "[schedule " + sch.ID + "]", BotResponse: text, Intent: string(nodes.IntentSchedule), Reply: reply})
	return err
}
