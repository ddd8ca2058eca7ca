package blockkit

import (
	"cmp"
	"strings"

	"github.com/slack-go/slack"

	"github.com/analyticsbot/analyticsbot/answer"
)

// PlainOptions changes how PlainTextWith renders.
type PlainOptions struct {
	// ANSI dims context lines and bolds table headers with terminal escape codes.
	ANSI bool
}

const (
	ansiDim   = "\x1b[2m"
	ansiBold  = "\x1b[1m"
	ansiReset = "\x1b[0m"
)

// PlainText renders blocks built by this package as terminal text, without
// escape codes: sections as text, tables as aligned columns, context lines
// indented, buttons as "[Export CSV] [Show SQL]". Blocks are separated by a
// blank line.
func PlainText(blocks []slack.Block) string {
	return PlainTextWith(blocks, PlainOptions{})
}

// maxPlainMrkdwn keeps PlainMrkdwn under Slack's 40,000 characters of
// message text, with room for the fence and the note.
const maxPlainMrkdwn = 39_000

// PlainMrkdwn is PlainText as a Slack message's text, for when Slack refuses
// the blocks: a code block, so tables keep their columns, with every &, <
// and > escaped again. PlainText undoes the escapes for a terminal, and
// table cells hold the warehouse's values as they are, so without this a
// value or the model's words such as "<!channel>" would reach Slack as a
// mention or a disguised link.
func PlainMrkdwn(blocks []slack.Block) string {
	text := escape(PlainText(blocks))
	if textLen(text) > maxPlainMrkdwn {
		text = text[:safeCut(text, fitPrefix(text, maxPlainMrkdwn))] + "\n… (cut)"
	}
	return fenceOpen + text + fenceClose
}

