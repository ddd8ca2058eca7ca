package schedule

import (
	"regexp"
	"strings"
)

// message is a message being read: Slack's markup stripped, lower case, one
// space between words. Each reader takes the phrases it understands out of
// text, leaving a bar in their place so later readers never join words
// across them; what is left at the end shows whether the message said
// anything else.
type message struct {
	text string
	// channels are the Slack channel mentions, in order.
	channels []Destination
	// spec is a cron spec given in backticks or after the word "cron", as
	// written ("" when none).
	spec string
}

// gap stands where a reader took a phrase.
const gap = " | "

// cronSpecPattern is five cron fields (the minute and hour in digits and
// symbols, as no names exist for them) or a descriptor.
const cronSpecPattern = `(@[a-z]+|[0-9*?,/-]+\s+[0-9*?,/-]+(?:\s+[0-9a-z*?,/-]+){3})`

var (
	channelMentionRe = regexp.MustCompile(`<#([A-Za-z0-9]+)(?:\|([^>]*))?>`)
	otherMentionRe   = regexp.MustCompile(`<[@!][^>]*>`)
	linkRe           = regexp.MustCompile(`<((?:https?|mailto):[^|>]*)(?:\|([^>]*))?>`)
	codeRe           = regexp.MustCompile("```([^`]*)```|`([^`]*)`")
	cronWordRe       = regexp.MustCompile(`(?i)\bcron(?:\s+(?:spec|schedule|expression))?\s*[:=]?\s*` + cronSpecPattern)
	cronFieldsRe     = regexp.MustCompile(`(?i)^` + cronSpecPattern + `$`)
	emphasisStartRe  = regexp.MustCompile(`(^|[\s(])[*_~]+`)
	emphasisEndRe    = regexp.MustCompile(`[*_~]+($|[\s).,!?:;])`)
	symbolRe         = regexp.MustCompile(`(>=|<=|=>|=<|≥|≤|>|<)`)
	stopRe           = regexp.MustCompile(`[,.;:!?]+(\s|$)|[()\[\]{}"]`)
	spacesRe         = regexp.MustCompile(`\s+`)
)

// plainer undoes Slack's escapes and writes the typographic characters
// people paste as plain ones.
var plainer = strings.NewReplacer(
	"&gt;", ">", "&lt;", "<", "&amp;", "&",
	"’", "'", "‘", "'", "“", `"`, "”", `"`, "\u00a0", " ", "—", " - ", "–", "-",
)

// replacer writes contractions and dotted abbreviations in full.
var replacer = strings.NewReplacer(
	"a.m.", "am", "p.m.", "pm", "o'clock", "oclock",
	"it's", "it is", "there's", "there is", "isn't", "is not", "aren't", "are not",
	"what's", "what is", "i'd", "i would", "don't", "do not", "doesn't", "does not",
)

// readMessage strips a message's Slack formatting: user and special mentions
// go, channel mentions become "#name" (and are kept with their ids), links
// become their labels, a backticked cron spec is kept aside, and emphasis
// markers, quotes and trailing punctuation go.
func readMessage(raw string) *message {
	m := &message{}
	s := channelMentionRe.ReplaceAllStringFunc(raw, func(mention string) string {
		sub := channelMentionRe.FindStringSubmatch(mention)
		d := Destination{Kind: DestChannel, Channel: sub[1], Name: strings.ToLower(strings.TrimPrefix(sub[2], "#"))}
		m.channels = append(m.channels, d)
		if d.Name != "" {
			return " #" + d.Name + " "
		}
		return " #" + strings.ToLower(d.Channel) + " "
	})
	s = linkRe.ReplaceAllString(s, " $2 ")
	s = otherMentionRe.ReplaceAllString(s, " ")
	s = codeRe.ReplaceAllStringFunc(s, func(code string) string {
		inner := strings.TrimSpace(strings.Trim(code, "`"))
		if m.spec == "" && cronFieldsRe.MatchString(inner) {
			m.spec = inner
			return gap
		}
		return " " + inner + " "
	})
	if m.spec == "" {
		if loc := cronWordRe.FindStringSubmatchIndex(s); loc != nil {
			m.spec = s[loc[2]:loc[3]]
			s = s[:loc[0]] + gap + s[loc[1]:]
		}
	}
	s = replacer.Replace(plainer.Replace(strings.ToLower(s)))
	s = emphasisStartRe.ReplaceAllString(s, "$1")
	s = emphasisEndRe.ReplaceAllString(s, "$1")
	s = symbolRe.ReplaceAllString(s, " $1 ")
	s = stopRe.ReplaceAllString(s, " $1")
	m.text = strings.TrimSpace(spacesRe.ReplaceAllString(s, " "))
	return m
}

// take removes every match of re from the text and returns the matches'
// submatches, in order.
func (m *message) take(re *regexp.Regexp) [][]string {
	idx := re.FindAllStringSubmatchIndex(m.text, -1)
	if idx == nil {
		return nil
	}
	var found [][]string
	var b strings.Builder
	last := 0
	for _, loc := range idx {
		sub := make([]string, len(loc)/2)
		for i := range sub {
			if loc[2*i] >= 0 {
				sub[i] = m.text[loc[2*i]:loc[2*i+1]]
			}
		}
		found = append(found, sub)
		b.WriteString(m.text[last:loc[0]])
		b.WriteString(gap)
		last = loc[1]
	}
	b.WriteString(m.text[last:])
	m.text = b.String()
	return found
}

// has reports whether re matches what is left of the text.
func (m *message) has(re *regexp.Regexp) bool {
	return re.MatchString(m.text)
}

// takeIf is take for the matches decide takes: it returns what stands in
// a match's place (gap, and the words of the match it leaves), or false to
// leave the match as it is.
func (m *message) takeIf(re *regexp.Regexp, decide func(sub []string) (string, bool)) {
	idx := re.FindAllStringSubmatchIndex(m.text, -1)
	if idx == nil {
		return
	}
	var b strings.Builder
	last := 0
	for _, loc := range idx {
		sub := make([]string, len(loc)/2)
		for i := range sub {
			if loc[2*i] >= 0 {
				sub[i] = m.text[loc[2*i]:loc[2*i+1]]
			}
		}
		repl, ok := decide(sub)
		if !ok {
			continue
		}
		b.WriteString(m.text[last:loc[0]])
		b.WriteString(" " + strings.TrimSpace(repl) + " ")
		last = loc[1]
	}
	b.WriteString(m.text[last:])
	m.text = b.String()
}
