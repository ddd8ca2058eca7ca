package schedule

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// grid is the step the references below read the clock at: every offset
// of every zone from 2024 to 2028 is a multiple of 15 minutes, so every
// moment whose clock reads a whole quarter hour lies on it.
const grid = 15 * time.Minute

// readings is what a zone's clock reads at each quarter hour of a span,
// read once for every schedule checked in it.
type readings struct {
	loc   *time.Location
	start time.Time
	reads []time.Time // the local date and clock, written as UTC
}

// readZoneClock reads loc's clock at each quarter hour from from to to.
func readZoneClock(loc *time.Location, from, to time.Time) readings {
	r := readings{loc: loc, start: from.Truncate(grid)}
	for u := r.start; !u.After(to); u = u.Add(grid) {
		l := u.In(loc)
		r.reads = append(r.reads, time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), 0, 0, time.UTC))
	}
	return r
}

// at is the moment of the i-th reading, in the zone.
func (r readings) at(i int) time.Time { return r.start.Add(time.Duration(i) * grid).In(r.loc) }

// onClock is the first moment the clock reads wall or, when the clock skips
// it, the moment it reads wall plus the jump; false when the span holds
// neither.
func (r readings) onClock(wall time.Time) (time.Time, bool) {
	for i, reads := range r.reads {
		if reads.Equal(wall) {
			return r.at(i), true
		}
	}
	for i := 0; i+1 < len(r.reads); i++ {
		if jump := r.reads[i+1].Sub(r.reads[i]) - grid; jump > 0 && r.reads[i].Before(wall) && r.reads[i+1].After(wall) {
			return r.onClock(wall.Add(jump))
		}
	}
	return time.Time{}, false
}

// calendarCase is a schedule and its runs as a person reads them off a
// calendar and a clock, for TestNextFollowsTheLocalCalendar.
type calendarCase struct {
	spec string
	// runs lists the runs in (from, to], built day by day (clock
	// schedules) or quarter hour by quarter hour (the others) from r,
	// which covers a day either side.
	runs func(r readings, from, to time.Time) []time.Time
}

// atClock is a schedule at h:m on the given weekdays (every day when none).
func atClock(spec string, h, m int, days ...time.Weekday) calendarCase {
	return calendarCase{spec: spec, runs: func(r readings, from, to time.Time) []time.Time {
		var runs []time.Time
		lf := from.In(r.loc)
		for d := time.Date(lf.Year(), lf.Month(), lf.Day(), h, m, 0, 0, time.UTC); d.Before(to.Add(24 * time.Hour)); d = d.AddDate(0, 0, 1) {
			if len(days) > 0 && !slices.Contains(days, d.Weekday()) {
				continue
			}
			if run, ok := r.onClock(d); ok && run.After(from) && !run.After(to) {
				runs = append(runs, run)
			}
		}
		return runs
	}}
}

// onTheClock is a schedule with '*' in its hour field: every moment whose
// local date and clock (written as UTC) satisfy reads.
func onTheClock(spec string, reads func(wall time.Time) bool) calendarCase {
	return calendarCase{spec: spec, runs: func(r readings, from, to time.Time) []time.Time {
		var runs []time.Time
		for i, wall := range r.reads {
			if u := r.at(i); u.After(from) && !u.After(to) && reads(wall) {
				runs = append(runs, u)
			}
		}
		return runs
	}}
}

// TestNextFollowsTheLocalCalendar compares Next, in every zone of the tz
// database, around each change of its offset from 2024 to 2028, with the
// runs a person reads off the local calendar and clock: a weekly schedule
// runs on its weekday and no other, and skips no week, even where the clock
// changes at midnight (Africa/Cairo, Asia/Beirut, America/Santiago, …); a
// time the clock skips runs as much later as it jumped, a time it repeats
// runs at the first; hourly schedules run whenever the clock reads the hour.
func TestNextFollowsTheLocalCalendar(t *testing.T) {
	t.Parallel()
	cases := []calendarCase{
		atClock("0 9 * * 4", 9, 0, time.Thursday),
		atClock("0 9 * * 5", 9, 0, time.Friday),
		atClock("0 9 * * 6", 9, 0, time.Saturday),
		atClock("0 9 * * 0", 9, 0, time.Sunday),
		atClock("0 0 * * *", 0, 0),
		atClock("30 1 * * *", 1, 30),
		onTheClock("0 * * * 5", func(wall time.Time) bool { return wall.Weekday() == time.Friday && wall.Minute() == 0 }),
	}
	begin := time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC)
	end := time.Date(2029, time.January, 1, 0, 0, 0, 0, time.UTC)
	for _, name := range zoneNames {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatalf("load %s: %v", name, err)
		}
		failed := map[string]bool{}
		for _, tr := begin.In(loc).ZoneBounds(); !tr.IsZero() && tr.Before(end); _, tr = tr.ZoneBounds() {
			// Eight days hold every weekday: a weekly run moved off its
			// day, or skipped, shows.
			from, to := tr.Add(-4*24*time.Hour), tr.Add(4*24*time.Hour)
			r := readZoneClock(loc, from.Add(-24*time.Hour), to.Add(24*time.Hour))
			for _, c := range cases {
				if failed[c.spec] {
					continue
				}
				w := When{Spec: c.spec, Location: loc}
				var got []string
				for run := w.Next(from); !run.IsZero() && !run.After(to); run = w.Next(run) {
					got = append(got, run.Format("Mon 2006-01-02 15:04 -0700"))
				}
				var want []string
				for _, run := range c.runs(r, from, to) {
					want = append(want, run.Format("Mon 2006-01-02 15:04 -0700"))
				}
				if !slices.Equal(got, want) {
					failed[c.spec] = true
					t.Errorf("%q in %s around %v:\n got %s\nwant %s", c.spec, name, tr.In(loc),
						strings.Join(got, ", "), strings.Join(want, ", "))
				}
			}
		}
	}
}

// The runs the audit found wrong, as a person in each zone expects them.
func TestNextWeeklyWhereTheClockChangesAtMidnight(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, zone, spec, from string
		want                   []string // local times
	}{
		{name: "Thursday in Cairo stays on Thursdays", zone: "Africa/Cairo", spec: "0 9 * * 4", from: "2026-04-20T00:00:00Z",
			want: []string{"Thu 2026-04-23 09:00", "Thu 2026-04-30 09:00", "Thu 2026-05-07 09:00"}},
		{name: "Friday in Cairo skips no week", zone: "Africa/Cairo", spec: "0 9 * * 5", from: "2026-04-16T00:00:00Z",
			want: []string{"Fri 2026-04-17 09:00", "Fri 2026-04-24 09:00", "Fri 2026-05-01 09:00"}},
		{name: "Sunday in Beirut skips no week", zone: "Asia/Beirut", spec: "0 9 * * 0", from: "2026-03-20T00:00:00Z",
			want: []string{"Sun 2026-03-22 09:00", "Sun 2026-03-29 09:00", "Sun 2026-04-05 09:00"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := When{Spec: tt.spec, Location: mustLoad(t, tt.zone)}
			at, err := time.Parse(time.RFC3339, tt.from)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for range tt.want {
				at = w.Next(at)
				got = append(got, at.Format("Mon 2006-01-02 15:04"))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("runs of %q in %s from %s:\n got %v\nwant %v", tt.spec, tt.zone, tt.from, got, tt.want)
			}
		})
	}
}