// PlainTextWith is PlainText with options, e.g. ANSI styling for a terminal.
func PlainTextWith(blocks []slack.Block, opts PlainOptions) string {
	parts := make([]string, 0, len(blocks))
	for _, b := range blocks {
		if s := plainBlock(b, opts); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n") + "\n"
}

func plainBlock(b slack.Block, opts PlainOptions) string {
	switch x := b.(type) {
	case *slack.SectionBlock:
		return plainSection(x)
	case slack.SectionBlock:
		return plainSection(&x)
	case *slack.TableBlock:
		return plainTable(x, opts)
	case *slack.DataTableBlock:
		return plainDataTable(x, opts)
	case slack.TableBlock:
		return plainTable(&x, opts)
	case *slack.ContextBlock:
		return plainContext(x, opts)
	case slack.ContextBlock:
		return plainContext(&x, opts)
	case *slack.ActionBlock:
		return plainActions(x)
	case slack.ActionBlock:
		return plainActions(&x)
	case *slack.ContextActionsBlock:
		return plainContextActions(x)
	case *slack.DataVisualizationBlock:
		if spec, ok := specOf(x); ok {
			return spec.Text()
		}
		return ""
	case *slack.HeaderBlock:
		return plainTextObject(x.Text)
	case *slack.DividerBlock, slack.DividerBlock:
		return "---"
	default:
		return ""
	}
}

func plainSection(s *slack.SectionBlock) string {
	lines := []string{}
	if t := plainTextObject(s.Text); t != "" {
		lines = append(lines, t)
	}
	for _, f := range s.Fields {
		if t := plainTextObject(f); t != "" {
			lines = append(lines, t)
		}
	}
	return strings.Join(lines, "\n")
}

// plainTextObject unescapes mrkdwn and drops the ``` fence lines our code
// blocks use; the aligned content between them stays as it is.
func plainTextObject(t *slack.TextBlockObject) string {
	if t == nil {
		return ""
	}
	if t.Type != slack.MarkdownType {
		return t.Text
	}
	var out []string
	inFence := false
	for _, line := range strings.Split(t.Text, "\n") {
		if line == "```" {
			inFence = !inFence
			continue
		}
		if !inFence {
			line = dropNoteItalics(line)
		}
		line = strings.ReplaceAll(line, "```", "")
		line = strings.ReplaceAll(line, "\u200b", "")
		out = append(out, unescape(line))
	}
	return strings.Join(out, "\n")
}

// dropNoteItalics removes the _…_ around a whole-line note such as
// "_Showing 12 of 150 rows._"; underscores inside words stay.
func dropNoteItalics(line string) string {
	if len(line) > 2 && strings.HasPrefix(line, "_") && strings.HasSuffix(line, "_") {
		return line[1 : len(line)-1]
	}
	return line
}

func plainContext(c *slack.ContextBlock, opts PlainOptions) string {
	var lines []string
	for _, e := range c.ContextElements.Elements {
		t, ok := e.(*slack.TextBlockObject)
		if !ok {
			continue
		}
		line := "  " + plainTextObject(t)
		if opts.ANSI {
			line = ansiDim + line + ansiReset
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

func plainActions(a *slack.ActionBlock) string {
	if a.Elements == nil {
		return ""
	}
	var buttons []string
	for _, e := range a.Elements.ElementSet {
		if b, ok := e.(*slack.ButtonBlockElement); ok && b.Text != nil {
			buttons = append(buttons, "["+b.Text.Text+"]")
		}
	}
	return strings.Join(buttons, " ")
}

// plainContextActions shows feedback buttons as "[👍] [👎]".
func plainContextActions(a *slack.ContextActionsBlock) string {
	if a.Elements == nil {
		return ""
	}
	var buttons []string
	for _, e := range a.Elements.ElementSet {
		if f, ok := e.(*slack.FeedbackButtonsBlockElement); ok && f.PositiveButton != nil && f.NegativeButton != nil {
			buttons = append(buttons, "["+f.PositiveButton.Text.Text+"]", "["+f.NegativeButton.Text.Text+"]")
		}
	}
	return strings.Join(buttons, " ")
}

// plainTable aligns a table block's cells in columns, honouring its
// right-aligned columns, with a dashed rule under the header row.
func plainTable(t *slack.TableBlock, opts PlainOptions) string {
	if len(t.Rows) == 0 {
		return ""
	}
	texts := make([][]string, len(t.Rows))
	var widths []int
	for r, row := range t.Rows {
		texts[r] = make([]string, len(row))
		for c, cl := range row {
			texts[r][c] = oneLine(cellText(cl))
			for len(widths) <= c {
				widths = append(widths, 0)
			}
			widths[c] = max(widths[c], textLen(texts[r][c]))
		}
	}
	right := make([]bool, len(widths))
	for i, s := range t.ColumnSettings {
		if i < len(right) {
			right[i] = s.Align == slack.ColumnAlignmentRight
		}
	}

	lines := make([]string, 0, len(texts)+1)
	for r, row := range texts {
		line := alignRow(row, widths, right)
		if r == 0 && opts.ANSI {
			line = ansiBold + line + ansiReset
		}
		lines = append(lines, line)
		if r == 0 {
			lines = append(lines, monoRule(widths))
		}
	}
	return strings.Join(lines, "\n")
}

// plainDataTable renders a data table like a table: its caption, the
// header, then every row, numbers to the right.
func plainDataTable(t *slack.DataTableBlock, opts PlainOptions) string {
	rows := make([][]slack.TableCell, 0, len(t.Rows))
	var settings []slack.ColumnSetting
	for _, row := range t.Rows {
		cells := make([]slack.TableCell, len(row))
		for i, c := range row {
			switch x := c.(type) {
			case *slack.DataTableRawNumberCell:
				text := x.Text
				if text == "" {
					text = answer.FormatFloat(x.Value)
				}
				cells[i] = slack.NewTableRawTextCell(text)
				for len(settings) <= i {
					settings = append(settings, slack.ColumnSetting{})
				}
				settings[i].Align = slack.ColumnAlignmentRight
			case *slack.DataTableRawTextCell:
				cells[i] = slack.NewTableRawTextCell(x.Text)
			case *slack.DataTableRichTextCell:
				cells[i] = slack.NewTableRichTextCell(x.Elements...)
			default:
				cells[i] = slack.NewTableRawTextCell("")
			}
		}
		rows = append(rows, cells)
	}
	body := plainTable(&slack.TableBlock{Rows: rows, ColumnSettings: settings}, opts)
	if c := strings.TrimSpace(t.Caption); c != "" && body != "" {
		return c + "\n" + body
	}
	return body
}

func alignRow(row []string, widths []int, right []bool) string {
	var b strings.Builder
	for i, w := range widths {
		s := ""
		if i < len(row) {
			s = row[i]
		}
		pad := strings.Repeat(" ", w-textLen(s))
		if i > 0 {
			b.WriteString("  ")
		}
		switch {
		case right[i]:
			b.WriteString(pad + s)
		case i < len(widths)-1:
			b.WriteString(s + pad)
		default:
			b.WriteString(s)
		}
	}
	return b.String()
}

// oneLine keeps a cell on one terminal line so the columns stay aligned.
func oneLine(s string) string { return lineBreaks.Replace(s) }

var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ")

// cellText returns the visible text of a table cell; a nil cell is empty.
func cellText(c slack.TableCell) string {
	switch x := c.(type) {
	case *slack.TableRawTextCell:
		return x.Text
	case *slack.TableRawNumberCell:
		if x.Text != "" {
			return x.Text
		}
		return answer.FormatFloat(x.Value)
	case *slack.TableRichTextCell:
		var b strings.Builder
		for _, e := range x.Elements {
			if s, ok := e.(*slack.RichTextSection); ok {
				for _, se := range s.Elements {
					switch te := se.(type) {
					case *slack.RichTextSectionTextElement:
						b.WriteString(te.Text)
					case *slack.RichTextSectionLinkElement:
						b.WriteString(cmp.Or(te.Text, te.URL))
					}
				}
			}
		}
		return b.String()
	default:
		return ""
	}
}
