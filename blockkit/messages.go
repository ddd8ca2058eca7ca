package blockkit

import (
	"cmp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Error builds a friendly error reply: the message, then what the user could
// try instead. It has no buttons: there is no result to act on.
func Error(text string, suggestions []string) Message {
	return errorReply(escape(strings.TrimSpace(text)), suggestions)
}

// errorReply is Error for text already in mrkdwn.
func errorReply(body string, suggestions []string) Message {
	if body == "" {
		body = "Something went wrong while answering."
	}
	blocks := textSections(":warning: "+body, maxBlocks-1, "The message was too long and was cut here.")
	if list := bulletList("*You could try:*", suggestions); list != "" {
		blocks = append(blocks, section(list))
	}
	return Message{Text: truncateEscaped(body, maxFallbackText), Blocks: blocks}
}

// Notice builds a polite informational reply, such as declining a question
// the bot cannot answer, followed by example questions it can.
func Notice(text string, examples []string) Message {
	return notice(escape(strings.TrimSpace(text)), examples)
}

// notice is Notice for text already in mrkdwn.
func notice(body string, examples []string) Message {
	if body == "" {
		body = "I can answer questions about the analytics data."
	}
	blocks := textSections(body, maxBlocks-1, "The message was too long and was cut here.")
	quoted := make([]string, 0, len(examples))
	for _, e := range examples {
		if e = strings.TrimSpace(e); e != "" {
			quoted = append(quoted, "“"+e+"”")
		}
	}
	if list := bulletList("*Try asking:*", quoted); list != "" {
		blocks = append(blocks, section(list))
	}
	return Message{Text: truncateEscaped(body, maxFallbackText), Blocks: blocks}
}

// Query builds the reply to Show SQL for the query of an answer, as its
// backend shows it: SQL as is; a query in another language (a Cube query)
// followed by the SQL the backend runs for it, when it can say.
func Query(queryID, question string, q warehouse.Shown) Message {
	if q.Language == "SQL" {
		return SQL(queryID, q.Text, question)
	}
	return otherQuery(queryID, q, question)
}

// SQL builds the reply to Show SQL: the question, then the statement in a
// code block, split across sections (each a complete code block) when it is
// longer than one section holds.
func SQL(queryID, sql string, question string) Message {
	title, fallback := "*SQL for this answer*", "SQL for this answer"
	if q := strings.TrimSpace(question); q != "" {
		title = "*SQL for:* " + truncateEscaped(escape(q), maxSectionText-20)
		fallback = truncateEscaped("SQL for: "+escape(q), maxFallbackText)
	}
	blocks := []slack.Block{section(title)}

	sql = strings.TrimSpace(sql)
	if sql == "" {
		blocks = append(blocks, section("_No SQL was run for this answer._"))
		return Message{Text: fallback, Blocks: blocks}
	}
	code := textSections(fenceOpen+escape(sql)+fenceClose, maxBlocks-1,
		"The SQL is too long to show in full here.")
	for i, b := range code {
		if s, ok := b.(*slack.SectionBlock); ok && queryID != "" {
			id := "sql:" + queryID + ":" + strconv.Itoa(i)
			s.BlockID = id[:fitPrefix(id, maxBlockID)]
		}
	}
	blocks = append(blocks, code...)
	return Message{Text: fallback, Blocks: blocks}
}

// bulletList renders up to maxListItems non-empty items under a heading,
// escaped and each cut to maxListItemText; "" when there are none.
func bulletList(heading string, items []string) string {
	var lines []string
	for _, it := range items {
		if it = strings.TrimSpace(it); it == "" {
			continue
		}
		if len(lines) == maxListItems {
			break
		}
		lines = append(lines, "• "+truncateEscaped(escape(it), maxListItemText))
	}
	if len(lines) == 0 {
		return ""
	}
	return heading + "\n" + strings.Join(lines, "\n")
}

// otherQuery builds the reply to Show SQL for a query that is not SQL
// (a Cube query): the query, then the SQL its backend generated for it
// (q.SQL, by q.SQLBy), each in code blocks. q.SQL may be empty when the
// backend could not say.
func otherQuery(queryID string, q warehouse.Shown, question string) Message {
	lang, by := cmp.Or(q.Language, "query"), cmp.Or(q.SQLBy, "the backend")
	query, sql := q.Text, q.SQL
	title, fallback := "*"+escape(capitalizeFirst(lang))+" for this answer*", capitalizeFirst(lang)+" for this answer"
	if qs := strings.TrimSpace(question); qs != "" {
		title = "*" + escape(capitalizeFirst(lang)) + " for:* " + truncateEscaped(escape(qs), maxSectionText-30)
		fallback = truncateEscaped(capitalizeFirst(lang)+" for: "+escape(qs), maxFallbackText)
	}
	blocks := []slack.Block{section(title)}
	budget := (maxBlocks - 3) / 2
	blocks = append(blocks, textSections(fenceOpen+escape(strings.TrimSpace(query))+fenceClose, budget,
		"The query is too long to show in full here.")...)
	if sql = strings.TrimSpace(sql); sql != "" {
		blocks = append(blocks, section("*SQL that "+escape(by)+" runs for it:*"))
		blocks = append(blocks, textSections(fenceOpen+escape(sql)+fenceClose, budget,
			"The SQL is too long to show in full here.")...)
	} else {
		blocks = append(blocks, section("_"+escape(capitalizeFirst(by))+" did not return the SQL it runs for this query._"))
	}
	for i, b := range blocks {
		if s, ok := b.(*slack.SectionBlock); ok && queryID != "" && i > 0 {
			id := "query:" + queryID + ":" + strconv.Itoa(i)
			s.BlockID = id[:fitPrefix(id, maxBlockID)]
		}
	}
	return Message{Text: fallback, Blocks: blocks}
}

// capitalizeFirst upper-cases the first letter of s.
func capitalizeFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}
