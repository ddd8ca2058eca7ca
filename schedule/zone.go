package schedule

//go:generate go run zones_gen.go

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	_ "time/tzdata" // a zone read in words loads on a host without the tz database too
)

// Unclear sentences about time zones: a zone said but not understood is
// never replaced by the asker's.
const (
	unclearZoneUnknown = "I don't know the time zone “%s”: say it as the tz database names it, e.g. “Europe/London”, " +
		"or as a city's time, e.g. “London time”."
	unclearZoneAbbr = "I can't tell which time zone “%s” is (an abbreviation names several, and most ignore daylight saving): " +
		"say it as the tz database names it, e.g. “America/New_York”, or as a city's time, e.g. “New York time”."
	unclearZoneOffset = "I can't take a time zone as an offset (“%s”), which ignores daylight saving: say its name, e.g. " +
		"“Europe/Berlin” or “Berlin time”, or “UTC”."
	unclearTwoZones = "I read more than one time zone (%s and %s): a schedule runs in one, so say one."
)

// zoneWord follows a zone's name: "London time", "Europe/Paris timezone".
const zoneWord = `(?:time\s*zone|timezone|tz|time)`

var (
	// zoneNameRe is a tz database name ("europe/london", "etc/gmt+5"),
	// and up to two words after it, which a space may have split from it
	// ("america/new york").
	zoneNameRe = regexp.MustCompile(`(?:\b(?:in|at)\s+)?(?:the\s+)?\b([a-z]+(?:/[a-z0-9_+-]+)+)((?:\s+[a-z]+){0,2})(\s+` + zoneWord + `\b)?`)
	// utcRe is UTC or GMT.
	utcRe = regexp.MustCompile(`(?:\b(?:in|at)\s+)?\b(utc|gmt)\b(?:\s+` + zoneWord + `\b)?`)
	// offsetRe is UTC or GMT with an offset; not Etc/GMT+5, a name.
	offsetRe = regexp.MustCompile(`(?:^|[^/\w])((?:(?:in|at)\s+)?)(utc|gmt)\s*([+-])\s*(\d{1,2}(?::?\d{2})?)\b(?:\s+` + zoneWord + `\b)?`)
	// abbreviationRe are zone abbreviations, which name no tz zone.
	abbreviationRe = regexp.MustCompile(`(?:\b(?:in|at)\s+)?\b(est|edt|cst|cdt|mst|mdt|pst|pdt|akst|akdt|hst|bst|cet|cest|eet|eest|ist|jst|kst|` +
		`aest|aedt|acst|acdt|awst|nzst|nzdt|msk|sgt|hkt|et|pt|ct|mt)\b(?:\s+` + zoneWord + `\b)?`)
	// zoneTimeRe is up to three words before "time" or "time zone":
	// "london time", "new york time", "pacific standard time".
	zoneTimeRe = regexp.MustCompile(`(?:\b(?:in|at)\s+)?\b((?:[a-z][a-z'-]*\s+){1,3})` + zoneWord + `\b`)
	// inPlaceRe is "in" and up to three words: "in new york".
	inPlaceRe = regexp.MustCompile(`\bin\s+([a-z][a-z'-]*(?:\s+[a-z][a-z'-]*){0,2})\b`)
)

// zoneAreas are the first parts of tz names; a name in one of them that
// is no zone is a zone misspelt, not other words with a slash.
var zoneAreas = map[string]bool{"africa": true, "america": true, "antarctica": true, "arctic": true, "asia": true,
	"atlantic": true, "australia": true, "europe": true, "indian": true, "pacific": true, "etc": true, "us": true,
	"canada": true, "brazil": true, "chile": true, "mexico": true}

// cityAreas are the areas whose names' last part is a city (or, in US,
// a region) people name a time by: "London time" is Europe/London,
// "Pacific time" US/Pacific.
var cityAreas = map[string]bool{"Africa": true, "America": true, "Antarctica": true, "Arctic": true, "Asia": true,
	"Atlantic": true, "Australia": true, "Europe": true, "Indian": true, "Pacific": true, "US": true}

// everydayTimes are words before "time" that name no zone: "lunch time",
// "the same time"; such words are left to the other readers, unread.
var everydayTimes = map[string]bool{
	"lunch": true, "dinner": true, "breakfast": true, "tea": true, "coffee": true, "bed": true, "closing": true,
	"opening": true, "business": true, "office": true, "work": true, "working": true, "same": true, "any": true,
	"every": true, "each": true, "first": true, "last": true, "next": true, "this": true, "that": true, "the": true,
	"some": true, "real": true, "your": true, "their": true, "free": true, "spare": true, "due": true, "what": true,
	"which": true, "such": true, "good": true, "right": true, "peak": true, "off": true, "run": true, "start": true,
	"end": true, "reporting": true, "launch": true, "release": true, "standup": true, "stand-up": true, "meeting": true,
	"on": true, "in": true, "at": true, "of": true, "a": true, "one": true, "no": true, "for": true, "all": true,
	"half": true, "full": true, "part": true, "over": true, "down": true, "up": true, "school": true, "show": true,
	"it": true, "is": true, "me": true, "us": true, "and": true, "to": true, "by": true, "from": true, "about": true,
}

// zoneWords are the words of zoneWord.
var zoneWords = map[string]bool{"time": true, "zone": true, "timezone": true, "tz": true}

// ownTimes name the asker's own zone: "at 9 my time".
var ownTimes = map[string]bool{"my": true, "our": true, "local": true, "my local": true, "our local": true}

var (
	// zoneByName is each zone by its name in lower case.
	zoneByName = map[string]string{}
	// zoneByCity is each zone of cityAreas by the last part of its name,
	// in lower case with spaces for "_" and "-" ("new york"); names that
	// share a city are links to one zone.
	zoneByCity = map[string]string{}
)

