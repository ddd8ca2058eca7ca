package schedule

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Describe says the recurrence in plain words: "every day at 09:00", "every
// Monday at 09:00", "every weekday (Monday to Friday) at 08:30", "every hour,
// on the hour", "every 15 minutes", "on the 1st of every month at 09:00",
// "every Monday and Thursday at 17:00". A spec it cannot word reads as "on
// the cron schedule “…”". The time zone is not said: callers add it. The
// zero When describes as "".
func (w When) Describe() string {
	if w.Spec == "" {
		return ""
	}
	if d, ok := describeSpec(strings.Fields(expandDescriptor(w.Spec))); ok {
		return d
	}
	return "on the cron schedule “" + w.Spec + "”"
}

// field is one cron field as Describe reads it: "*", "*/step" or a list of
// values (ranges expanded).
type field struct {
	star   bool
	step   int
	values []int
}

// weekdayNames are the days of the week by cron number (Sunday is 0).
var weekdayNames = [7]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}

// dowNames are the abbreviations cron accepts in the day-of-week field.
var dowNames = map[string]int{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}

// readField reads a field of numbers, ranges, "*" and "*/n"; names (for the
// day of the week) are read through names. ok is false for anything else
// (steps over ranges, say), which Describe then leaves to the fallback.
func readField(s string, names map[string]int) (field, bool) {
	if s == "*" || s == "?" {
		return field{star: true}, true
	}
	if step, ok := strings.CutPrefix(s, "*/"); ok {
		n, err := strconv.Atoi(step)
		return field{star: true, step: n}, err == nil && n > 0
	}
	var f field
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, okA := fieldNumber(lo, names)
		b := a
		okB := true
		if isRange {
			b, okB = fieldNumber(hi, names)
		}
		if !okA || !okB || b < a {
			return field{}, false
		}
		for v := a; v <= b; v++ {
			f.values = append(f.values, v)
		}
	}
	slices.Sort(f.values)
	f.values = slices.Compact(f.values)
	return f, true
}

// fieldNumber reads one number or name of a field.
func fieldNumber(s string, names map[string]int) (int, bool) {
	if n, ok := names[s]; ok {
		return n, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// describeSpec words the five fields, or says it cannot.
func describeSpec(f []string) (string, bool) {
	if len(f) != 5 || f[3] != "*" {
		return "", false
	}
	minute, ok1 := readField(f[0], nil)
	hour, ok2 := readField(f[1], nil)
	dom, ok3 := readField(f[2], nil)
	dow, ok4 := readField(f[4], dowNames)
	if !ok1 || !ok2 || !ok3 || !ok4 || (!dom.star && !dow.star) || dom.step > 0 || dow.step > 0 {
		return "", false
	}
	at, fixed := clockWords(minute, hour)
	if at == "" {
		return "", false
	}
	switch {
	case dom.star && dow.star:
		if fixed {
			return "every day " + at, true
		}
		return at, true
	case !dom.star:
		days := make([]string, len(dom.values))
		for i, d := range dom.values {
			days[i] = ordinal(d)
		}
		month := "on the " + joinWords(days) + " of every month"
		if fixed {
			return month + " " + at, true
		}
		return qualify(at, month), true
	}
	if slices.Equal(dow.values, []int{1, 2, 3, 4, 5}) {
		if fixed {
			return "every weekday (Monday to Friday) " + at, true
		}
		return qualify(at, "on weekdays (Monday to Friday)"), true
	}
	var names, plurals []string
	for _, d := range mondayFirst(dow.values) {
		if d > 6 {
			return "", false
		}
		names = append(names, weekdayNames[d])
		plurals = append(plurals, weekdayNames[d]+"s")
	}
	if fixed {
		return "every " + joinWords(names) + " " + at, true
	}
	return qualify(at, "on "+joinWords(plurals)), true
}

// qualify adds the days to an interval: "every 15 minutes on Mondays",
// "every hour, on the hour, on Mondays".
func qualify(interval, days string) string {
	if strings.HasSuffix(interval, "on the hour") {
		return interval + ", " + days
	}
	return interval + " " + days
}

// clockWords words the minute and hour fields: "at 09:00" for fixed clock
// times (fixed is true), or an interval such as "every 15 minutes". It is ""
// when the fields are not one of those shapes.
func clockWords(minute, hour field) (words string, fixed bool) {
	switch {
	case len(minute.values) == 1 && !hour.star && len(hour.values) <= 4:
		times := make([]string, len(hour.values))
		for i, h := range hour.values {
			times[i] = fmt.Sprintf("%02d:%02d", h, minute.values[0])
		}
		return "at " + joinWords(times), true
	case minute.star && minute.step == 0 && hour.star && hour.step == 0:
		return "every minute", false
	case minute.star && minute.step > 0 && hour.star && hour.step == 0:
		return fmt.Sprintf("every %d minutes", minute.step), false
	case len(minute.values) == 1 && hour.star:
		every := "every hour"
		if hour.step > 1 {
			every = fmt.Sprintf("every %d hours", hour.step)
		}
		if minute.values[0] == 0 {
			return every + ", on the hour", false
		}
		return fmt.Sprintf("%s at %d minutes past the hour", every, minute.values[0]), false
	}
	return "", false
}

// mondayFirst orders cron day numbers the way a week reads: Monday to
// Sunday.
func mondayFirst(days []int) []int {
	out := slices.Clone(days)
	slices.SortFunc(out, func(a, b int) int { return (a+6)%7 - (b+6)%7 })
	return out
}

// joinWords joins a list as prose: "a", "a and b", "a, b and c".
func joinWords(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// ordinal writes a day of the month: 1st, 2nd, 3rd, 4th, 11th, 21st.
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}
