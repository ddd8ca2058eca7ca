package schedule

import (
	"time"

	"github.com/robfig/cron/v3"
)

// searchYears is how far ahead Next looks for a run before it gives up (as
// robfig/cron does): far enough for the 29th of February, which a spec such
// as "0 9 29 2 *" reaches within five years from any day this century.
const searchYears = 5

// starBit is the bit robfig/cron sets in a field written as '*' (or '?'); it
// decides how the two day fields combine (dayMatches).
const starBit = 1 << 63

// has reports whether the bit set of a parsed cron field holds v.
func has(field uint64, v int) bool { return field&(1<<uint(v)) != 0 }

// dayMatches reports whether the schedule runs on the calendar day y-m-d (a
// wd): its month must match, and its day of the month and day of the week
// both, or either when both are restricted, as cron reads them.
func dayMatches(s *cron.SpecSchedule, y int, m time.Month, d int, wd time.Weekday) bool {
	if !has(s.Month, int(m)) {
		return false
	}
	dom, dow := has(s.Dom, d), has(s.Dow, int(wd))
	if s.Dom&starBit != 0 || s.Dow&starBit != 0 {
		return dom && dow
	}
	return dom || dow
}

// nextOnClock is the first run after t of a fixed-clock schedule: the
// earliest of its clock times, on the days of s.Location's calendar the
// spec names, that falls after t (see onClock for times the clock skips or
// repeats). Days are counted as dates, never as 24 hours, so a zone whose
// clock changes at midnight keeps its weekdays.
func nextOnClock(s *cron.SpecSchedule, t time.Time) time.Time {
	loc := s.Location
	lt := t.In(loc)
	// The day before t's: a clock time it skipped may have moved past t.
	day := time.Date(lt.Year(), lt.Month(), lt.Day()-1, 0, 0, 0, 0, time.UTC)
	limit := day.AddDate(searchYears, 0, 0)
	var found, stop time.Time
	for day.Before(limit) && (stop.IsZero() || !day.After(stop)) {
		if !has(s.Month, int(day.Month())) {
			day = time.Date(day.Year(), day.Month()+1, 1, 0, 0, 0, 0, time.UTC)
			continue
		}
		if dayMatches(s, day.Year(), day.Month(), day.Day(), day.Weekday()) {
			for h := range 24 {
				if !has(s.Hour, h) {
					continue
				}
				for m := range 60 {
					if !has(s.Minute, m) {
						continue
					}
					run := onClock(loc, day, h, m)
					if run.After(t) && (found.IsZero() || run.Before(found)) {
						found = run
					}
				}
			}
			// A run moved later by a skipped hour may pass the next
			// day's first: look one day further before answering.
			if !found.IsZero() && stop.IsZero() {
				stop = day.AddDate(0, 0, 1)
			}
		}
		day = day.AddDate(0, 0, 1)
	}
	return found
}

// onClock is the moment loc's clock reads h:m on the date day (whose clock
// fields are ignored): the first such moment when the clock passes it twice,
// and, when the clock skips it, the moment it would have read h:m had the
// clock not jumped, which the clock reads as h:m plus the jump.
func onClock(loc *time.Location, day time.Time, h, m int) time.Time {
	wall := time.Date(day.Year(), day.Month(), day.Day(), h, m, 0, 0, time.UTC)
	guess := time.Date(day.Year(), day.Month(), day.Day(), h, m, 0, 0, loc)
	// The offsets around the guess: time.Date picks one of the offsets
	// either side of a change, so both sides are here.
	_, off := guess.Zone()
	offsets := []int{off}
	start, end := guess.ZoneBounds()
	if !start.IsZero() {
		_, before := start.Add(-time.Nanosecond).Zone()
		offsets = append(offsets, before)
	}
	if !end.IsZero() {
		_, after := end.Zone()
		offsets = append(offsets, after)
	}
	var first, jumped time.Time
	for _, off := range offsets {
		u := wall.Add(-time.Duration(off) * time.Second).In(loc)
		reads := time.Date(u.Year(), u.Month(), u.Day(), u.Hour(), u.Minute(), u.Second(), 0, time.UTC)
		switch {
		case reads.Equal(wall):
			if first.IsZero() || u.Before(first) {
				first = u
			}
		case reads.After(wall):
			if jumped.IsZero() || u.Before(jumped) {
				jumped = u
			}
		}
	}
	switch {
	case !first.IsZero():
		return first
	case !jumped.IsZero():
		return jumped
	}
	return guess
}

// nextElapsed is the first run after t of a schedule with '*' in its minute
// or hour field: the first whole minute after t at which s.Location's clock
// reads a time and date the spec names. It steps over what cannot match (a
// month, a day, an hour, minutes) but never across a change of offset, so
// the clock's arithmetic stays exact between changes.
func nextElapsed(s *cron.SpecSchedule, t time.Time) time.Time {
	loc := s.Location
	limit := t.AddDate(searchYears, 0, 0)
	for u := t.Truncate(time.Minute).Add(time.Minute); u.Before(limit); {
		l := u.In(loc)
		sinceMidnight := time.Duration(l.Hour())*time.Hour + time.Duration(l.Minute())*time.Minute
		var step time.Duration
		switch {
		case !has(s.Month, int(l.Month())):
			daysLeft := time.Date(l.Year(), l.Month()+1, 1, 0, 0, 0, 0, time.UTC).Sub(
				time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC))
			step = daysLeft - sinceMidnight
		case !dayMatches(s, l.Year(), l.Month(), l.Day(), l.Weekday()):
			step = 24*time.Hour - sinceMidnight
		case !has(s.Hour, l.Hour()):
			step = time.Duration(60-l.Minute()) * time.Minute
		case !has(s.Minute, l.Minute()):
			m := l.Minute() + 1
			for m < 60 && !has(s.Minute, m) {
				m++
			}
			step = time.Duration(m-l.Minute()) * time.Minute
		default:
			return l
		}
		next := u.Add(step)
		if _, end := l.ZoneBounds(); !end.IsZero() && end.Before(next) {
			next = end
		}
		if !next.After(u) {
			next = u.Add(time.Minute)
		}
		u = next
	}
	return time.Time{}
}
