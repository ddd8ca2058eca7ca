package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"text/tabwriter"
	"time"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/scheduler"
	"github.com/analyticsbot/analyticsbot/slackapp"
	"github.com/analyticsbot/analyticsbot/store"
)

const schedulesForm = `schedules list [--user ID] [--channel ID] [--state active|paused|stopped|pending] [--json]
       schedules runs ID [--limit N] [--json]
       schedules pause|resume|delete ID...
       schedules run-now ID`

var scheduleIDArg = regexp.MustCompile(`^[0-9a-f]{8}$`)

// schedulesCommand lets whoever runs the bot see and manage every
// schedule: list them, see a schedule's runs, pause, resume or delete
// them, and run one now (here, when this process can post it; else by the
// running bot within SCHEDULE_POLL).
func schedulesCommand(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: %s", errUsage, schedulesForm)
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "list", "runs", "pause", "resume", "delete", "run-now":
	default:
		return fmt.Errorf("%w: unknown schedules command %q: %s", errUsage, sub, schedulesForm)
	}
	fs := newFlagSet("schedules " + sub)
	user := fs.String("user", "", "only this owner's schedules")
	channel := fs.String("channel", "", "only schedules posting to (or made in) this channel")
	state := fs.String("state", "", "only schedules in this state")
	limit := fs.Int("limit", 20, "runs: show at most this many")
	asJSON := fs.Bool("json", false, "print JSON")
	// Flags after the ids too: `schedules runs 3f9a1c2b --limit 5`.
	ids, err := parseInterspersed(fs, rest)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", errUsage, schedulesForm, err)
	}
	switch {
	case sub == "list" && len(ids) > 0, sub == "runs" && len(ids) != 1, sub == "run-now" && len(ids) != 1,
		sub != "list" && len(ids) == 0:
		return fmt.Errorf("%w: %s", errUsage, schedulesForm)
	}
	for _, id := range ids {
		if !scheduleIDArg.MatchString(id) {
			return fmt.Errorf("%w: %q is not a schedule id (8 hex characters, as `schedules list` shows)", errUsage, id)
		}
	}
	switch store.ScheduleState(*state) {
	case "", store.ScheduleActive, store.SchedulePaused, store.ScheduleStopped, store.SchedulePending:
	default:
		// An unknown state would list nothing and say "no schedules".
		return fmt.Errorf("%w: --state must be active, paused, stopped or pending, got %q", errUsage, *state)
	}
	b, err := openBot(ctx)
	if err != nil {
		return err
	}
	defer b.Close()
	db := b.DB()
	switch sub {
	case "list":
		f := store.ScheduleFilter{OwnerID: *user, Channel: *channel}
		if *state != "" {
			f.States = []store.ScheduleState{store.ScheduleState(*state)}
		}
		list, err := db.Schedules(ctx, f)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSONTo(out, list)
		}
		printSchedules(out, b, list)
		return nil
	case "runs":
		runs, err := db.ScheduleRuns(ctx, ids[0], *limit)
		if err != nil {
			return err
		}
		if len(runs) == 0 {
			// No runs of a schedule that is not there is no "no runs yet".
			if _, err := db.ScheduleByID(ctx, ids[0]); err != nil {
				return err
			}
		}
		if *asJSON {
			return writeJSONTo(out, runs)
		}
		printRuns(out, runs)
		return nil
	case "run-now":
		return runNow(ctx, b, ids[0], out)
	}
	for _, id := range ids {
		if err := changeSchedule(ctx, b, sub, id, out); err != nil {
			return err
		}
	}
	return nil
}

