package web

import (
	"strconv"
	"strings"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/bot"
)

// replyView is a reply as the page draws it: the answer model with what
// needs the server already worked out (cells with separators, units and
// links, the status line, the verified badge), so the page, Slack and the
// terminal say the same numbers. It is the `reply` of message_end, of
// /api/threads and of /api/actions.
type replyView struct {
	Kind answer.Kind `json:"kind"`
	// Question is the question answered, as the bot understood it.
	Question string `json:"question,omitempty"`
	// Text is the prose as spans: {text, bold, italic, code, link}.
	Text answer.Text `json:"text,omitempty"`
	// Questions are questions to try instead (errors, notices).
	Questions []string    `json:"questions,omitempty"`
	Chart     *chartView  `json:"chart,omitempty"`
	Table     *tableView  `json:"table,omitempty"`
	Query     *queryView  `json:"query,omitempty"`
	Notes     []string    `json:"notes,omitempty"`
	Assume    []string    `json:"assumptions,omitempty"`
	Verified  string      `json:"verified,omitempty"`
	Status    string      `json:"status,omitempty"`
	QueryID   string      `json:"query_id,omitempty"`
	Actions   []actionRef `json:"actions,omitempty"`
	FollowUps []string    `json:"follow_ups,omitempty"`
	// Choices are the options of a question asked back (kind "clarify"):
	// each shows its label and asks its question in the thread.
	Choices []answer.Choice `json:"choices,omitempty"`
	// Feedback asks for 👍/👎 (sent with action "feedback" and the value
	// "feedback_up:<query_id>" or "feedback_down:<query_id>").
	Feedback bool `json:"feedback,omitempty"`
}

// actionRef is a button: POST /api/actions with its action and its value
// (else the reply's query id).
type actionRef struct {
	Action string `json:"action"`
	Label  string `json:"label"`
	Value  string `json:"value,omitempty"`
}

// tableView is the result as a table.
type tableView struct {
	Columns []columnView `json:"columns"`
	Rows    [][]cellView `json:"rows"`
}

type columnView struct {
	Name string `json:"name"`
	// Label is the heading people read ("Avg price (GBP)"); the page
	// shows Name on hover, as the CSV does.
	Label   string `json:"label,omitempty"`
	Numeric bool   `json:"numeric,omitempty"`
}

// cellView is one cell: its text as people read it, the number it holds
// (for sorting) and what it links to.
type cellView struct {
	Text   string   `json:"text"`
	Number *float64 `json:"number,omitempty"`
	Link   string   `json:"link,omitempty"`
}

// chartView is the chart spec (package chart) in JSON.
type chartView struct {
	Type       string        `json:"type"`
	Title      string        `json:"title"`
	Categories []string      `json:"categories"`
	Series     []seriesValue `json:"series"`
	XLabel     string        `json:"x_label,omitempty"`
	YLabel     string        `json:"y_label,omitempty"`
	// Partial is the first or last category the data covers only in part.
	Partial string `json:"partial,omitempty"`
}

type seriesValue struct {
	Name   string    `json:"name"`
	Values []float64 `json:"values"`
}

// queryView is what Show SQL shows: the query laid out for reading and,
// for a query that is not SQL, the SQL its backend runs for it.
type queryView struct {
	Language string `json:"language"`
	Text     string `json:"text"`
	SQL      string `json:"sql,omitempty"`
	SQLBy    string `json:"sql_by,omitempty"`
}

// maxWebRows bounds the rows a reply sends the page: the table pages them,
// Export CSV has them all.
const maxWebRows = 1000

// viewOf is a reply as the page draws it; nil when it has no answer. A
// file (a CSV asked for in words: "export that as CSV") cannot travel in
// the stream: the reply gets a button that downloads it.
func viewOf(r bot.Reply) *replyView {
	if r.Answer == nil {
		return nil
	}
	v := newView(r.Answer)
	if r.File != nil && r.QueryID != "" {
		v.QueryID = r.QueryID
		v.Actions = append(v.Actions, actionRef{Action: answer.ExportAction, Label: "Download CSV"})
	}
	return v
}

