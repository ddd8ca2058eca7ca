package slackapp

import (
	"cmp"
	"regexp"
	"strings"
)

// typed is a message's text as the person typed it, read once where
// Slack's text enters (a message event, a mention, a slash command).
type typed struct {
	text string
	// channels maps the name of each channel mention turned into "#name"
	// to its id, for a schedule posting there (bot.Message.Channels).
	channels map[string]string
}

// slackToken is one piece of Slack's markup: <…> holding no < or >. A <
// or > the person typed arrives as &lt; or &gt;, so every raw one is
// Slack's.
var slackToken = regexp.MustCompile(`<([^<>]*)>`)

// linkScheme starts a link's address: https:, mailto:, tel:, …
var linkScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// unescapeEntities undoes Slack's three escapes. It runs once, over text
// outside tokens and over each token's parts, never over its own output.
var unescapeEntities = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">").Replace

// plainText turns Slack's markup in text into what the person typed
// (https://api.slack.com/reference/surfaces/formatting#escaping): the
// bot's own mention goes; another person's stays as Slack's <@U…>, or is
// @name when the token carries one; <#C…|name> is #name (<#C…> #C…), its
// id kept in channels; <!here>,
// <!channel>, <!everyone> are @here, @channel, @everyone, and
// <!subteam^S…|@team> its label; a link is its label, or its address
// without one; then &lt;, &gt; and &amp; are <, > and &. A token of no
// shape Slack sends stays as it is, so text Slack did not escape (a slash
// command's, in some set-ups) loses nothing. White space is collapsed.
func plainText(text, botUserID string) typed {
	var (
		b    strings.Builder
		out  typed
		last int
	)
	for _, loc := range slackToken.FindAllStringSubmatchIndex(text, -1) {
		b.WriteString(unescapeEntities(text[last:loc[0]]))
		b.WriteString(out.token(text[loc[2]:loc[3]], text[loc[0]:loc[1]], botUserID))
		last = loc[1]
	}
	b.WriteString(unescapeEntities(text[last:]))
	out.text = strings.Join(strings.Fields(b.String()), " ")
	return out
}

// token is the plain text of one token: inner is what is between its
// angle brackets, raw the whole token.
func (t *typed) token(inner, raw, botUserID string) string {
	body, label, labelled := strings.Cut(inner, "|")
	label = unescapeEntities(label)
	switch {
	case userMention.MatchString(body):
		switch {
		case botUserID != "" && body[1:] == botUserID:
			return " "
		case labelled && label != "":
			return "@" + strings.TrimPrefix(label, "@")
		}
		return raw
	case channelMention.MatchString(body):
		// A channel without its name (<#C0123ABC>, <#C0123ABC|>) is
		// #C0123ABC, as answer.Labels writes it. Either way its id travels
		// in channels alone: a "<#" left in the text is one the person
		// typed, which the schedule's reading keeps as text.
		name := cmp.Or(strings.TrimPrefix(label, "#"), body[1:])
		if t.channels == nil {
			t.channels = map[string]string{}
		}
		t.channels[strings.ToLower(name)] = body[1:]
		return "#" + name
	case strings.HasPrefix(body, "!"):
		return special(body[1:], label, raw)
	case linkScheme.MatchString(body):
		if labelled && label != "" {
			return label
		}
		return strings.TrimPrefix(unescapeEntities(body), "mailto:")
	}
	return unescapeEntities(raw)
}

// userMention and channelMention are the bodies of a user's and a channel's mention.
var (
	userMention    = regexp.MustCompile(`^@[UW][A-Z0-9]+$`)
	channelMention = regexp.MustCompile(`^#[CG][A-Z0-9]+$`)
)

// special is a special mention's plain text: @here, @channel, @everyone,
// a user group's label, a date's fallback.
func special(body, label, raw string) string {
	switch name, _, _ := strings.Cut(body, "^"); name {
	case "here", "channel", "everyone":
		return "@" + name
	case "subteam", "date":
		if label != "" {
			return label
		}
	}
	return unescapeEntities(raw)
}
