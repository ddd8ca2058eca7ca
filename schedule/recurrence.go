package schedule

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// recurrence is what a message's words say about when to run, before it is
// written as a cron spec.
type recurrence struct {
	spec    string // a cron spec given as such
	minutes int    // "every 15 minutes"
	hours   int    // "every 2 hours"
	daily   bool
	weekly  bool
	monthly bool
	days    uint8 // a bit per cron weekday (Sunday is bit 0)
	dom     int   // day of the month, 0 when not said
	ofMonth bool  // the day of the month came with "of every month"
	part    string
	clocks  []clock
	asked   bool // time words were read, even ones no schedule can hold
	timed   bool // a time of day was said, even one that is not a time
	unclear string
}

// Patterns for the parts of a recurrence.
const (
	dayFull    = `(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b`
	dayAbbr    = `(?:mon|tues|tue|weds|wed|thurs|thur|thu|fri|sat|sun)\b`
	dayAny     = `(?:` + dayFull + `|` + dayAbbr + `)`
	countWords = `\d+|one|two|three|four|five|six|eight|ten|twelve|fifteen|twenty|thirty|sixty`
	ordWords   = `first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth`
	ofMonth    = `\s+of\s+(?:every|each|the|a)\s+month\b`
)

var (
	yearlyRe      = regexp.MustCompile(`\b(?:yearly|annually|quarterly|(?:every|each|once\s+a)\s+(?:year|quarter))\b`)
	exceptRe      = regexp.MustCompile(`\b(?:except|excluding|but\s+not|other\s+than|apart\s+from)\b`)
	oneOffRe      = regexp.MustCompile(`\b(?:next|this|this\s+coming|coming)\s+` + dayAny)
	unsupportedRe = regexp.MustCompile(`\b(?:every\s+(?:other|second|alternate)\s+(?:day|week|month|` + dayAny + `)|bi-?weekly|fortnightly|every\s+(?:` + countWords + `)\s+(?:days|weeks|months|years))`)
	nthWeekdayRe  = regexp.MustCompile(`\b(?:on\s+)?(?:the\s+)?(?:first|second|third|fourth|last|1st|2nd|3rd|4th)\s+(?:` + dayFull + `|weekday|working\s+day|business\s+day)` + ofMonth)
	lastDayRe     = regexp.MustCompile(`\b(?:on\s+)?(?:the\s+)?(?:last|final)\s+day` + ofMonth + `|\bmonth[- ]end\b|\bend\s+of\s+(?:every|each|the)\s+month\b`)
	minutesRe     = regexp.MustCompile(`\b(?:every|each)\s+(` + countWords + `)\s*(minutes?|mins?|m|hours?|hrs?|h)\b`)
	oneUnitRe     = regexp.MustCompile(`\b(?:every|each|once\s+an?|once\s+every)\s+(minute|hour)\b|\b(hourly)\b`)
	halfHourRe    = regexp.MustCompile(`\b(?:every|each)\s+(half|quarter)\s+(?:of\s+)?(?:an\s+)?hour\b`)
	domRe         = regexp.MustCompile(`\b(?:on\s+)?(?:the\s+)?(\d{1,2}(?:st|nd|rd|th)?|` + ordWords + `)(?:\s+day)?` + ofMonth)
	onTheRe       = regexp.MustCompile(`\bon\s+the\s+(\d{1,2}(?:st|nd|rd|th)|` + ordWords + `)\b`)
	monthlyRe     = regexp.MustCompile(`\b(?:monthly|every\s+month|each\s+month|once\s+a\s+month)\b`)
	weeklyRe      = regexp.MustCompile(`\b(?:weekly|every\s+week|each\s+week|once\s+a\s+week)\b`)
	everyPartRe   = regexp.MustCompile(`\b(?:every|each)\s+(morning|evening|afternoon|night)\b`)
	dailyRe       = regexp.MustCompile(`\b(?:daily|every\s*day|each\s+day|once\s+a\s+day|every\s+single\s+day)\b`)
	weekdaysRe    = regexp.MustCompile(`\b(?:(?:every|each|on)\s+)?(?:week\s*days?|working\s+days?|work\s*days?|business\s+days?)\b`)
	weekendRe     = regexp.MustCompile(`\b(?:(?:every|each|on)\s+)?(?:the\s+)?weekends?\b`)
	dayRangeRe    = regexp.MustCompile(`\b(?:(?:every|each|on|from)\s+)?(` + dayAny + `)\s*(?:-|to|through|thru|until|till)\s*(` + dayAny + `)`)
	dayListRe     = regexp.MustCompile(`\b(?:(?:every|each|on)\s+` + dayAny + `|` + dayFull + `)(?:(?:\s+(?:and|or|&|\+)\s+|\s*/\s*|\s+)` + dayAny + `)*`)
	dayTokenRe    = regexp.MustCompile(`\b` + dayAny)
)

// counts are the numbers written as words in "every fifteen minutes".
var counts = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "eight": 8, "ten": 10, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "sixty": 60}