// changeSchedule pauses, resumes or deletes one schedule as the operator.
func changeSchedule(ctx context.Context, b *bot.Bot, sub, id string, out io.Writer) error {
	db := b.DB()
	sch, err := db.ScheduleByID(ctx, id)
	if err != nil {
		return err
	}
	switch sub {
	case "delete":
		if err := db.DeleteSchedule(ctx, id); err != nil {
			return err
		}
		fmt.Fprintf(out, "deleted %s (%s)\n", id, sch.Question)
		return nil
	case "pause":
		_, err = db.ChangeSchedule(ctx, store.ScheduleChange{ID: id, From: []store.ScheduleState{store.ScheduleActive}, To: store.SchedulePaused})
	case "resume":
		loc, lerr := time.LoadLocation(sch.TimeZone)
		if lerr != nil {
			return fmt.Errorf("schedule %s: time zone %q: %w", id, sch.TimeZone, lerr)
		}
		w, werr := schedule.ParseSpec(sch.Spec, loc)
		if werr != nil {
			return fmt.Errorf("schedule %s: %w", id, werr)
		}
		next := w.Next(time.Now())
		_, err = db.ChangeSchedule(ctx, store.ScheduleChange{ID: id, From: []store.ScheduleState{store.SchedulePaused, store.ScheduleStopped},
			To: store.ScheduleActive, Next: &next})
		if err == nil {
			fmt.Fprintf(out, "resumed %s (%s): next run %s\n", id, sch.Question, next.In(loc).Format("Mon 2 Jan 2006 15:04 MST"))
			return nil
		}
	}
	if errors.Is(err, store.ErrScheduleState) {
		return fmt.Errorf("%s is %s: nothing to %s", id, sch.State, sub)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s %s (%s)\n", map[string]string{"pause": "paused"}[sub], id, sch.Question)
	return nil
}

// runNow makes a schedule due now and, when this process can post it (the
// web chat's and the command line's always, Slack's with SLACK_BOT_TOKEN),
// runs it here at once; the claim keeps a running `serve` from running it
// too.
func runNow(ctx context.Context, b *bot.Bot, id string, out io.Writer) error {
	db := b.DB()
	sch, err := db.ScheduleByID(ctx, id)
	if err != nil {
		return err
	}
	switch err := db.RunScheduleNow(ctx, id, time.Now()); {
	case errors.Is(err, store.ErrScheduleState):
		return fmt.Errorf("%s is %s: resume it first", id, sch.State)
	case errors.Is(err, store.ErrRunUnderWay):
		return fmt.Errorf("%s has a run under way: try again once it is done (`schedules runs %s`)", id, id)
	case err != nil:
		return err
	}
	sc := scheduler.New(b, scheduler.Options{Only: id, Runner: "cli-run-now"})
	if sch.Surface == nodes.SurfaceSlack {
		scfg, err := slackapp.ConfigFromEnv()
		if err != nil || scfg.BotToken == "" {
			fmt.Fprintf(out, "%s is due now: the running bot posts it within SCHEDULE_POLL (%s).\n", id, b.Config().SchedulePoll)
			return nil
		}
		app, err := slackapp.New(ctx, scfg, b, slog.Default())
		if err != nil {
			return err
		}
		sc.Handle(nodes.SurfaceSlack, app)
	}
	n, err := sc.Tick(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		fmt.Fprintf(out, "%s is due now; a running bot has it already.\n", id)
		return nil
	}
	runs, err := db.ScheduleRuns(ctx, id, 1)
	if err != nil || len(runs) == 0 {
		return err
	}
	r := runs[0]
	fmt.Fprintf(out, "ran %s (%s): %s", id, sch.Question, r.Outcome)
	if r.ErrorKind != "" {
		fmt.Fprintf(out, " (%s)", r.ErrorKind)
	}
	fmt.Fprintln(out)
	if r.Outcome == store.RunFailed || r.Outcome == store.RunRefused {
		return errRejected
	}
	return nil
}

func printSchedules(out io.Writer, b *bot.Bot, list []store.Schedule) {
	if len(list) == 0 {
		fmt.Fprintln(out, "no schedules")
		return
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tOWNER\tWHEN\tWHERE\tCONDITION\tNEXT\tLAST\tQUESTION")
	for _, s := range list {
		loc, err := time.LoadLocation(s.TimeZone)
		if err != nil {
			loc = time.UTC
		}
		when := s.Spec
		if w, err := schedule.ParseSpec(s.Spec, loc); err == nil {
			when = w.Describe()
		}
		next := "-"
		if s.NextRunAt != nil {
			next = s.NextRunAt.In(loc).Format("2006-01-02 15:04 MST")
		}
		where := s.DestKind + " " + s.DestChannel
		if s.DestThread != "" && s.Surface != nodes.SurfaceSlack {
			where = s.DestKind + " " + s.DestThread
		}
		cond := "-"
		if s.CondKind != "" {
			cond = nodes.ConditionOf(s).Describe()
		}
		state := string(s.State)
		if s.StopReason != "" {
			state += ": " + s.StopReason
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s (%s)\t%s\t%s\t%s\t%s\t%s\n", s.ID, state, s.OwnerID, when, s.TimeZone, where, cond, next,
			dash(s.LastOutcome), s.Question)
	}
	tw.Flush()
}

func printRuns(out io.Writer, runs []store.ScheduleRun) {
	if len(runs) == 0 {
		fmt.Fprintln(out, "no runs yet")
		return
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DUE\tATTEMPT\tRUNNER\tOUTCOME\tROWS\tVALUE\tPOSTED\tERROR")
	for _, r := range runs {
		rows, value := "-", "-"
		if r.Rows != nil {
			rows = fmt.Sprint(*r.Rows)
		}
		if r.Value != nil {
			value = fmt.Sprint(*r.Value)
		}
		posted := "-"
		if r.PostedTS != "" {
			posted = r.PostedChannel + " " + r.PostedTS
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Due.UTC().Format("2006-01-02 15:04 UTC"), r.Attempt, r.Runner,
			r.Outcome, rows, value, posted, dash(r.ErrorKind))
	}
	tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
