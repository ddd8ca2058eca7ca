// Package blockkit turns the bot's replies into Slack Block Kit messages that
// Slack accepts: answers with their result table, errors, notices and the
// SQL behind an answer. Every builder keeps Slack's limits (50 blocks, 3,000
// characters a section, one table of 100 rows × 20 columns), so callers
// never have to. PlainText renders the same blocks for the terminal chat.
package blockkit

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/slack-go/slack"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/chart"
)

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
func Render(a answer.Answer) Message {
	hasButtons := a.QueryID != "" && textLen(a.QueryID) <= maxButtonValue && len(a.Actions) > 0

	// The table, context and buttons always fit; the answer text gets the
	// blocks left over.
	var tail []slack.Block
	if a.Chart != nil {
		if b := ChartBlock(*a.Chart); b != nil {
			tail = append(tail, b)
		}
	}
	var table slack.Block
	if a.ShowsTable() {
		table = resultBlock(&a, hasButtons)
	}
	if table != nil {
		tail = append(tail, table)
		if dt, ok := table.(*slack.DataTableBlock); ok && dt != nil {
			if note := dataTableNote(&a, hasButtons); note != "" {
				tail = append(tail, slack.NewContextBlock("", mrkdwn("_"+note+"_")))
			}
		}
	}
	if b := answerContext(a); b != nil {
		tail = append(tail, b)
	}
	if hasButtons {
		tail = append(tail, answerActions(a.QueryID, a.Actions))
	}
	tail = append(tail, askButtons("*You could ask next:*", "follow_ups", a.FollowUps)...)
	if a.Feedback && a.QueryID != "" && textLen(a.QueryID) <= maxButtonValue-len(FeedbackDown)-1 {
		tail = append(tail, FeedbackButtons(a.QueryID))
	}

	fallback := answerFallback(a)
	text := Mrkdwn(a.Text)
	if text == "" && table == nil {
		// Never send buttons or a context line on their own.
		text = fallback
	}
	blocks := textSections(text, maxBlocks-len(tail), "The answer was too long for one Slack message and was cut here.")
	return Message{Text: fallback, Blocks: append(blocks, tail...)}
}

// resultBlock shows the result as Slack's table up to 20 rows, as a
// sortable, paginated data table (captioned with the question) beyond, and
// as monospace text when it has more columns than either holds. Results
// without rows show nothing: the context line says "no rows".
func resultBlock(a *answer.Answer, hasButtons bool) slack.Block {
	r := a.Result
	if r == nil || len(r.Columns) == 0 || len(r.Rows) == 0 {
		return nil
	}
	if fitsDataTable(r) {
		return dataTable(r, a.Table(), a.Question)
	}
	if fitsNativeTable(r) {
		return nativeTable(r, a.Table())
	}
	return monoTable(r, a.Table(), a.Rows(), hasButtons)
}

// answerContext lists each assumption, then the verified badge and "N rows
// · in 1.2 s · via sql", within Slack's 10 elements per context block: the
// badge and the status line are counted first, and the assumptions that do
// not fit are joined into one "More assumptions" element.
func answerContext(a answer.Answer) *slack.ContextBlock {
	var tail []slack.MixedElement
	if v := strings.TrimSpace(a.VerifiedBy); v != "" {
		tail = append(tail, mrkdwn(VerifiedBadge(v)))
	}
	if meta := a.Status(); meta != "" {
		tail = append(tail, mrkdwn(truncateEscaped(escape(meta), maxSectionText)))
	}
	var assumptions []string
	for _, s := range a.Assumptions {
		if s = strings.TrimSpace(s); s != "" {
			assumptions = append(assumptions, s)
		}
	}
	room := maxContextElems - len(tail)
	var elems []slack.MixedElement
	for i, s := range assumptions {
		if i == room-1 && len(assumptions) > room {
			rest := escape(strings.Join(assumptions[i:], "; "))
			elems = append(elems, mrkdwn("More assumptions: "+truncateEscaped(rest, maxSectionText-30)))
			break
		}
		elems = append(elems, mrkdwn("Assumption: "+truncateEscaped(escape(s), maxSectionText-30)))
	}
	elems = append(elems, tail...)
	if len(elems) == 0 {
		return nil
	}
	return slack.NewContextBlock("", elems...)
}

// answerActions is the button row (Export CSV, Show SQL). Every button
// carries the query id, and so does the block_id, so a click names its
// query either way.
// actionSuffix separates a repeated action id from its number.
const actionSuffix = "~"

// ActionOf is the action a button's action id presses: the id without the
// number a repeated action gets in a block.
func ActionOf(actionID string) string {
	id, _, _ := strings.Cut(actionID, actionSuffix)
	return id
}

