package schedule

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// When is a recurrence in a time zone.
type When struct {
	// Spec is a standard 5-field cron spec: minute, hour, day of the month,
	// month and day of the week, e.g. "0 9 * * 1". ParseSpec writes
	// descriptors ("@daily") as their five fields.
	Spec string
	// Location is the time zone the spec's clock times are read in; never
	// nil after ParseSpec or ParseRequest (a nil Location reads as UTC).
	Location *time.Location
}

// descriptors are the named schedules ParseSpec accepts, as five fields.
var descriptors = map[string]string{
	"@yearly":   "0 0 1 1 *",
	"@annually": "0 0 1 1 *",
	"@monthly":  "0 0 1 * *",
	"@weekly":   "0 0 * * 0",
	"@daily":    "0 0 * * *",
	"@midnight": "0 0 * * *",
	"@hourly":   "0 * * * *",
}

// specFields names the five fields of a cron spec and their ranges, for
// errors a person can read.
var specFields = [5]struct{ name, rule string }{
	{"minute", "minutes run from 0 to 59"},
	{"hour", "hours run from 0 to 23"},
	{"day of the month", "days of the month run from 1 to 31"},
	{"month", "months run from 1 to 12 (or jan to dec)"},
	{"day of the week", "days of the week run from 0 (Sunday) to 6 (Saturday), or sun to sat"},
}

// ParseSpec checks a cron spec ("0 9 * * 1", or one of the descriptors
// "@hourly", "@daily", "@midnight", "@weekly", "@monthly", "@yearly") and
// returns the When in loc (UTC when loc is nil). Its errors say what is wrong
// in a sentence a person can read, and quote at most maxQuoted characters
// of the spec (see excerpt): they reach people as written, and a spec typed
// in a message may be thousands of characters long.
func ParseSpec(spec string, loc *time.Location) (When, error) {
	if loc == nil {
		loc = time.UTC
	}
	written := strings.Join(strings.Fields(spec), " ")
	s := strings.ToLower(written)
	switch {
	case s == "":
		return When{}, errors.New("the schedule is empty: give five cron fields (minute, hour, day of the month, month, day of the week), e.g. “0 9 * * 1”")
	case strings.HasPrefix(s, "tz=") || strings.HasPrefix(s, "cron_tz="):
		return When{}, fmt.Errorf("“%s” names a time zone inside the schedule: give the five cron fields alone, the time zone is set separately", Excerpt(written))
	case strings.HasPrefix(s, "@every"):
		return When{}, fmt.Errorf("“%s” is an interval, not a cron schedule: write it as five cron fields, e.g. “*/15 * * * *” for every 15 minutes", Excerpt(written))
	case strings.HasPrefix(s, "@"):
		d, ok := descriptors[s]
		if !ok {
			return When{}, fmt.Errorf("“%s” is not a schedule name I know: use @hourly, @daily, @weekly, @monthly or @yearly, or five cron fields", Excerpt(written))
		}
		s = d
	}
	fields := strings.Fields(s)
	if len(fields) != 5 {
		return When{}, fmt.Errorf("“%s” has %d fields, but a cron schedule has 5: minute, hour, day of the month, month and day of the week, e.g. “0 9 * * 1”", Excerpt(written), len(fields))
	}
	if _, err := cron.ParseStandard(s); err != nil {
		return When{}, fieldError(written, fields)
	}
	w := When{Spec: s, Location: loc}
	if w.Next(time.Date(2000, time.January, 1, 0, 0, 0, 0, loc)).IsZero() {
		return When{}, fmt.Errorf("“%s” never runs: no month has that day", Excerpt(written))
	}
	return w, nil
}

// fieldError names the first field of a rejected spec that cron cannot read
// on its own, with the range it must keep to.
func fieldError(written string, fields []string) error {
	for i, f := range fields {
		probe := []string{"*", "*", "*", "*", "*"}
		probe[i] = f
		if _, err := cron.ParseStandard(strings.Join(probe, " ")); err != nil {
			return fmt.Errorf("“%s” is not a valid %s in “%s”: %s", Excerpt(f), specFields[i].name, Excerpt(written), specFields[i].rule)
		}
	}
	return fmt.Errorf("“%s” is not a valid cron schedule", Excerpt(written))
}

// maxQuoted is how many characters of a spec ParseSpec's errors quote: as
// many as a refused button press quotes of what it sent, enough to
// recognise the spec, while a spec of thousands of characters does not
// come back whole.
const maxQuoted = 40

// Excerpt is s cut to maxQuoted characters (never inside one), the cut
// marked "…": how a schedule's reply quotes words of the asker's message,
// which may run to thousands of characters.
func Excerpt(s string) string {
	if r := []rune(s); len(r) > maxQuoted {
		return string(r[:maxQuoted-1]) + "…"
	}
	return s
}

