// Package blockkit turns the bot's replies into Slack Block Kit messages that
// Slack accepts: answers with their result table, errors, notices and the
// SQL behind an answer. Every builder keeps Slack's limits (50 blocks, 3,000
// characters a section, one table of 100 rows × 20 columns), so callers
// never have to. PlainText renders the same blocks for the terminal chat.
package blockkit

import (
	"regexp"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Button is a button under an answer; its value is the answer's query id.
type Button struct {
	// Action is the action id the front ends route on.
	Action string
	Label  string
}

// ActionsBlockIDPrefix starts the block_id of an answer's actions block; the
// query id follows it.
const ActionsBlockIDPrefix = "answer_actions:"

// Feedback buttons: one element (action id FeedbackActionID) whose two
// buttons' values are FeedbackUp or FeedbackDown, a colon and the query id.
const (
	FeedbackActionID      = "feedback"
	FeedbackUp            = "feedback_up"
	FeedbackDown          = "feedback_down"
	FeedbackBlockIDPrefix = "answer_feedback:"
)

// Answer is everything an answer message shows.
type Answer struct {
	// Question is the user's question, used in the fallback text when Text is empty.
	Question string
	// Text is the interpreter's answer in Slack mrkdwn.
	Text string
	// Result is the query result to show as a table; nil when there is none.
	Result *warehouse.Result
	// Assumptions are the interpretation choices the user should know about.
	Assumptions []string
	// QueryID is the value of the buttons; empty means no buttons.
	QueryID string
	// Buttons are shown under the answer, each carrying QueryID.
	Buttons []Button
	// Elapsed is how long answering took; zero hides it.
	Elapsed time.Duration
	// Backend names where the data came from, e.g. "sql"; optional.
	Backend string
	// Feedback adds 👍/👎 buttons (with QueryID).
	Feedback bool
	// VerifiedBy, when not empty, marks the answer's query as one the data
	// team verified: a Slack user ID, or a name ("the examples file").
	VerifiedBy string
}

// Message is a Slack message: fallback text plus blocks.
type Message struct {
	// Text is the top-level fallback text for notifications and old clients;
	// never empty and at most 4,000 characters.
	Text string
	// Blocks are the Block Kit blocks, at most 50.
	Blocks []slack.Block
}

// Render builds the message for an answer: the answer text (split into
// sections as needed), the result table, a context line with assumptions,
// row count and time, and Export CSV / Show SQL buttons.
func Render(a Answer) Message {
	hasButtons := a.QueryID != "" && textLen(a.QueryID) <= maxButtonValue && len(a.Buttons) > 0

	// The table, context and buttons always fit; the answer text gets the
	// blocks left over.
	var tail []slack.Block
	table := resultBlock(a.Result, hasButtons)
	if table != nil {
		tail = append(tail, table)
	}
	if b := answerContext(a); b != nil {
		tail = append(tail, b)
	}
	if hasButtons {
		tail = append(tail, answerActions(a.QueryID, a.Buttons))
	}
	if a.Feedback && a.QueryID != "" && textLen(a.QueryID) <= maxButtonValue-len(FeedbackDown)-1 {
		tail = append(tail, FeedbackButtons(a.QueryID))
	}

	fallback := answerFallback(a)
	text := modelText(a.Text)
	if text == "" && table == nil {
		// Never send buttons or a context line on their own.
		text = fallback
	}
	blocks := textSections(text, maxBlocks-len(tail), "The answer was too long for one Slack message and was cut here.")
	return Message{Text: fallback, Blocks: append(blocks, tail...)}
}

// resultBlock shows the result as Slack's table when it fits, otherwise as
// monospace text. Results without rows show nothing: the context line says
// "no rows".
func resultBlock(r *warehouse.Result, hasButtons bool) slack.Block {
	if r == nil || len(r.Columns) == 0 || len(r.Rows) == 0 {
		return nil
	}
	if fitsNativeTable(r) {
		return nativeTable(r)
	}
	return monoTable(r, hasButtons)
}

// answerContext lists each assumption, then "N rows · in 1.2 s · via sql",
// within Slack's 10 elements per context block.
func answerContext(a Answer) *slack.ContextBlock {
	var elems []slack.MixedElement
	var assumptions []string
	for _, s := range a.Assumptions {
		if s = strings.TrimSpace(s); s != "" {
			assumptions = append(assumptions, s)
		}
	}
	for i, s := range assumptions {
		if i == maxContextElems-2 && len(assumptions) > maxContextElems-1 {
			rest := escape(strings.Join(assumptions[i:], "; "))
			elems = append(elems, mrkdwn("More assumptions: "+truncateEscaped(rest, maxSectionText-30)))
			break
		}
		elems = append(elems, mrkdwn("Assumption: "+truncateEscaped(escape(s), maxSectionText-30)))
	}

	if v := strings.TrimSpace(a.VerifiedBy); v != "" {
		elems = append(elems, mrkdwn(VerifiedBadge(v)))
	}
	var meta []string
	if r := a.Result; r != nil {
		switch {
		case r.Truncated && r.LimitedBy == "bytes":
			meta = append(meta, "result cut to "+plural(len(r.Rows), "row", "rows")+" (size limit)")
		case r.Truncated:
			meta = append(meta, "result limited to "+plural(len(r.Rows), "row", "rows"))
		case len(r.Rows) == 0:
			meta = append(meta, "no rows")
		default:
			meta = append(meta, plural(len(r.Rows), "row", "rows"))
		}
	}
	if e := formatElapsed(a.Elapsed); e != "" {
		meta = append(meta, "in "+e)
	}
	if b := strings.TrimSpace(a.Backend); b != "" {
		meta = append(meta, "via "+truncate(escape(b), 100))
	}
	if len(meta) > 0 {
		elems = append(elems, mrkdwn(strings.Join(meta, " · ")))
	}
	if len(elems) == 0 {
		return nil
	}
	return slack.NewContextBlock("", elems...)
}

// answerActions is the button row (Export CSV, Show SQL). Every button
// carries the query id, and so does the block_id, so a click names its
// query either way.
func answerActions(queryID string, buttons []Button) *slack.ActionBlock {
	blockID := ActionsBlockIDPrefix + queryID
	blockID = blockID[:fitPrefix(blockID, maxBlockID)]
	elems := make([]slack.BlockElement, 0, min(len(buttons), maxActionElems))
	for _, b := range buttons[:min(len(buttons), maxActionElems)] {
		elems = append(elems, slack.NewButtonBlockElement(b.Action, queryID, plain(truncate(b.Label, maxButtonText))))
	}
	return slack.NewActionBlock(blockID, elems...)
}

// FeedbackButtons is the 👍/👎 pair under an answer, in a context_actions
// block; each button's value names the rating and the query.
func FeedbackButtons(queryID string) *slack.ContextActionsBlock {
	blockID := FeedbackBlockIDPrefix + queryID
	blockID = blockID[:fitPrefix(blockID, maxBlockID)]
	up := slack.NewFeedbackButton(plain("👍"), FeedbackUp+":"+queryID).WithAccessibilityLabel("This answer is right")
	down := slack.NewFeedbackButton(plain("👎"), FeedbackDown+":"+queryID).WithAccessibilityLabel("This answer is wrong")
	return slack.NewContextActionsBlock(blockID, slack.NewFeedbackButtonsBlockElement(FeedbackActionID, up, down))
}

var slackUserID = regexp.MustCompile(`^[UW][A-Z0-9]{2,}$`)

// VerifiedBadge is the line that marks a verified query: "✓ Verified query
// (by @name)", a Slack user ID mentioned so Slack shows the name.
func VerifiedBadge(by string) string {
	switch {
	case slackUserID.MatchString(by):
		by = "<@" + by + ">"
	case by == "file":
		by = "the examples file"
	default:
		by = escape(truncate(by, 100))
	}
	return "✓ Verified query (by " + by + ")"
}

// answerFallback is the notification text: the answer itself when there is
// one, otherwise a summary of the result or the question.
func answerFallback(a Answer) string {
	if t := modelText(a.Text); t != "" {
		return truncateEscaped(t, maxFallbackText)
	}
	if r := a.Result; r != nil && len(r.Columns) > 0 {
		return "Here is the result: " + plural(len(r.Rows), "row", "rows") + "."
	}
	if q := strings.TrimSpace(a.Question); q != "" {
		return truncateEscaped("Answer to: "+escape(q), maxFallbackText)
	}
	return "Here is your answer."
}

// textSections splits escaped mrkdwn into at most budget sections. When it
// needs more, the last one is replaced by cutNote.
func textSections(text string, budget int, cutNote string) []slack.Block {
	if text == "" || budget <= 0 {
		return nil
	}
	pieces := splitText(text, maxSectionText)
	if len(pieces) > budget {
		pieces = append(pieces[:budget-1], "_"+cutNote+"_")
	}
	out := make([]slack.Block, len(pieces))
	for i, p := range pieces {
		out[i] = section(p)
	}
	return out
}

func section(text string) *slack.SectionBlock {
	return slack.NewSectionBlock(mrkdwn(text), nil, nil)
}

func mrkdwn(text string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, text, false, false)
}

func plain(text string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, text, false, false)
}
