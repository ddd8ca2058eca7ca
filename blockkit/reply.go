package blockkit

import (
	"strconv"
	"strings"

	"github.com/slack-go/slack"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Reply renders any reply of the bot as a Slack message, by its kind.
func Reply(a *answer.Answer) Message {
	if a == nil {
		return errorReply("", nil)
	}
	switch a.Kind {
	case answer.KindError:
		m := errorReply(Mrkdwn(a.Text), nil)
		m.Blocks = append(m.Blocks, askButtons("*You could try:*", "suggestions", a.Questions)...)
		return m
	case answer.KindNotice:
		m := notice(Mrkdwn(a.Text), nil)
		m.Blocks = append(m.Blocks, askButtons("*Try asking:*", "suggestions", a.Questions)...)
		if hasButtons(a) {
			m.Blocks = append(m.Blocks, answerActions(a.QueryID, a.Actions))
		}
		return m
	case answer.KindClarify:
		return clarify(a)
	case answer.KindQuery:
		shown := warehouse.Shown{Language: "SQL"}
		if a.Query != nil {
			shown = *a.Query
		}
		return Query(a.QueryID, a.Question, shown)
	default:
		return Render(*a)
	}
}

// hasButtons reports whether a's actions make a row of buttons: each needs
// a value (its own, or the answer's query id) that fits in a button.
func hasButtons(a *answer.Answer) bool {
	for _, b := range a.Actions {
		if v := b.ValueOf(a.QueryID); v != "" && textLen(v) <= maxButtonValue {
			return true
		}
	}
	return false
}

// AskActionPrefix starts the action id of a button that asks its value as
// a question in the thread (a follow-up, a question to try); a number
// follows, as action ids must differ within a block.
const AskActionPrefix = "ask_"

// IsAskAction reports whether actionID is one of those buttons.
func IsAskAction(actionID string) bool { return strings.HasPrefix(actionID, AskActionPrefix) }

// askButtons is a heading and a row of buttons, one per question (at most
// maxListItems), each asking its question when pressed; nil without
// questions.
func askButtons(heading, blockID string, questions []string) []slack.Block {
	var elems []slack.BlockElement
	for _, q := range questions {
		q = strings.Join(strings.Fields(q), " ")
		if q == "" || textLen(q) > maxButtonValue {
			continue
		}
		if len(elems) == maxListItems {
			break
		}
		elems = append(elems, slack.NewButtonBlockElement(AskActionPrefix+strconv.Itoa(len(elems)+1), q, plain(truncate(q, maxButtonText))))
	}
	if len(elems) == 0 {
		return nil
	}
	return []slack.Block{section(heading), slack.NewActionBlock(blockID, elems...)}
}

// clarify is a question asked back: the question, and one button per
// choice, labelled with the choice, that asks the question again with it
// (an ask button, like a follow-up's).
func clarify(a *answer.Answer) Message {
	body := Mrkdwn(a.Text)
	if body == "" {
		body = "Which do you mean?"
	}
	m := Message{Text: truncateEscaped(body, maxFallbackText), Blocks: []slack.Block{section(truncateEscaped(body, maxSectionText))}}
	var elems []slack.BlockElement
	for _, c := range a.Choices {
		label, ask := strings.Join(strings.Fields(c.Label), " "), strings.TrimSpace(c.Ask)
		if label == "" || ask == "" || textLen(ask) > maxButtonValue || len(elems) == maxActionElems {
			continue
		}
		elems = append(elems, slack.NewButtonBlockElement(AskActionPrefix+strconv.Itoa(len(elems)+1), ask, plain(truncate(label, maxButtonText))))
	}
	if len(elems) > 0 {
		m.Blocks = append(m.Blocks, slack.NewActionBlock(ClarifyBlockID, elems...))
	}
	return m
}

// ClarifyBlockID is the block_id of the choices of a question asked back.
const ClarifyBlockID = "clarify"

// Mrkdwn writes text in Slack's mrkdwn: entities escaped, emphasis as
// Slack marks it, links as <url|label>. Markers hug their words (spaces at
// a span's edges go outside them), or Slack would show them as they are.
func Mrkdwn(t answer.Text) string {
	var b strings.Builder
	for _, s := range t {
		text := escape(s.Text)
		if s.Mention != "" {
			b.WriteString("<" + s.Mention + ">") // Slack shows the current name
			continue
		}
		if s.Link != "" {
			b.WriteString("<" + escape(strings.NewReplacer("|", "%7C").Replace(s.Link)) + "|" + strings.ReplaceAll(text, "|", "¦") + ">")
			continue
		}
		if !s.Bold && !s.Italic && !s.Code {
			b.WriteString(text)
			continue
		}
		core := strings.TrimSpace(text)
		if core == "" {
			b.WriteString(text)
			continue
		}
		lead := text[:strings.Index(text, core)]
		trail := text[len(lead)+len(core):]
		if s.Code {
			core = "`" + strings.ReplaceAll(core, "`", "'") + "`"
		}
		if s.Italic {
			core = "_" + core + "_"
		}
		if s.Bold {
			core = "*" + core + "*"
		}
		b.WriteString(lead + core + trail)
	}
	return strings.TrimSpace(b.String())
}
