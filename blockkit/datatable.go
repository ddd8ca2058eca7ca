package blockkit

import (
	"strconv"
	"strings"

	"github.com/slack-go/slack"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Slack's data_table block: sortable, paginated, up to 100 data rows under
// a raw_text header, 20 columns, a caption, 1–100 rows a page.
const (
	maxDataTableRows    = 100
	maxDataTableColumns = 20
	maxCaption          = 150 // our own cap: the caption names the table
	dataTablePageSize   = 10
	// nativeTableRows is where the simple table stops: longer results get
	// the data table, which pages them instead of making a wall of rows.
	nativeTableRows = 20
)

// fitsDataTable reports whether the result's columns fit a data table (its
// rows are cut to maxDataTableRows, and said so).
func fitsDataTable(r *warehouse.Result) bool {
	return len(r.Columns) <= maxDataTableColumns && len(r.Rows) > nativeTableRows
}

// dataTable builds Slack's data_table block for the first 100 rows: number
// cells as raw_number, so sorting by them is numeric, with their formatted
// text (separators, units); everything else raw_text.
func dataTable(r *warehouse.Result, tb *answer.Table, caption string) *slack.DataTableBlock {
	caption = strings.TrimSpace(oneLine(caption))
	if caption == "" {
		caption = "Result"
	}
	t := slack.NewDataTableBlock(truncate(caption, maxCaption))
	t.PageSize = dataTablePageSize
	header := make([]slack.DataTableCell, len(r.Columns))
	for i := range r.Columns {
		header[i] = slack.NewDataTableRawTextCell(truncate(tb.Header(i), maxTableCellText))
	}
	t.Rows = append(t.Rows, header)
	for _, row := range r.Rows[:min(len(r.Rows), maxDataTableRows)] {
		cells := make([]slack.DataTableCell, len(r.Columns))
		for i := range r.Columns {
			text := truncate(tb.Cell(row, i), maxTableCellText)
			if u := tb.Link(row, i); u != "" && textLen(u) <= maxLinkURL {
				cells[i] = slack.NewDataTableRichTextCell(linkSection(u, text))
				continue
			}
			if v, ok := tb.Number(row, i); ok {
				c := slack.NewDataTableRawNumberCell(v)
				c.Text = text
				cells[i] = c
				continue
			}
			cells[i] = slack.NewDataTableRawTextCell(text)
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// dataTableNote says what a data table leaves out: rows past its 100, and
// where all of them are.
func dataTableNote(a *answer.Answer, hasButtons bool) string {
	total, r := a.Rows(), a.Result
	if total <= maxDataTableRows {
		return ""
	}
	note := "Showing " + answer.Thousands(strconv.Itoa(maxDataTableRows)) + " of " + answer.Plural(total, "row", "rows") + "."
	switch {
	case hasButtons && r.Truncated:
		// A cut result's export runs the query again for every row.
		note += " Export CSV for every row of the query."
	case hasButtons:
		note += " Export CSV for all " + answer.Plural(total, "row", "rows") + "."
	}
	return note
}
