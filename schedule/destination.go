package schedule

import (
	"regexp"
	"strings"
)

// DestinationKind is where a schedule's message goes.
type DestinationKind string

// The kinds of destination.
const (
	// DestThread posts each run as a reply in the thread the schedule was
	// made in.
	DestThread DestinationKind = "thread"
	// DestChannel posts each run in a channel: the one named, or the
	// current channel when Destination.Channel and Name are empty.
	DestChannel DestinationKind = "channel"
	// DestDM sends each run to the person privately.
	DestDM DestinationKind = "dm"
)

// Destination is where a schedule's message goes.
type Destination struct {
	// Kind is where; "" when the words name no place (callers default: the
	// thread for a thread message, a DM for a button).
	Kind DestinationKind
	// Channel is, for DestChannel, the Slack channel id when the words held
	// a channel mention ("<#C0123ABC|growth>" or "<#C0123ABC>"), else "".
	Channel string
	// Name is, for DestChannel, the channel's name without "#" ("growth"),
	// from "#growth" or the mention's label; "" when the words gave none.
	Name string
}

// label names a destination in a sentence for the person.
func (d Destination) label() string {
	switch {
	case d.Kind == DestDM:
		return "a DM"
	case d.Kind == DestThread:
		return "this thread"
	case d.Name != "":
		return "#" + d.Name
	case d.Channel != "":
		return "<#" + d.Channel + ">"
	}
	return "this channel"
}

var (
	// channelNameRe is "#growth", with the words that lead to it.
	channelNameRe = regexp.MustCompile(`(?:\b(?:to|in|into|on|at|for|with)\s+(?:the\s+)?(?:channel\s+)?)?#([a-z0-9][a-z0-9_-]*)`)
	// thisChannelRe is the channel the message was written in.
	thisChannelRe = regexp.MustCompile(`\b(?:(?:to|in|into|on)\s+(?:the|this|our)\s+channel|in\s+channel|to\s+channel)\b`)
	// dmRe asks for a direct message in so many words.
	dmRe = regexp.MustCompile(`\b(?:(?:dm|pm|direct\s+message|private\s+message)\s+(?:it\s+|this\s+|that\s+)?(?:to\s+)?me|(?:in|by|via|as|through|over)\s+(?:an?\s+)?(?:dm|pm|direct\s+message|private\s+message)s?|(?:to\s+)?me\s+privately|privately|in\s+private|to\s+my\s+dms?|in\s+my\s+dms?)\b`)
	// sendMeRe is "send me", a weaker ask for a direct message that a
	// named channel or thread overrides.
	sendMeRe = regexp.MustCompile(`\b((?:send|message|deliver|forward)\s+(?:it\s+|this\s+|that\s+|these\s+|the\s+results?\s+|the\s+answer\s+)?(?:to\s+)?)me\b`)
	// threadRe is this thread.
	threadRe = regexp.MustCompile(`\b(?:(?:in|to|into|on)\s+(?:this|the)\s+thread|in\s+thread|right\s+here|here)\b`)
)

// readDestination takes the destination words out of m. unclear is set when
// the words name more than one place.
func readDestination(m *message) (d Destination, unclear string) {
	var found []Destination
	for _, sub := range m.take(channelNameRe) {
		found = append(found, channelNamed(m, sub[1]))
	}
	if m.take(thisChannelRe) != nil {
		found = append(found, Destination{Kind: DestChannel})
	}
	if m.take(dmRe) != nil {
		found = append(found, Destination{Kind: DestDM})
	}
	if m.take(threadRe) != nil {
		found = append(found, Destination{Kind: DestThread})
	}
	// "send me" leaves the verb for the intent readers and takes only "me".
	sendMe := m.has(sendMeRe)
	if sendMe {
		m.text = sendMeRe.ReplaceAllString(m.text, "$1"+gap)
	}
	distinct := dedupe(found)
	switch {
	case len(distinct) > 1:
		return Destination{}, "I read more than one place to send it (" + labels(distinct) + "): say one, and make another schedule for the other."
	case len(distinct) == 1:
		return distinct[0], ""
	case sendMe:
		return Destination{Kind: DestDM}, ""
	}
	return Destination{}, ""
}

// channelNamed is the destination for "#name": the channel mention it came
// from, when there was one, so the id is kept.
func channelNamed(m *message, name string) Destination {
	for _, c := range m.channels {
		if c.Name == name || (c.Name == "" && strings.ToLower(c.Channel) == name) {
			if c.Name == "" {
				return Destination{Kind: DestChannel, Channel: c.Channel}
			}
			return c
		}
	}
	return Destination{Kind: DestChannel, Name: name}
}

// dedupe drops repeated destinations, keeping the first of each.
func dedupe(ds []Destination) []Destination {
	var out []Destination
	seen := map[Destination]bool{}
	for _, d := range ds {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// labels lists destinations for a sentence.
func labels(ds []Destination) string {
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.label()
	}
	return joinWords(names)
}