func answerActions(queryID string, buttons []answer.Action) *slack.ActionBlock {
	blockID := ActionsBlockIDPrefix + queryID
	blockID = blockID[:fitPrefix(blockID, maxBlockID)]
	elems := make([]slack.BlockElement, 0, min(len(buttons), maxActionElems))
	seen := map[string]int{}
	for _, b := range buttons[:min(len(buttons), maxActionElems)] {
		value := b.ValueOf(queryID)
		if value == "" || textLen(value) > maxButtonValue {
			continue
		}
		// Action ids must differ within a block: a repeated one (Pause
		// under each schedule of a list) gets a suffix ActionOf removes.
		id := b.ID
		if seen[b.ID]++; seen[b.ID] > 1 {
			id += actionSuffix + strconv.Itoa(seen[b.ID])
		}
		elems = append(elems, slack.NewButtonBlockElement(id, value, plain(truncate(b.Label, maxButtonText))))
	}
	return slack.NewActionBlock(blockID, elems...)
}

// ChartBlock is Slack's data_visualization block for c, cut to Slack's
// limits (chart.ForSlack: a line's last 20 points, as its title says); nil
// for a chart without data.
func ChartBlock(c chart.Spec) *slack.DataVisualizationBlock {
	if len(c.Series) == 0 || len(c.Categories) == 0 {
		return nil
	}
	c = chart.ForSlack(c)
	title := c.Title
	if title == "" {
		title = "Chart"
	}
	if c.Type == chart.Pie {
		segments := make([]slack.DataVisualizationSegment, 0, len(c.Categories))
		for i, cat := range c.Categories {
			segments = append(segments, slack.NewDataVisualizationSegment(cat, c.Series[0].Values[i]))
		}
		return slack.NewDataVisualizationBlock(title, slack.NewDataVisualizationPieChart(segments...))
	}
	axis := slack.NewDataVisualizationAxisConfig(c.Categories...).WithXLabel(c.XLabel).WithYLabel(c.YLabel)
	series := make([]slack.DataVisualizationDataSeries, 0, len(c.Series))
	for _, s := range c.Series {
		points := make([]slack.DataVisualizationDataPoint, len(s.Values))
		for i, v := range s.Values {
			points[i] = slack.NewDataVisualizationDataPoint(c.Categories[i], v)
		}
		series = append(series, slack.NewDataVisualizationDataSeries(s.Name, points...))
	}
	var payload slack.DataVisualizationChart
	switch c.Type {
	case chart.Line:
		payload = slack.NewDataVisualizationLineChart(axis, series...)
	case chart.Area:
		payload = slack.NewDataVisualizationAreaChart(axis, series...)
	default:
		payload = slack.NewDataVisualizationBarChart(axis, series...)
	}
	return slack.NewDataVisualizationBlock(title, payload)
}

// specOf reads a data_visualization block back into a chart, for the
// terminal.
func specOf(b *slack.DataVisualizationBlock) (chart.Spec, bool) {
	s := chart.Spec{Title: b.Title}
	var (
		axis   slack.DataVisualizationAxisConfig
		series []slack.DataVisualizationDataSeries
	)
	switch c := b.Chart.(type) {
	case *slack.DataVisualizationPieChart:
		s.Type = chart.Pie
		ser := chart.Series{Name: b.Title}
		for _, seg := range c.Segments {
			s.Categories = append(s.Categories, seg.Label)
			ser.Values = append(ser.Values, seg.Value)
		}
		s.Series = []chart.Series{ser}
		return s, true
	case *slack.DataVisualizationBarChart:
		s.Type, axis, series = chart.Bar, c.AxisConfig, c.Series
	case *slack.DataVisualizationLineChart:
		s.Type, axis, series = chart.Line, c.AxisConfig, c.Series
	case *slack.DataVisualizationAreaChart:
		s.Type, axis, series = chart.Area, c.AxisConfig, c.Series
	default:
		return s, false
	}
	s.Categories, s.XLabel, s.YLabel = axis.Categories, axis.XLabel, axis.YLabel
	for _, ds := range series {
		ser := chart.Series{Name: ds.Name}
		for _, p := range ds.Data {
			ser.Values = append(ser.Values, p.Value)
		}
		s.Series = append(s.Series, ser)
	}
	return s, true
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
	return answer.VerifiedBadge(by, func(by string) string {
		if slackUserID.MatchString(by) {
			return "<@" + by + ">"
		}
		return escape(truncate(by, 100))
	})
}

// answerFallback is the notification text: the answer itself when there is
// one, otherwise a summary of the result or the question.
func answerFallback(a answer.Answer) string {
	if t := Mrkdwn(a.Text); t != "" {
		return truncateEscaped(t, maxFallbackText)
	}
	if r := a.Result; r != nil && len(r.Columns) > 0 {
		return "Here is the result: " + answer.Plural(a.Rows(), "row", "rows") + "."
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