// newView turns an answer into what the page draws.
func newView(a *answer.Answer) *replyView {
	v := &replyView{
		Kind: a.Kind, Question: a.Question, Text: a.Text, Questions: nonEmpty(a.Questions),
		QueryID: a.QueryID, FollowUps: nonEmpty(a.FollowUps), Feedback: a.Feedback && a.QueryID != "",
		Assume: nonEmpty(a.Assumptions), Status: a.Status(),
	}
	if v.Kind == "" {
		v.Kind = answer.KindAnswer
	}
	for _, c := range a.Choices {
		if c.Label = strings.Join(strings.Fields(c.Label), " "); c.Label != "" && strings.TrimSpace(c.Ask) != "" {
			v.Choices = append(v.Choices, c)
		}
	}
	for _, b := range a.Actions {
		if b.ValueOf(a.QueryID) != "" {
			v.Actions = append(v.Actions, actionRef{Action: b.ID, Label: b.Label, Value: b.Value})
		}
	}
	if by := strings.TrimSpace(a.VerifiedBy); by != "" {
		v.Verified = answer.VerifiedBadge(by, func(s string) string { return s })
	}
	if c := a.Chart; c != nil && len(c.Series) > 0 && len(c.Categories) > 0 {
		cv := &chartView{Type: string(c.Type), Title: c.Title, Categories: c.Categories, XLabel: c.XLabel, YLabel: c.YLabel, Partial: c.Partial}
		for _, s := range c.Series {
			cv.Series = append(cv.Series, seriesValue{Name: s.Name, Values: s.Values})
		}
		v.Chart = cv
	}
	if a.Kind == answer.KindQuery && a.Query != nil {
		v.Query = &queryView{Language: a.Query.Language, Text: a.Query.Text, SQL: a.Query.SQL, SQLBy: a.Query.SQLBy}
	}
	if a.ShowsTable() {
		v.Table = tableOf(a)
		if note := rowsNote(a, len(v.Table.Rows)); note != "" {
			v.Notes = append(v.Notes, note)
		}
	}
	if len(v.Text) == 0 && v.Table == nil && v.Query == nil {
		v.Text = answer.Plain(a.Plain())
	}
	return v
}

// tableOf formats the answer's result, up to maxWebRows rows.
func tableOf(a *answer.Answer) *tableView {
	r, tb := a.Result, a.Table()
	t := &tableView{Columns: make([]columnView, len(r.Columns))}
	for i := range r.Columns {
		t.Columns[i] = columnView{Name: tb.Header(i), Label: answer.Label(tb.Header(i)), Numeric: tb.Numeric(i)}
	}
	rows := r.Rows[:min(len(r.Rows), maxWebRows)]
	t.Rows = make([][]cellView, len(rows))
	for j, row := range rows {
		cells := make([]cellView, len(r.Columns))
		for i := range r.Columns {
			cells[i] = cellView{Text: tb.Cell(row, i), Link: tb.Link(row, i)}
			if f, ok := tb.Number(row, i); ok {
				cells[i].Number = &f
			}
		}
		t.Rows[j] = cells
	}
	return t
}

// rowsNote says, when the table holds fewer rows than the result had
// (a long result, or a reloaded answer that kept 100), how many it shows
// and where the rest are. A result the database cut says so in Status.
func rowsNote(a *answer.Answer, shown int) string {
	total := a.Rows()
	if shown >= total {
		return ""
	}
	note := "Showing the first " + answer.Plural(shown, "row", "rows") + " of " + answer.Thousands(strconv.Itoa(total)) + "."
	if !hasAction(a, answer.ExportAction) || a.QueryID == "" {
		return note
	}
	if a.Result.Truncated {
		return note + " Export CSV for every row of the query."
	}
	return note + " Export CSV for all " + answer.Plural(total, "row", "rows") + "."
}

func hasAction(a *answer.Answer, id string) bool {
	for _, b := range a.Actions {
		if b.ID == id {
			return true
		}
	}
	return false
}

// nonEmpty is items without blank ones, trimmed; nil when none is left.
func nonEmpty(items []string) []string {
	var out []string
	for _, s := range items {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// storedView is a saved turn's reply as the page draws it: the stored
// answer, or for a turn saved before replies were kept (a nil a), its
// text read from Slack's mrkdwn.
func storedView(a *answer.Answer, text string) *replyView {
	if a == nil {
		return &replyView{Kind: answer.KindAnswer, Text: answer.ParseText(text).Exposed(nil)}
	}
	return newView(a)
}