// ordinals are the days of the month written as words.
var ordinals = map[string]int{"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20, "thirtieth": 30}

// dayNumbers are the cron weekdays of the day names and their
// abbreviations, by their first three letters.
var dayNumbers = map[string]int{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}

const weekdayBits uint8 = 0b0111110

// readRecurrence takes the recurrence's words out of m.
func readRecurrence(m *message) recurrence {
	r := recurrence{spec: m.spec}
	if m.take(yearlyRe) != nil {
		r.cannot("Yearly and quarterly schedules aren't supported: say e.g. “on the 1st of every month”.")
	}
	if m.take(exceptRe) != nil {
		r.cannot("I can't read “except”: name the days instead, e.g. “every weekday” or “every Monday and Thursday”.")
	}
	for _, sub := range m.take(oneOffRe) {
		r.cannot(fmt.Sprintf("I can only set up something that repeats, starting now: leave out “%s” and say e.g. “every Monday at 9:00”.", sub[0]))
	}
	for _, sub := range m.take(unsupportedRe) {
		r.cannot(fmt.Sprintf("A cron schedule can't say “%s”: pick a weekly or monthly schedule instead, e.g. “every Monday at 9:00” or “on the 1st of every month”.", sub[0]))
	}
	for _, sub := range m.take(nthWeekdayRe) {
		r.cannot(fmt.Sprintf("A cron schedule can't say “%s”: say “every Monday” or a day of the month such as “on the 1st of every month”.", strings.TrimSpace(sub[0])))
	}
	if m.take(lastDayRe) != nil {
		r.cannot("A cron schedule can't say “the last day of the month”: pick a day from the 1st to the 28th, e.g. “on the 28th of every month”.")
	}
	r.readInterval(m)
	for _, sub := range m.take(domRe) {
		r.readDom(sub[1])
		r.ofMonth = true
	}
	r.monthly = m.take(monthlyRe) != nil
	for _, sub := range m.take(onTheRe) {
		r.readDom(sub[1])
	}
	r.weekly = m.take(weeklyRe) != nil
	for _, sub := range m.take(everyPartRe) {
		r.daily, r.part = true, sub[1]
	}
	r.daily = m.take(dailyRe) != nil || r.daily
	if m.take(weekdaysRe) != nil {
		r.days |= weekdayBits
	}
	if m.take(weekendRe) != nil {
		r.days |= 1 | 1<<6
	}
	for _, sub := range m.take(dayRangeRe) {
		a, b := dayNumbers[sub[1][:3]], dayNumbers[sub[2][:3]]
		for d := a; ; d = (d + 1) % 7 {
			r.days |= 1 << d
			if d == b {
				break
			}
		}
	}
	for _, sub := range m.take(dayListRe) {
		for _, day := range dayTokenRe.FindAllString(sub[0], -1) {
			r.days |= 1 << dayNumbers[day[:3]]
		}
	}
	for _, sub := range m.take(partOfDayRe) {
		r.part = first(r.part, sub[1])
	}
	var why string
	r.clocks, why = readClocks(m, r.part)
	r.unclear = first(r.unclear, why)
	r.timed = why != "" || len(r.clocks) > 0 || r.part != ""
	r.asked = r.asked || r.timed || r.recurs()
	return r
}

// cannot notes words that no cron spec can hold.
func (r *recurrence) cannot(why string) {
	r.asked = true
	r.unclear = first(r.unclear, why)
}

// readInterval reads "every 15 minutes", "every 2 hours", "hourly".
func (r *recurrence) readInterval(m *message) {
	for _, sub := range m.take(halfHourRe) {
		if sub[1] == "half" {
			r.minutes = 30
		} else {
			r.minutes = 15
		}
	}
	for _, sub := range m.take(oneUnitRe) {
		if sub[1] == "minute" {
			r.minutes = 1
		} else {
			r.hours = 1
		}
	}
	for _, sub := range m.take(minutesRe) {
		n, ok := counts[sub[1]]
		if !ok {
			n, _ = strconv.Atoi(sub[1])
		}
		if strings.HasPrefix(sub[2], "h") {
			r.hours = n
		} else {
			r.minutes = n
		}
	}
}

// readDom reads a day of the month: "15th", "15", "first".
func (r *recurrence) readDom(s string) {
	n, ok := ordinals[s]
	if !ok {
		n, _ = strconv.Atoi(strings.TrimRight(s, "stndrh"))
	}
	switch {
	case n < 1 || n > 31:
		r.asked = true
		r.unclear = first(r.unclear, fmt.Sprintf("“%s” isn't a day of the month: pick a day from the 1st to the 28th.", s))
	case n > 28:
		r.asked = true
		r.unclear = first(r.unclear, fmt.Sprintf("Not every month has a %s, so the schedule would skip months: pick a day from the 1st to the 28th.", ordinal(n)))
	default:
		r.dom = n
	}
}
