package nodes

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/chart"
	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// ScheduledRun is one run of a schedule, set by the scheduler with
// IntentScheduledRun.
type ScheduledRun struct {
	Schedule store.Schedule
	// Due is the regular time the run belongs to; Late says it runs well
	// after it (the bot was not running then).
	Due  time.Time
	Late bool
	// Previous is the number the last run read, for alerts.
	Previous *float64
}

// RunSchedule runs a schedule's stored query again, checked as new under
// its owner's policy, and answers from the result alone: no model call. An
// alert reads its number (the named column of the first row, else its
// first number) and says whether its condition holds; a report always
// posts. CSV schedules get the rows as a file.
func (n *Nodes) RunSchedule(ctx context.Context, s *State) error {
	run := s.Scheduled
	if run == nil {
		s.fail(ErrInternal, "a scheduled run without its schedule")
		return nil
	}
	sch := run.Schedule
	if !n.ours(s, sch.Query) {
		return nil
	}
	r, err := n.Warehouse.Check(ctx, sch.Query.Text, n.MaxRows)
	if err != nil {
		dataFailure(s, err)
		return nil
	}
	start := time.Now()
	res, err := n.Warehouse.Run(ctx, r)
	s.DBTime += time.Since(start)
	if err != nil {
		dataFailure(s, err)
		return nil
	}
	s.Query, s.Result, s.ResolvedQuery = r.Query, res, sch.Question
	s.QueryID, _ = r.Dataset(n.Warehouse)
	cond := ConditionOf(sch)
	s.AlertValue = valueOf(res, sch.CondColumn)
	s.Quiet = cond.Kind != "" && !cond.Check(s.AlertValue, run.Previous, res.RowCount)
	if s.Quiet {
		s.SetReply(FormatSimple, &answer.Answer{Kind: answer.KindNotice,
			Text: answer.Plain("The condition did not hold: nothing was sent.")})
		return nil
	}
	s.Answer = n.runHeading(s, run) + "\n" + n.plainSummary(ctx, res)
	if sawSource(sch) {
		// What the answer it was made from assumed, read from its thread.
		s.Assumptions, _ = n.assumptionsOf(ctx, sch.SourceThread, sch.QueryID)
	}
	if sch.Format == string(schedule.FormatCSV) {
		n.scheduledCSV(ctx, s, r, res)
	}
	return nil
}

// runHeading is the first line of a run's message: what it is, and for an
// alert what it found against the last run.
func (n *Nodes) runHeading(s *State, run *ScheduledRun) string {
	sch := run.Schedule
	cond := ConditionOf(sch)
	w, err := schedule.ParseSpec(sch.Spec, n.location(sch.TimeZone))
	when := "scheduled"
	if err == nil {
		when = w.Describe()
	}
	var b strings.Builder
	if cond.Kind == "" {
		fmt.Fprintf(&b, "📅 *%s* (%s)", sch.Question, when)
	} else {
		fmt.Fprintf(&b, "🔔 *%s*: %s", sch.Question, alertFinding(cond, s.AlertValue, run.Previous, s.Result.RowCount))
	}
	if run.Late {
		fmt.Fprintf(&b, "\n_This run was due %s; the bot was not running then._", formatWhen(run.Due, n.location(sch.TimeZone)))
	}
	return b.String()
}

// alertFinding says what an alert found: "count is 130 (was 95), above
// 100" or "3 rows appeared".
func alertFinding(c schedule.Condition, value, previous *float64, rows int) string {
	switch c.Kind {
	case schedule.CondAnyRows, schedule.CondNoRows:
		return fmt.Sprintf("%s now (%s).", answer.Plural(rows, "row", "rows"), c.Describe())
	}
	name := c.Column
	if name == "" {
		name = "the value"
	}
	text := name + " is " + number(value)
	if previous != nil {
		text += " (was " + number(previous) + ")"
	}
	return text + ": " + c.Describe() + "."
}

// number writes a value as people read it: thousands separated, no
// needless decimals, and a small one to its first significant digits
// (0.0042, not 0.00).
func number(v *float64) string {
	switch {
	case v == nil:
		return "no number"
	case *v == math.Trunc(*v) && math.Abs(*v) < 1e15:
		return answer.Thousands(strconv.FormatFloat(*v, 'f', 0, 64))
	case math.Abs(*v) < 1:
		return chart.Significant(*v, 3)
	}
	return answer.Thousands(strconv.FormatFloat(*v, 'f', 2, 64))
}

// valueOf is the number an alert reads from the first row, in the column
// numberColumn picks; nil when there is none, no row, or no number there
// (NULL).
func valueOf(r warehouse.Result, column string) *float64 {
	pick := numberColumn(r.Columns, column)
	if len(r.Rows) == 0 || pick < 0 {
		return nil
	}
	f, ok := answer.NewTable(&r).Number(r.Rows[0], pick)
	if !ok {
		return nil
	}
	return &f
}

// numberColumn is the index of the number column of cols named column (any
// case; spaces as underscores, in either name; else one whose name has it as a word:
// "count" finds "game_count", not "discount"), or with no column named the
// first number column; -1 when there is none.
func numberColumn(cols []warehouse.Column, column string) int {
	want := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(column)), " ", "_")
	pick := -1
	for i, c := range cols {
		if c.Kind != warehouse.KindNumber {
			continue
		}
		name := strings.ReplaceAll(strings.ToLower(c.Name), " ", "_")
		switch {
		case want == "":
			pick = i
		case name == want:
			pick = i
		case pick < 0 && slices.Contains(strings.Split(name, "_"), want):
			pick = i
			continue // an exact name later wins
		default:
			continue
		}
		break
	}
	return pick
}

// scheduledCSV attaches the run's rows as CSV: the result when it holds
// every row, else the query streamed again up to ExportMaxRows. A file cut
// short says so in the run's message, the post the file goes under, in Export
// CSV's words (exportNote).
func (n *Nodes) scheduledCSV(ctx context.Context, s *State, r warehouse.Runnable, res warehouse.Result) {
	sch := s.Scheduled.Schedule
	s.CSVTitle = sch.Question
	s.CSVFilename = slug(sch.Question) + "-" + n.Now().In(n.location(sch.TimeZone)).Format("2006-01-02") + ".csv"
	if !res.Truncated {
		var b bytes.Buffer
		st, _ := warehouse.ExportResult(&b, res, n.ExportMaxBytes) // writes to a bytes.Buffer do not fail
		s.CSVContent, s.CSVRows = b.Bytes(), st.Rows
		if s.CSVNote = exportNote(st); s.CSVNote != "" {
			s.Answer += " " + s.CSVNote
		}
		return
	}
	st, ok := n.exportFull(ctx, s, r.Query)
	if !ok {
		return
	}
	s.CSVRows = st.Rows
	if s.CSVNote = exportNote(st); s.CSVNote != "" {
		s.Answer += " " + s.CSVNote
	}
}

// sawSource reports whether the people a run posts to saw the answer its
// schedule was made from, so that what that answer assumed (the model's
// words about the data) may be shown with the run: its owner alone (a
// direct message), the web chat's and the command line's thread, or the
// channel it was answered in, unless it was answered there for its asker
// alone. A run into another channel, which may have a ceiling the answer
// was not held to, shows none.
func sawSource(sch store.Schedule) bool {
	switch {
	case sch.Surface != SurfaceSlack, sch.DestKind == string(schedule.DestDM):
		return true
	}
	return sch.DestChannel == sch.SourceChannel && !isPrivateThread(sch.SourceThread)
}