// Next is the first time after t at which the schedule runs, as a time in
// w.Location; it is the zero time when the spec is not valid or never runs
// within searchYears.
//
// Clock times are read in w.Location, on its calendar: "0 9 * * 4" in
// Africa/Cairo runs every Thursday at 09:00 Cairo time, whatever the zone's
// daylight saving does around midnight, and "0 9 * * *" in America/New_York
// is 13:00 UTC in summer and 14:00 UTC in winter. robfig/cron v3.0.1 parses
// the spec but does not do this arithmetic: its Next runs weekly schedules
// on the wrong day, or skips a week, in zones whose clocks change at midnight
// (Cairo, Beirut, Santiago, Havana, Asunción, the Azores). A schedule at fixed
// clock times (minute and hour fields without '*') runs at those times on
// each day of the local calendar the spec names (nextOnClock): a time the
// clock skips runs once, as much later as the clock jumped (01:30 in
// Europe/London on 2026-03-29 runs at 02:30 BST), and a time the clock
// passes twice runs at the first (01:30 BST, not 01:30 GMT, on 2026-10-25).
// Schedules with '*' in the minute or hour field (every hour, every 15
// minutes) run at each moment whose local clock matches the spec
// (nextElapsed): none inside the gap, and in both passes of the repeated
// hour, as cron does.
func (w When) Next(t time.Time) time.Time {
	sched, err := w.schedule()
	if err != nil {
		return time.Time{}
	}
	t = t.In(sched.Location)
	if fixedClock(w.Spec) {
		return nextOnClock(sched, t)
	}
	return nextElapsed(sched, t)
}

// schedule parses the spec into robfig's schedule in w's location.
func (w When) schedule() (*cron.SpecSchedule, error) {
	parsed, err := cron.ParseStandard(expandDescriptor(w.Spec))
	if err != nil {
		return nil, err
	}
	sched, ok := parsed.(*cron.SpecSchedule)
	if !ok {
		return nil, fmt.Errorf("%q is not a cron schedule", w.Spec)
	}
	sched.Location = time.UTC
	if w.Location != nil {
		sched.Location = w.Location
	}
	return sched, nil
}

// expandDescriptor writes a descriptor as its five fields, so the rest of the
// package only ever sees five fields.
func expandDescriptor(spec string) string {
	s := strings.ToLower(strings.Join(strings.Fields(spec), " "))
	if d, ok := descriptors[s]; ok {
		return d
	}
	return s
}

// fixedClock reports whether a spec runs at fixed clock times (no '*' in its
// minute or hour field), the schedules whose daylight-saving edges Next
// corrects.
func fixedClock(spec string) bool {
	f := strings.Fields(expandDescriptor(spec))
	return len(f) == 5 && !strings.Contains(f[0], "*") && !strings.Contains(f[1], "*")
}

// MinInterval is the shortest time a schedule may leave between runs: a
// report more often than that would load the warehouse and flood Slack.
const MinInterval = 5 * time.Minute

// TooOften reports whether w ever runs less than MinInterval after its
// previous run. It reads the fields rather than a sample of runs, so no
// month or day of the month is left out: two clock times of one day, the
// last of a day and the first of the next on any two days in a row the spec
// names (cycleYears of them), and the runs around each change of the zone's
// offset (whose clock may jump between two runs).
func (w When) TooOften() bool {
	sched, err := w.schedule()
	if err != nil {
		return false
	}
	var times []int // the minutes of the day it runs at, ascending
	for h := range 24 {
		for m := range 60 {
			if has(sched.Hour, h) && has(sched.Minute, m) {
				times = append(times, h*60+m)
			}
		}
	}
	interval := int(MinInterval / time.Minute)
	for i := 1; i < len(times); i++ {
		if times[i]-times[i-1] < interval {
			return true
		}
	}
	if len(times) > 0 && 24*60-times[len(times)-1]+times[0] < interval && runsTwoDaysInARow(sched) {
		return true
	}
	return runsCloseAtOffsetChanges(w)
}

// cycleYears is a span of years in which every date of the year, the 29th
// of February included, falls on every day of the week: 28 years without a
// century year that is not a leap year.
const cycleYears = 28

// runsTwoDaysInARow reports whether the schedule runs on two days in a row
// of some calendar.
func runsTwoDaysInARow(s *cron.SpecSchedule) bool {
	day := time.Date(2001, time.January, 1, 0, 0, 0, 0, time.UTC)
	end := day.AddDate(cycleYears, 0, 1)
	ranYesterday := false
	for ; day.Before(end); day = day.AddDate(0, 0, 1) {
		runs := dayMatches(s, day.Year(), day.Month(), day.Day(), day.Weekday())
		if runs && ranYesterday {
			return true
		}
		ranYesterday = runs
	}
	return false
}

// offsetChangeYears is how many years of a zone's offset changes
// runsCloseAtOffsetChanges looks at, from a fixed date so that the answer
// never depends on when it is asked; zones change on the same rules year
// after year.
const offsetChangeYears = 4

// offsetChangeWindow is how near a change of offset runs are compared:
// only runs on either side of the change come closer than the day's own
// times are, and no zone's clock jumps by more than this.
const offsetChangeWindow = 3 * time.Hour

// runsCloseAtOffsetChanges reports whether two runs of w fall less than
// MinInterval apart near a change of its zone's offset: a clock that
// jumps half an hour (Australia/Lord_Howe) can bring 01:58 and 02:30 two
// minutes apart.
func runsCloseAtOffsetChanges(w When) bool {
	loc := w.Location
	if loc == nil {
		loc = time.UTC
	}
	from := time.Date(2026, time.January, 1, 0, 0, 0, 0, loc)
	end := from.AddDate(offsetChangeYears, 0, 0)
	for _, tr := from.ZoneBounds(); !tr.IsZero() && tr.Before(end); _, tr = tr.ZoneBounds() {
		last := w.Next(tr.Add(-offsetChangeWindow))
		for !last.IsZero() && last.Before(tr.Add(offsetChangeWindow)) {
			next := w.Next(last)
			if !next.IsZero() && next.Sub(last) < MinInterval {
				return true
			}
			last = next
		}
	}
	return false
}

// Words writes t for people in w's time zone (UTC without one): "Monday 30
// November at 09:00".
func (w When) Words(t time.Time) string {
	loc := w.Location
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format("Monday 2 January at 15:04")
}
