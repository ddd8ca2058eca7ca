package slackapp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/slack-go/slack"

	reply "github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/bot"
)

// listTimeout bounds reading the schedules for "/ask schedules", which
// Slack wants answered within three seconds.
const listTimeout = 2 * time.Second

// schedulesCommand answers "/ask schedules" (the user's own) and
// "/ask schedules here" (every schedule of the channel, for schedule
// admins), shown only to the user who typed it. ok is false for any other
// text, which is a question.
func (a *App) schedulesCommand(cmd slack.SlashCommand, text string) (commandReply, bool) {
	words := strings.Fields(strings.ToLower(text))
	if len(words) == 0 || words[0] != "schedules" && words[0] != "schedule" || len(words) > 2 {
		return commandReply{}, false
	}
	scope := bot.MySchedules
	if len(words) == 2 {
		if words[1] != "here" && words[1] != "channel" && words[1] != "all" {
			return commandReply{}, false
		}
		scope = bot.ChannelSchedules
	}
	ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
	defer cancel()
	r, err := a.bot.ShowSchedules(ctx, bot.Message{UserID: cmd.UserID, ChannelID: cmd.ChannelID}, scope)
	if err != nil {
		a.log.ErrorContext(ctx, "list schedules", "user", cmd.UserID, "err", err)
	}
	return ephemeralReply(a.reply(r)), true
}

// Deliver posts a scheduled run in Slack: in its thread, as a new message
// of its channel, or in a DM with its owner (a post to a user id), with the
// CSV uploaded under it for a CSV schedule. It is the Slack surface of
// the scheduler (package scheduler), which asks Owner first.
func (a *App) Deliver(ctx context.Context, sch bot.Schedule, r bot.Reply) (bot.Delivered, error) {
	channel, root := sch.DestChannel, ""
	if sch.DestKind == "thread" {
		c, ts, ok := strings.Cut(sch.DestThread, ":")
		if !ok || c == "" || ts == "" {
			return bot.Delivered{}, fmt.Errorf("schedule %s: %q is not a Slack thread", sch.ID, sch.DestThread)
		}
		channel, root = c, ts
	}
	m := a.reply(r)
	in, ts, err := a.postIn(ctx, channel, root, m, slack.MsgOptionMetadata(runMetadata(sch.ID, r.Due)))
	if why := whyCannotPost(err, a.botName()); why != "" {
		return bot.Delivered{}, &bot.Undeliverable{Reason: why, Err: err}
	}
	if err != nil {
		return bot.Delivered{}, err
	}
	thread := root
	if thread == "" {
		thread = ts
	}
	if r.File != nil {
		p := press{channel: in, threadTS: thread, user: sch.OwnerID}
		// The file goes under the post, which says everything (a cut
		// export's note too): its upload carries no comment, or the
		// thread would show the post's text twice.
		file := r
		file.Text, file.Answer = "", nil
		if err := a.uploadCSV(ctx, p, file); err != nil {
			// The answer is posted; the file's failure is the owner's to
			// know, and the run counts as posted (not posted twice).
			a.log.ErrorContext(ctx, "scheduled CSV not uploaded", "schedule", sch.ID, "err", err)
			a.tellOwner(ctx, sch, reply.Concat(reply.Words("I posted "), reply.Quote(sch.Question),
				reply.Words(" but couldn't attach its CSV file this time.")))
		}
	}
	return bot.Delivered{ThreadID: threadID(in, thread), Channel: in, TS: ts}, nil
}

// Owner says who sch's owner is now, before a run reads as them: their
// address as users.info gives it today (the one row-level security
// scopes rows by, read as a question's is, within emailTTL), never the one
// saved with the schedule. It refuses the run (*bot.Refusal: the schedule
// stops and its owner is told) once their account is deactivated or they
// have left a channel it depends on (ownerStillIn), fails it at once
// (*bot.Undeliverable, in the words a post there would get) when that
// channel is gone or hidden from the bot, and fails it (tried again, then
// its owner told) when Slack cannot say: a run never reads as an identity
// Slack did not just vouch for.
func (a *App) Owner(ctx context.Context, sch bot.Schedule) (string, error) {
	p, err := a.people.current(ctx, sch.OwnerID)
	switch {
	case err != nil:
		return "", fmt.Errorf("who is %s now: %w", sch.OwnerID, err)
	case p.deactivated:
		return "", &bot.Refusal{Reason: "your Slack account is deactivated."}
	}
	if err := a.ownerStillIn(ctx, sch); err != nil {
		return "", err
	}
	return p.email, nil
}

// ownerStillIn refuses a run whose owner has left a channel it depends
// on, checked at each run: the channel it posts to, or whose thread it
// posts in, even the one they made it in (a direct message with the bot
// aside), and for a direct message the channel it was made in, whose
// access policy the run reads with (bot.policyChannel): a policy the
// access file gives a channel is its members', and what is posted there
// is for its members; neither outlives the owner's place there. A channel
// Slack says is gone, archived or hidden from the bot fails the run as a
// post there would (*bot.Undeliverable: no retry within the run passes);
// any other failure to ask wraps bot.ErrMembershipUnknown.
func (a *App) ownerStillIn(ctx context.Context, sch bot.Schedule) error {
	const left = "you are no longer a member of the channel it posts to."
	channel, reason := "", ""
	switch sch.DestKind {
	case "channel":
		channel, reason = sch.DestChannel, left
	case "thread":
		channel, _, _ = strings.Cut(sch.DestThread, ":")
		reason = left
	case "dm":
		channel, reason = sch.SourceChannel, "you are no longer a member of the channel it was made in, whose access it reads with."
	}
	if channel == "" || strings.HasPrefix(channel, "D") {
		return nil
	}
	member, err := a.isMember(ctx, channel, sch.OwnerID)
	if why := whyCannotPost(err, a.botName()); why != "" {
		if sch.DestKind == "dm" {
			why = "I can't check the channel it was made in, whose access it reads with: " + why
		}
		return &bot.Undeliverable{Reason: why, Err: err}
	}
	if err != nil {
		return fmt.Errorf("%w: %w", bot.ErrMembershipUnknown, err)
	}
	if !member {
		return &bot.Refusal{Reason: reason}
	}
	return nil
}

