package blockkit

import (
	"strconv"
	"strings"

	"github.com/slack-go/slack"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Monospace fallback sizing.
const (
	maxMonoColWidth = 30  // characters of one column before we cut the value
	maxMonoLine     = 400 // characters of one line; wider results drop columns, so some rows still fit
	monoNoteReserve = 300 // room kept in the section for the "showing N of M" note
)

// fitsNativeTable reports whether Slack's table block can hold the result:
// at most 20 columns, and 100 rows counting our header row.
func fitsNativeTable(r *warehouse.Result) bool {
	return len(r.Columns) <= maxTableColumns && len(r.Rows)+1 <= maxTableRows
}

// nativeTable builds Slack's table block: a bold header row, raw_text cells
// (the cell type Slack documents for input; raw_number was rejected by Slack
// in the past), numbers right-aligned, long text columns wrapped.
func nativeTable(r *warehouse.Result, tb *answer.Table) *slack.TableBlock {
	numeric := numericColumns(tb, len(r.Columns))
	t := slack.NewTableBlock("")

	header := make([]slack.TableCell, len(r.Columns))
	for i := range r.Columns {
		header[i] = slack.NewTableRichTextCell(slack.NewRichTextSection(
			slack.NewRichTextSectionTextElement(truncate(tb.Header(i), maxTableCellText),
				&slack.RichTextSectionTextStyle{Bold: true})))
	}
	t.AddRow(header...)

	long := make([]bool, len(r.Columns))
	for _, row := range r.Rows {
		cells := make([]slack.TableCell, len(r.Columns))
		for i := range r.Columns {
			text := truncate(tb.Cell(row, i), maxTableCellText)
			long[i] = long[i] || textLen(text) > 40
			if u := tb.Link(row, i); u != "" && textLen(u) <= maxLinkURL {
				cells[i] = slack.NewTableRichTextCell(linkSection(u, text))
				continue
			}
			cells[i] = slack.NewTableRawTextCell(text)
		}
		t.AddRow(cells...)
	}

	settings := make([]slack.ColumnSetting, len(r.Columns))
	for i := range settings {
		settings[i] = slack.ColumnSetting{Align: slack.ColumnAlignmentLeft, IsWrapped: long[i] && !numeric[i]}
		if numeric[i] {
			settings[i].Align = slack.ColumnAlignmentRight
		}
	}
	return t.WithColumnSettings(settings...)
}

// maxLinkURL is our cap on a link's address: Slack's own for URLs in
// blocks is 3,000 characters.
const maxLinkURL = 3000

// linkSection is a rich text section holding one link.
func linkSection(u, text string) *slack.RichTextSection {
	return slack.NewRichTextSection(slack.NewRichTextSectionLinkElement(u, text, nil))
}

// monoTable renders the result as an aligned ``` block for results Slack's
// table cannot hold: as many leading rows (and columns) as fit in one
// section, then a line saying what was left out. Cells are written as tb
// writes them (the answer's units), as in the other tables.
func monoTable(r *warehouse.Result, tb *answer.Table, total int, hasButtons bool) *slack.SectionBlock {
	numeric := numericColumns(tb, len(r.Columns))
	cols, widths := monoColumns(r, tb)

	lines := []string{monoLine(headerTexts(tb, cols), widths, nil)}
	lines = append(lines, monoRule(widths))
	used := textLen(fenceOpen) + textLen(fenceClose) + textLen(lines[0]) + textLen(lines[1]) + 2
	shown := 0
	for _, row := range r.Rows {
		texts := make([]string, cols)
		for i := range texts {
			texts[i] = tb.Cell(row, i)
		}
		line := monoLine(texts, widths, numeric)
		if used+textLen(line)+1 > maxSectionText-monoNoteReserve {
			break
		}
		lines = append(lines, line)
		used += textLen(line) + 1
		shown++
	}

	text := fenceOpen + strings.Join(lines, "\n") + fenceClose
	if note := monoNote(r, total, shown, cols, hasButtons); note != "" {
		text += "\n_" + note + "_"
	}
	return slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, text, false, false), nil, nil)
}

// monoColumns picks how many leading columns fit in maxMonoLine and their widths.
func monoColumns(r *warehouse.Result, tb *answer.Table) (int, []int) {
	var widths []int
	total := 0
	for i := range r.Columns {
		w := textLen(monoCell(tb.Header(i)))
		for _, row := range r.Rows {
			w = max(w, textLen(monoCell(tb.Cell(row, i))))
		}
		w = min(w, maxMonoColWidth)
		if i > 0 && total+2+w > maxMonoLine {
			break
		}
		if i > 0 {
			total += 2
		}
		total += w
		widths = append(widths, w)
	}
	return len(widths), widths
}

func headerTexts(tb *answer.Table, cols int) []string {
	out := make([]string, cols)
	for i := range out {
		out[i] = tb.Header(i)
	}
	return out
}

// monoCell makes a value safe for one line of a code block: no line breaks,
// and no ``` that would end the block early.
func monoCell(s string) string {
	return strings.ReplaceAll(oneLine(s), "```", "``\u200b`")
}

// monoLine pads each value to its column width (numbers to the right) and
// escapes it. Padding is computed before escaping because Slack shows each
// entity as one character.
func monoLine(texts []string, widths []int, numeric []bool) string {
	var b strings.Builder
	for i, t := range texts {
		t = truncate(monoCell(t), widths[i])
		pad := strings.Repeat(" ", widths[i]-textLen(t))
		if i > 0 {
			b.WriteString("  ")
		}
		if numeric != nil && numeric[i] {
			b.WriteString(pad + escape(t))
		} else if i < len(texts)-1 {
			b.WriteString(escape(t) + pad)
		} else {
			b.WriteString(escape(t))
		}
	}
	return b.String()
}

func monoRule(widths []int) string {
	parts := make([]string, len(widths))
	for i, w := range widths {
		parts[i] = strings.Repeat("-", w)
	}
	return strings.Join(parts, "  ")
}

// monoNote says truthfully what the fallback left out. The export serves the
// cached rows, all len(r.Rows) of them, unless the result was cut: then it
// runs the query again for every row (up to EXPORT_MAX_ROWS, which its
// reply states).
func monoNote(r *warehouse.Result, total, shown, cols int, hasButtons bool) string {
	var parts []string
	if shown < total {
		parts = append(parts, "Showing "+answer.Thousands(strconv.Itoa(shown))+" of "+answer.Plural(total, "row", "rows")+".")
	}
	if cols < len(r.Columns) {
		parts = append(parts, "Showing "+answer.Thousands(strconv.Itoa(cols))+" of "+answer.Thousands(strconv.Itoa(len(r.Columns)))+" columns.")
	}
	switch {
	case r.Truncated && r.LimitedBy == "bytes":
		parts = append(parts, "Result cut to "+answer.Plural(total, "row", "rows")+": it was larger than the size limit.")
	case r.Truncated:
		parts = append(parts, "Result limited to "+answer.Plural(total, "row", "rows")+".")
	}
	if hasButtons && len(parts) > 0 {
		// A cut result's export runs the query again for every row.
		what := "all " + answer.Plural(total, "row", "rows")
		if r.Truncated {
			what = "every row of the query"
		}
		if cols < len(r.Columns) {
			what += " and " + answer.Plural(len(r.Columns), "column", "columns")
		}
		parts = append(parts, "Export CSV for "+what+".")
	}
	return strings.Join(parts, " ")
}
