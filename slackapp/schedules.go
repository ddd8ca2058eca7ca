package slackapp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/slack-go/slack"

	reply "github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
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
	s, err := a.bot.ListSchedules(ctx, bot.Message{UserID: cmd.UserID, ChannelID: cmd.ChannelID}, scope)
	return ephemeralReply(a.reply(s, err)), true
}

// Deliver posts a scheduled run in Slack: in its thread, as a new message
// of its channel, or in a DM with its owner (a post to a user id), with the
// CSV uploaded under it for a CSV schedule. It is the Slack surface of
// bot.Scheduler.
func (a *App) Deliver(ctx context.Context, sch store.Schedule, s *nodes.State) (bot.Delivered, error) {
	channel, root := sch.DestChannel, ""
	if sch.DestKind == "thread" {
		c, ts, ok := strings.Cut(sch.DestThread, ":")
		if !ok || c == "" || ts == "" {
			return bot.Delivered{}, fmt.Errorf("schedule %s: %q is not a Slack thread", sch.ID, sch.DestThread)
		}
		channel, root = c, ts
	}
	m := a.reply(s, nil)
	in, ts, err := a.postIn(ctx, channel, root, m)
	if err != nil {
		return bot.Delivered{}, err
	}
	thread := root
	if thread == "" {
		thread = ts
	}
	if s.HasCSV() {
		p := press{channel: in, threadTS: thread, user: sch.OwnerID}
		if err := a.uploadCSV(ctx, p, s); err != nil {
			// The answer is posted; the file's failure is the owner's to
			// know, and the run counts as posted (not posted twice).
			a.log.ErrorContext(ctx, "scheduled CSV not uploaded", "schedule", sch.ID, "err", err)
			a.tellOwner(ctx, sch, fmt.Sprintf("I posted “%s” but couldn't attach its CSV file this time.", sch.Question))
		}
	}
	return bot.Delivered{ThreadID: threadID(in, thread), Channel: in, TS: ts}, nil
}

// Tell sends a schedule's owner a direct message.
func (a *App) Tell(ctx context.Context, sch store.Schedule, text string) error {
	if sch.OwnerID == "" {
		return errors.New("a schedule without an owner")
	}
	_, err := a.post(ctx, sch.OwnerID, "", blockkit.Reply(&reply.Answer{Kind: reply.KindNotice, Text: reply.ParseText(text)}))
	return err
}

func (a *App) tellOwner(ctx context.Context, sch store.Schedule, text string) {
	if err := a.Tell(ctx, sch, text); err != nil {
		a.log.ErrorContext(ctx, "tell a schedule's owner", "schedule", sch.ID, "err", err)
	}
}