// maxReplyPages bounds the pages of a thread Find reads (200 replies each).
const maxReplyPages = 10

// runEvent is the event type of the metadata a scheduled run's message
// carries, which Find looks for.
const runEvent = "analyticsbot_scheduled_run"

// runMetadata marks a run's message with its schedule and due time.
func runMetadata(id string, due time.Time) slack.SlackMetadata {
	return slack.SlackMetadata{EventType: runEvent, EventPayload: map[string]any{"schedule": id, "due": due.Unix()}}
}

// Find looks for the message of sch's run due at due by its metadata,
// among the thread's replies (up to 2,000) or the channel's (or the DM's)
// latest 200 messages (scopes channels:history, groups:history, im:history): the run
// was posted within a lease, so it is among them unless the channel is
// very busy. A
// DM's channel is the one its earlier runs went to, else
// conversations.open's (scope im:write); without either it cannot tell.
func (a *App) Find(ctx context.Context, sch bot.Schedule, due time.Time) (bot.Delivered, bool, error) {
	var msgs []slack.Message
	channel := sch.DestChannel
	switch sch.DestKind {
	case "thread":
		c, root, _ := strings.Cut(sch.DestThread, ":")
		channel = c
		// Replies come oldest first: the run, one of the latest, may be on
		// a later page of a long thread.
		cursor := ""
		for range maxReplyPages {
			replies, more, next, err := a.api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{
				ChannelID: c, Timestamp: root, Limit: 200, Cursor: cursor, IncludeAllMetadata: true})
			if err != nil {
				return bot.Delivered{}, false, fmt.Errorf("conversations.replies: %w", err)
			}
			msgs = append(msgs, replies...)
			if !more || next == "" {
				break
			}
			cursor = next
		}
	default:
		if sch.DestKind == "dm" {
			var err error
			if channel, err = a.dmChannel(ctx, sch); err != nil {
				return bot.Delivered{}, false, err
			}
		}
		h, err := a.api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{
			ChannelID: channel, Limit: 200, IncludeAllMetadata: true})
		if err != nil {
			return bot.Delivered{}, false, fmt.Errorf("conversations.history: %w", err)
		}
		msgs = h.Messages
	}
	for _, m := range msgs {
		md := m.Metadata
		at, _ := md.EventPayload["due"].(float64) // JSON numbers
		if md.EventType == runEvent && md.EventPayload["schedule"] == sch.ID && int64(at) == due.Unix() {
			thread := firstNonEmpty(m.ThreadTimestamp, m.Timestamp)
			return bot.Delivered{ThreadID: threadID(channel, thread), Channel: channel, TS: m.Timestamp}, true, nil
		}
	}
	return bot.Delivered{}, false, nil
}

// dmChannel is the id of the DM a schedule posts to.
func (a *App) dmChannel(ctx context.Context, sch bot.Schedule) (string, error) {
	if ch, err := a.bot.PostedChannel(ctx, sch.ID); err == nil && ch != "" {
		return ch, nil
	}
	c, _, _, err := a.api.OpenConversationContext(ctx, &slack.OpenConversationParameters{Users: []string{sch.OwnerID}, ReturnIM: true})
	if err != nil {
		return "", fmt.Errorf("conversations.open with %s: %w", sch.OwnerID, err)
	}
	return c.ID, nil
}

// isMember reports whether user is a member of channel
// (conversations.members, scopes channels:read and groups:read).
func (a *App) isMember(ctx context.Context, channel, user string) (bool, error) {
	cursor := ""
	for {
		members, next, err := a.api.GetUsersInConversationContext(ctx, &slack.GetUsersInConversationParameters{
			ChannelID: channel, Cursor: cursor, Limit: 1000})
		if err != nil {
			return false, fmt.Errorf("conversations.members of %s: %w", channel, err)
		}
		if slices.Contains(members, user) {
			return true, nil
		}
		if next == "" {
			return false, nil
		}
		cursor = next
	}
}

// Tell sends a schedule's owner a direct message.
func (a *App) Tell(ctx context.Context, sch bot.Schedule, text reply.Text) error {
	if sch.OwnerID == "" {
		return errors.New("a schedule without an owner")
	}
	_, err := a.post(ctx, sch.OwnerID, "", blockkit.Reply(&reply.Answer{Kind: reply.KindNotice, Text: text}))
	return err
}

func (a *App) tellOwner(ctx context.Context, sch bot.Schedule, text reply.Text) {
	if err := a.Tell(ctx, sch, text); err != nil {
		a.log.ErrorContext(ctx, "tell a schedule's owner", "schedule", sch.ID, "err", err)
	}
}
