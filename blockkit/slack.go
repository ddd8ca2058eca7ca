package blockkit

import (
	"strings"

	"github.com/slack-go/slack"
)

// Asked is the message a slash command posts in the channel before the
// answer, so the question is visible and the answer has a thread to go to.
func Asked(userID, question string) Message {
	q := truncateEscaped(escape(oneLine(strings.TrimSpace(question))), maxSectionText-60)
	text := "<@" + userID + "> asked: " + q
	return Message{Text: text, Blocks: []slack.Block{section(text)}}
}

// Help explains how to use the bot in Slack: the slash command, mentions,
// follow-ups and buttons, with example questions when there are any. The
// usage line shows the first example; without one it names no data, as
// the bot may serve any.
func Help(command, domain string, examples []string) Message {
	if domain = strings.TrimSpace(domain); domain == "" {
		domain = "the analytics data"
	}
	cmd := escape(command)
	usage := "• `" + cmd + " your question` posts it in this channel and answers in its thread."
	if len(examples) > 0 {
		usage = "• `" + cmd + " " + escape(examples[0]) + "` posts your question in this channel and answers in its thread."
	}
	lines := []string{
		"*Ask me about " + escape(domain) + ".*",
		usage,
		"• Or mention me with a question in a channel I'm in, or send me a direct message.",
		"• In a thread I answered, just reply to ask a follow-up (“And only the top 5?”): no mention needed.",
		"• Under each answer, *Export CSV* uploads the result as a file and *Show SQL* shows the query.",
		"• *Schedule* under an answer, or “send me this every Monday at 9” in its thread, sends it again by itself; " +
			"“alert me when it is above 100” only when that holds. `" + cmd + " schedules` lists yours.",
		"• `" + cmd + " help` shows this message.",
	}
	blocks := []slack.Block{section(strings.Join(lines, "\n"))}
	quoted := make([]string, 0, len(examples))
	for _, e := range examples {
		quoted = append(quoted, "“"+e+"”")
	}
	if list := bulletList("*Try asking:*", quoted); list != "" {
		blocks = append(blocks, section(list))
	}
	return Message{Text: "How to ask me questions with " + cmd, Blocks: blocks}
}