func init() {
	for _, name := range zoneNames {
		zoneByName[strings.ToLower(name)] = name
		parts := strings.Split(name, "/")
		if len(parts) < 2 || !cityAreas[parts[0]] {
			continue
		}
		key := cityKey(parts[len(parts)-1])
		if _, ok := zoneByCity[key]; !ok {
			zoneByCity[key] = name
		}
	}
}

// cityKey writes a place's name as zoneByCity keys it.
func cityKey(s string) string {
	return strings.Join(strings.Fields(strings.NewReplacer("_", " ", "-", " ").Replace(strings.ToLower(s))), " ")
}

// zoneRead is a time zone the words named.
type zoneRead struct {
	loc     *time.Location
	written string
}

// readOffset takes a zone given as an offset ("UTC+2", "GMT-05:30") out
// of m, before the clock times' reader could take its digits for one, and
// says it is not taken: an offset ignores daylight saving.
func readOffset(m *message) (unclear string) {
	if !strings.Contains(m.text, "utc") && !strings.Contains(m.text, "gmt") {
		return ""
	}
	m.takeIf(offsetRe, func(sub []string) (string, bool) {
		unclear = first(unclear, fmt.Sprintf(unclearZoneOffset, sub[2]+sub[3]+sub[4]))
		return gap, true
	})
	return unclear
}

// readZone takes the time zone's words out of m: a tz name ("in
// Europe/London"), UTC or GMT, a city's or a US region's time ("London
// time", "Pacific standard time"), "in" a city ("in New York"). loc is nil
// when the words name none, or the asker's own ("my time"). unclear is set
// for a zone said but not understood (an abbreviation, an offset, a name
// the tz database does not have): never read as another.
func readZone(m *message) (loc *time.Location, unclear string) {
	var found []zoneRead
	add := func(name, written string) {
		if l, err := time.LoadLocation(name); err == nil {
			found = append(found, zoneRead{l, written})
		} else {
			unclear = first(unclear, fmt.Sprintf(unclearZoneUnknown, Excerpt(written)))
		}
	}
	// The router reads every message: each reader runs only when its
	// words may be there.
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(m.text, w) {
				return true
			}
		}
		return false
	}
	if has("/") {
		m.takeIf(zoneNameRe, func(sub []string) (string, bool) {
			name := sub[1]
			extra := strings.Fields(sub[2])
			tail := sub[3]
			for len(extra) > 0 && zoneWords[extra[len(extra)-1]] {
				tail = " " + extra[len(extra)-1] + tail
				extra = extra[:len(extra)-1]
			}
			for n := len(extra); n >= 0; n-- {
				if z, ok := zoneByName[strings.Join(append([]string{name}, extra[:n]...), "_")]; ok {
					add(z, z)
					if n < len(extra) {
						// "Europe/London and Tokyo time": the words after
						// are not the name's, nor is "time".
						return gap + strings.Join(extra[n:], " ") + tail, true
					}
					return gap, true
				}
			}
			if zoneAreas[strings.SplitN(name, "/", 2)[0]] {
				unclear = first(unclear, fmt.Sprintf(unclearZoneUnknown, Excerpt(name)))
				return gap + sub[2] + sub[3], true
			}
			return "", false
		})
	}
	if has("utc", "gmt") {
		m.takeIf(utcRe, func(sub []string) (string, bool) {
			add(strings.ToUpper(sub[1]), strings.ToUpper(sub[1]))
			return gap, true
		})
	}
	m.takeIf(abbreviationRe, func(sub []string) (string, bool) {
		unclear = first(unclear, fmt.Sprintf(unclearZoneAbbr, Excerpt(strings.ToUpper(sub[1]))))
		return gap, true
	})
	if has("time", "tz") {
		m.takeIf(zoneTimeRe, func(sub []string) (string, bool) {
			words := strings.Fields(sub[1])
			if n := len(words); n > 1 && (words[n-1] == "standard" || words[n-1] == "daylight" || words[n-1] == "summer") {
				words = words[:n-1] // "Pacific standard time" is Pacific time, summer or winter
			}
			if len(words) == 0 || everydayTimes[words[len(words)-1]] {
				return "", false
			}
			for i := range words {
				key := strings.Join(words[i:], " ")
				if ownTimes[key] {
					return strings.Join(words[:i], " ") + gap, true
				}
				if z, ok := zoneByCity[cityKey(key)]; ok {
					add(z, z)
					return strings.Join(words[:i], " ") + gap, true
				}
			}
			// Words no zone is named after: quote those after any that ask.
			i := len(words) - 1
			for i > 0 && !everydayTimes[words[i-1]] && !fillerRe.MatchString(words[i-1]) {
				i--
			}
			unclear = first(unclear, fmt.Sprintf(unclearZoneUnknown, Excerpt(strings.Join(words[i:], " ")+" time")))
			return strings.Join(words[:i], " ") + gap, true
		})
	}
	if has("in ") {
		m.takeIf(inPlaceRe, func(sub []string) (string, bool) {
			words := strings.Fields(sub[1])
			for n := len(words); n > 0; n-- {
				if z, ok := zoneByCity[cityKey(strings.Join(words[:n], " "))]; ok {
					add(z, z)
					return gap + strings.Join(words[n:], " "), true
				}
			}
			return "", false
		})
	}
	for _, z := range found[min(1, len(found)):] {
		if z.loc.String() != found[0].loc.String() {
			return nil, first(unclear, fmt.Sprintf(unclearTwoZones, found[0].written, z.written))
		}
	}
	if unclear != "" || len(found) == 0 {
		return nil, unclear
	}
	return found[0].loc, ""
}
