package schedule

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Unclear sentences about recurrences.
const (
	unclearHowOften = "I couldn't tell how often to send it: say e.g. “every day at 9:00”, “every Monday at 9:00” or “every hour”."
	unclearTooOften = "Every %d minutes is too often: the shortest interval is every 5 minutes."
	// unclearHowOftenAt opens the sentence for a time of day said without
	// a recurrence.
	unclearHowOftenAt = "I couldn't tell how often to send it at "
)

// defaultClock is the time of a daily, weekly or monthly schedule whose words
// say none; Describe shows it, so the confirmation says so.
var defaultClock = clock{9, 0}

// recurs reports whether the words name a recurrence (not only a time).
func (r recurrence) recurs() bool {
	return r.spec != "" || r.minutes > 0 || r.hours > 0 || r.daily || r.weekly || r.monthly || r.days != 0 || r.ofMonth
}

// when writes the recurrence as a When in loc. ok is false when the words
// name no recurrence or it cannot be read; unclear then says why, when the
// words asked for one.
func (r recurrence) when(loc *time.Location) (w When, ok bool, unclear string) {
	if r.spec != "" {
		w, err := ParseSpec(r.spec, loc)
		if err != nil {
			return When{}, false, sentence(err.Error())
		}
		return w, true, ""
	}
	if r.unclear != "" {
		return When{}, false, r.unclear
	}
	if !r.recurs() {
		if len(r.clocks) > 0 {
			return When{}, false, fmt.Sprintf(unclearHowOftenAt+"%s: say e.g. “every day at %s” or “every Monday at %s”.", r.clocks[0], r.clocks[0], r.clocks[0])
		}
		return When{}, false, ""
	}
	clocks := slices.Compact(slices.SortedFunc(slices.Values(r.clocks), func(a, b clock) int {
		return (a.hour*60 + a.minute) - (b.hour*60 + b.minute)
	}))
	if len(clocks) > 1 {
		names := make([]string, len(clocks))
		for i, c := range clocks {
			names[i] = c.String()
		}
		return When{}, false, "I read more than one time of day (" + joinWords(names) + "), but a schedule runs at one: say one, e.g. “every Monday at 9:00”, and make another schedule for the other."
	}
	var spec string
	if r.minutes > 0 || r.hours > 0 {
		s, why := r.intervalSpec(clocks)
		if why != "" {
			return When{}, false, why
		}
		spec = s
	} else {
		s, why := r.calendarSpec(clocks)
		if why != "" {
			return When{}, false, why
		}
		spec = s
	}
	w, err := ParseSpec(spec, loc)
	if err != nil {
		return When{}, false, unclearHowOften
	}
	return w, true, ""
}

// intervalSpec writes "every 15 minutes" or "every 2 hours", on the days the
// words name.
func (r recurrence) intervalSpec(clocks []clock) (string, string) {
	every := fmt.Sprintf("every %d minutes", r.minutes)
	switch {
	case r.hours == 1:
		every = "every hour"
	case r.hours > 1:
		every = fmt.Sprintf("every %d hours", r.hours)
	}
	switch {
	case len(clocks) > 0 || r.part != "":
		return "", "I couldn't tell whether you want it " + every + " or at one time of day: say one."
	case r.weekly || r.monthly:
		return "", "I couldn't tell whether you want it " + every + " or once a week or month: say one."
	case r.daily && r.days != 0:
		return "", "I couldn't tell whether you want it every day or only on some days: say one."
	}
	minute, hour := "0", "*"
	switch {
	case r.minutes > 0 && r.minutes < 5:
		return "", fmt.Sprintf(unclearTooOften, r.minutes)
	case r.minutes > 0 && r.minutes < 60 && 60%r.minutes != 0:
		return "", fmt.Sprintf("Every %d minutes doesn't divide the hour evenly, so a cron schedule can't say it: pick 5, 10, 15, 20 or 30 minutes.", r.minutes)
	case r.minutes > 0 && r.minutes < 60:
		minute = "*/" + strconv.Itoa(r.minutes)
	case r.minutes >= 60 && r.minutes%60 != 0:
		return "", fmt.Sprintf("Every %d minutes isn't a whole number of hours, so a cron schedule can't say it: pick 5, 10, 15, 20 or 30 minutes, or a number of hours.", r.minutes)
	case r.minutes >= 60:
		r.hours = r.minutes / 60
	}
	switch {
	case r.hours == 0 || r.hours == 1:
	case r.hours == 24:
		return r.calendarSpec(nil)
	case r.hours > 24 || 24%r.hours != 0:
		return "", fmt.Sprintf("Every %d hours doesn't divide the day evenly, so a cron schedule can't say it: pick 1, 2, 3, 4, 6, 8 or 12 hours.", r.hours)
	default:
		hour = "*/" + strconv.Itoa(r.hours)
	}
	return minute + " " + hour + " " + r.domField() + " * " + r.dowField(), ""
}

// calendarSpec writes a daily, weekly or monthly schedule at one time of
// day.
func (r recurrence) calendarSpec(clocks []clock) (string, string) {
	monthly := r.monthly || r.ofMonth
	switch {
	case r.daily && r.days != 0 && r.days != 0b1111111:
		return "", "I couldn't tell whether you want it every day or only on " + joinWords(dayList(r.days)) + ": say one."
	case monthly && r.days != 0:
		return "", "A cron schedule can't combine a day of the month with a day of the week: say e.g. “on the 1st of every month” or “every Monday”."
	}
	at := defaultClock
	switch {
	case len(clocks) == 1:
		at = clocks[0]
	case r.part == "afternoon" || r.part == "night":
		return "", fmt.Sprintf("I couldn't tell what time “%s” means: say a time, e.g. “every day at %s”.", r.part, map[string]string{"afternoon": "14:00", "night": "21:00"}[r.part])
	case r.part != "":
		at = partsOfDay[r.part]
	}
	dom := "*"
	if monthly {
		dom = strconv.Itoa(max(r.dom, 1))
	}
	dow := r.dowField()
	if r.weekly && r.days == 0 {
		dow = "1"
	}
	return fmt.Sprintf("%d %d %s * %s", at.minute, at.hour, dom, dow), ""
}

// domField is the day-of-month field: the day said, or "*".
func (r recurrence) domField() string {
	if r.dom > 0 && (r.monthly || r.ofMonth) {
		return strconv.Itoa(r.dom)
	}
	return "*"
}

// dowField is the day-of-week field: "1-5" for weekdays, a list of cron
// weekdays, or "*".
func (r recurrence) dowField() string {
	switch r.days {
	case 0, 0b1111111:
		return "*"
	case weekdayBits:
		return "1-5"
	}
	var days []string
	for d := range 7 {
		if r.days&(1<<d) != 0 {
			days = append(days, strconv.Itoa(d))
		}
	}
	return strings.Join(days, ",")
}

// sentence makes an error's text a sentence: a capital and a full stop.
func sentence(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:] + "."
}

// dayList names the days in a bit set, Monday first.
func dayList(days uint8) []string {
	var out []string
	for _, d := range []int{1, 2, 3, 4, 5, 6, 0} {
		if days&(1<<d) != 0 {
			out = append(out, weekdayNames[d])
		}
	}
	return out
}
