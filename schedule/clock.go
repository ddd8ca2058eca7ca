package schedule

import (
	"fmt"
	"regexp"
	"strconv"
)

// clock is a time of day.
type clock struct{ hour, minute int }

// String writes the clock as Describe does: "09:00".
func (c clock) String() string { return fmt.Sprintf("%02d:%02d", c.hour, c.minute) }

var (
	namedTimeRe = regexp.MustCompile(`\b(?:at\s+)?(noon|midday|midnight)\b`)
	// atTimeRe is "at 9", "at 9:30", "at 09:30", "at 5pm", "at 5 pm", "@ 9".
	atTimeRe = regexp.MustCompile(`(?:\bat|@)\s*(\d{1,2})(?:[:.h](\d{1,2}))?(?:\s*(am|pm))?(?:\s*oclock)?\b`)
	// ampmTimeRe is "9am", "9:30 pm" without "at".
	ampmTimeRe = regexp.MustCompile(`\b(\d{1,2})(?:[:.](\d{1,2}))?\s*(am|pm)\b`)
	// colonTimeRe is "9:30" without "at".
	colonTimeRe = regexp.MustCompile(`\b(\d{1,2}):(\d{1,2})\b`)
	// partOfDayRe is "morning", "in the evening", "mornings".
	partOfDayRe = regexp.MustCompile(`\b(?:in\s+the\s+)?(morning|evening|afternoon|night)s?\b`)
)

// partsOfDay are the default clock times for the parts of the day that have
// one; "afternoon" and "night" have none and need a time said.
var partsOfDay = map[string]clock{"morning": {9, 0}, "evening": {18, 0}}

// readClocks takes the times of day out of m. part is the part of the day
// the words name ("evening"), which reads "at 6" as 18:00; unclear is set for
// a time that is not one or could be either half of the day.
func readClocks(m *message, part string) (clocks []clock, unclear string) {
	for _, sub := range m.take(namedTimeRe) {
		if sub[1] == "midnight" {
			clocks = append(clocks, clock{0, 0})
		} else {
			clocks = append(clocks, clock{12, 0})
		}
	}
	for _, re := range []*regexp.Regexp{atTimeRe, ampmTimeRe, colonTimeRe} {
		for _, sub := range m.take(re) {
			ampm := ""
			if len(sub) > 3 {
				ampm = sub[3]
			}
			c, why := readClock(sub[1], sub[2], ampm, part)
			if why != "" {
				unclear = first(unclear, why)
				continue
			}
			clocks = append(clocks, c)
		}
	}
	return clocks, unclear
}

// readClock reads one time's hour, minutes and am/pm.
func readClock(hourText, minuteText, ampm, part string) (clock, string) {
	h, _ := strconv.Atoi(hourText)
	m := 0
	written := hourText
	if minuteText != "" {
		m, _ = strconv.Atoi(minuteText)
		written += ":" + minuteText
	}
	written += ampm
	if len(minuteText) == 1 || m > 59 {
		return clock{}, fmt.Sprintf("“%s” isn't a time of day: minutes run from 00 to 59; say a time like “9:00”, “17:30” or “5pm”.", written)
	}
	switch {
	case ampm != "":
		if h < 1 || h > 12 {
			return clock{}, fmt.Sprintf("“%s” isn't a time of day: with am or pm the hour runs from 1 to 12; say a time like “9am” or “17:30”.", written)
		}
		h %= 12
		if ampm == "pm" {
			h += 12
		}
	case h > 23:
		return clock{}, fmt.Sprintf("“%s” isn't a time of day: hours run from 0 to 23; say a time like “9:00”, “17:30” or “5pm”.", written)
	case (part == "evening" || part == "afternoon" || part == "night") && h >= 1 && h < 12:
		h += 12
	case part == "" && h >= 1 && h <= 6 && len(hourText) == 1:
		return clock{}, fmt.Sprintf("I couldn't tell whether “%s” means %s or %s: say “%sam” or “%spm”.", written, clock{h, m}, clock{h + 12, m}, written, written)
	}
	return clock{h, m}, ""
}
