package schedule

import (
	"strings"
	"time"
)

// Request is what a message asks of a schedule.
type Request struct {
	// When is the recurrence; zero (Spec == "") when the words name none.
	// Its Location is Zone when the words name one.
	When When
	// Zone is the time zone the words name ("in Europe/London", "London
	// time"); nil when they name none, and the asker's applies. A zone
	// said but not understood is never replaced by the asker's: Unclear
	// says so.
	Zone *time.Location
	// HasWhen reports whether When was read.
	HasWhen bool
	// To is where to send each run; zero Kind when the words name no place
	// (callers default: the thread for a thread message, a DM for a button).
	To Destination
	// Format is what each run sends; "" when not said.
	Format Format
	// Condition is the alert's test; zero for a plain scheduled report.
	Condition Condition
	// Unclear is a sentence for the person when the words ask for a
	// schedule but part of it cannot be read, e.g. "I couldn't tell how
	// often to send it: …"; empty otherwise. The other fields hold what
	// could be read.
	Unclear string
	// Unread reports that some words were not read (Ignored) where they
	// may say what could not be told: how often or when to alert (Unclear
	// says which), or what was read (“at the end of each week” reads as
	// weekly, “end of” unread, and Unclear is empty). Another reader, such
	// as a model, may then restate the words in ones ParseRequest reads.
	// It is false when Unclear is a rule the words break ("every 2 minutes
	// is too often") or no words were left ("schedule this").
	Unread bool
	// Ignored are the words of the message no reader took, apart from
	// those that ask for a schedule ("send me", "please"); "" when none.
	Ignored string
}

// reading is a message read for a schedule: the request and what is left
// of the words.
type reading struct {
	req      Request
	rec      recurrence
	norm     string // the whole message, normalized
	leftover string // what no reader took
	// condAsked says a condition's words were read, even one whose number
	// was not (Condition is then zero and Unclear says why).
	condAsked bool
}

// read reads a message's words in an order that keeps each reader from
// taking another's words: conditions first (their column may be "daily
// revenue"), then the destination, the format and the recurrence.
func read(text string, loc *time.Location) reading {
	return readFrom(readMessage(text), loc)
}

// readFrom is read of the message readMessage made of a text.
func readFrom(m *message, loc *time.Location) reading {
	if loc == nil {
		loc = time.UTC
	}
	r := reading{norm: m.text}
	var unclear [5]string
	r.req.Condition, unclear[0], r.condAsked = readCondition(m)
	r.req.To, unclear[1] = readDestination(m)
	r.req.Format, unclear[2] = readFormat(m)
	offset := readOffset(m)
	r.rec = readRecurrence(m)
	// Last: "in" and a city's name are a zone only when no reader took
	// them for anything else.
	if r.req.Zone, unclear[4] = readZone(m); offset != "" {
		r.req.Zone, unclear[4] = nil, offset
	}
	if r.req.Zone != nil {
		loc = r.req.Zone
	}
	r.req.When, r.req.HasWhen, unclear[3] = r.rec.when(loc)
	// A broken recurrence matters most: say it first, then the zone.
	r.req.Unclear = first(unclear[3], first(unclear[4], first(unclear[0], first(unclear[1], unclear[2]))))
	if r.req.Unclear == "" && !r.req.HasWhen && r.req.Condition.Kind == "" {
		r.req.Unclear = unclearHowOften
	}
	r.leftover = strings.TrimSpace(m.text)
	r.req.Ignored = ignored(r.leftover)
	r.req.Unread = r.req.Ignored != "" && (r.req.Unclear == "" || r.req.Unclear == unclearHowOften ||
		r.req.Unclear == unclearCondition || strings.HasPrefix(r.req.Unclear, unclearHowOftenAt))
	return r
}

// ParseRequest reads what a message asks of a schedule; loc is the asker's
// time zone, and When.Location is loc (UTC when loc is nil) unless the
// words name another (Zone). Words that ask
// for no recurrence and no condition give Unclear ("how often?"), while an
// alert's condition without a recurrence leaves HasWhen false and Unclear
// empty: the caller picks how often to check.
func ParseRequest(text string, loc *time.Location) Request {
	return read(text, loc).req
}

// first keeps the first unclear sentence found.
func first(have, next string) string {
	if have != "" {
		return have
	}
	return next
}
