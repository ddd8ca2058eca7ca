package answer

import (
	"cmp"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is a run of text with one emphasis.
type Span struct {
	Text   string `json:"text"`
	Bold   bool   `json:"bold,omitempty"`
	Italic bool   `json:"italic,omitempty"`
	Code   bool   `json:"code,omitempty"`
	// Link is the address the span links to; empty: none.
	Link string `json:"link,omitempty"`
	// Mention is the Slack user ("@U0123") or channel ("#C0123") the span
	// names, which Slack shows by its current name; other surfaces show
	// Text ("@U0123", "#growth").
	Mention string `json:"mention,omitempty"`
}

// Text is prose with neutral emphasis, as spans.
type Text []Span

// Plain returns the text without emphasis.
func (t Text) Plain() string {
	var b strings.Builder
	for _, s := range t {
		b.WriteString(s.Text)
	}
	return b.String()
}

// Plain makes text of s as it is, with no emphasis: what the bot writes
// itself, where a * or _ is only a character.
func Plain(s string) Text {
	if s == "" {
		return nil
	}
	return Text{{Text: s}}
}

// Concat joins texts.
func Concat(ts ...Text) Text {
	var out Text
	for _, t := range ts {
		out = append(out, t...)
	}
	return out
}

// markup finds the light markup a language model writes, in Markdown or
// Slack's mrkdwn: **bold**, *bold*, __italic__, _italic_, `code`,
// [label](https://…), <https://…|label> and <https://…>. Emphasis never
// spans lines; a marker must hug its text.
var markup = regexp.MustCompile(
	"`([^`\n]+)`" +
		`|\*\*([^*\n]+?)\*\*` +
		`|\*([^*\s](?:[^*\n]*?[^*\s])?)\*` +
		`|__([^_\n]+?)__` +
		`|(?:^|\b)_([^_\s](?:[^_\n]*?[^_\s])?)_(?:\b|$)` +
		`|\[([^\]\n]+)\]\((https?://[^\s)]+)\)` +
		`|<(https?://[^|>\s]+)(?:\|([^>\n]+))?>`)

// Exposed is t with every link to a host trusted does not trust turned
// into its label followed by its address, as code: the model's
// words may come from the data it read, and a label that hides where a
// link goes (and what its address carries) is not theirs to make.
func (t Text) Exposed(trusted func(host string) bool) Text {
	var out Text
	for _, sp := range t {
		if sp.Link == "" || trusted != nil && trusted(hostOf(sp.Link)) {
			out = append(out, sp)
			continue
		}
		// The address as code: written exactly (no number in it gets a
		// thousands separator), and linked by no surface.
		address := Span{Text: sp.Link, Code: true}
		if strings.TrimSpace(sp.Text) == sp.Link {
			out = append(out, address)
			continue
		}
		label := sp
		label.Link = ""
		out = append(out, label, Span{Text: " ("}, address, Span{Text: ")"})
	}
	return out
}

// hostOf is the host of the address u, "" when it has none.
func hostOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Host
}

// ParseText reads the interpreter's prose into spans. Markers that do not
// pair up stay as characters; links only to http(s) addresses.
func ParseText(s string) Text {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	var out Text
	add := func(sp Span) {
		if sp.Text == "" {
			return
		}
		if n := len(out); n > 0 && out[n-1].sameStyle(sp) {
			out[n-1].Text += sp.Text
			return
		}
		out = append(out, sp)
	}
	last := 0
	for _, m := range markup.FindAllStringSubmatchIndex(s, -1) {
		start := m[0]
		g := func(i int) string {
			if m[2*i] < 0 {
				return ""
			}
			return s[m[2*i]:m[2*i+1]]
		}
		if (m[4] >= 0 || m[6] >= 0) && (endsWord(s[:start]) || startsWord(s[m[1]:])) {
			continue // 2*3*4: a star inside a word is a character, as in Slack
		}
		var sp Span
		switch {
		case m[2] >= 0:
			sp = Span{Text: g(1), Code: true}
		case m[4] >= 0:
			sp = Span{Text: g(2), Bold: true}
		case m[6] >= 0:
			sp = Span{Text: g(3), Bold: true}
		case m[8] >= 0:
			sp = Span{Text: g(4), Italic: true}
		case m[10] >= 0:
			// The underscore pattern may have taken the character before
			// it (a line start); keep only from the marker.
			start = strings.LastIndexByte(s[:m[10]], '_')
			sp = Span{Text: g(5), Italic: true}
		case m[12] >= 0:
			sp = Span{Text: g(6), Link: g(7)}
		case m[18] >= 0:
			sp = Span{Text: unescapeSlack(g(9)), Link: g(8)}
		default:
			sp = Span{Text: g(8), Link: g(8)}
		}
		add(Span{Text: unescapeSlack(s[last:start])})
		add(sp)
		last = m[1]
	}
	add(Span{Text: unescapeSlack(s[last:])})
	return out
}

// mention is Slack's syntax for a user or channel: <@U0123>,
// <#C0123|growth>.
var mention = regexp.MustCompile(`<([@#])([UWCGD][A-Z0-9]{2,})(?:\|([^>\n]*))?>`)

// Mentions makes the Slack mentions in t's plain spans mention spans: for
// the bot's own words (a schedule's channel, its owner), never for a
// model's, whose mentions stay characters and would otherwise ping people.
func Mentions(t Text) Text {
	var out Text
	for _, sp := range t {
		if sp.Link != "" || sp.Code || sp.Mention != "" {
			out = append(out, sp)
			continue
		}
		last := 0
		for _, m := range mention.FindAllStringSubmatchIndex(sp.Text, -1) {
			if m[0] > last {
				out = append(out, Span{Text: sp.Text[last:m[0]], Bold: sp.Bold, Italic: sp.Italic})
			}
			kind, id := sp.Text[m[2]:m[3]], sp.Text[m[4]:m[5]]
			label := id
			if m[6] >= 0 && m[7] > m[6] {
				label = sp.Text[m[6]:m[7]]
			}
			out = append(out, Span{Text: kind + label, Mention: kind + id, Bold: sp.Bold, Italic: sp.Italic})
			last = m[1]
		}
		if last < len(sp.Text) {
			out = append(out, Span{Text: sp.Text[last:], Bold: sp.Bold, Italic: sp.Italic})
		}
	}
	return out
}

// Labels writes the Slack mentions in s as the labels Mentions shows:
// <#C0123|growth> as #growth, <@U0123> as @U0123.
func Labels(s string) string {
	return mention.ReplaceAllStringFunc(s, func(m string) string {
		sub := mention.FindStringSubmatch(m)
		return sub[1] + cmp.Or(sub[3], sub[2])
	})
}

// Defuse keeps Mentions from reading mentions in s (a question someone, or
// a model, wrote) when it is quoted in the bot's own words: a zero-width
// space after each "<" that would start one.
func Defuse(s string) string { return defuser.Replace(s) }

var defuser = strings.NewReplacer("<@", "<\u200b@", "<#", "<\u200b#")

// endsWord and startsWord report whether s ends or starts with a letter
// or digit.
func endsWord(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func startsWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func (s Span) sameStyle(o Span) bool {
	return s.Bold == o.Bold && s.Italic == o.Italic && s.Code == o.Code && s.Link == o.Link && s.Mention == "" && o.Mention == ""
}

// unescapeSlack undoes Slack's entities, which a model that writes mrkdwn
// may use.
var unescapeSlack = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">").Replace
