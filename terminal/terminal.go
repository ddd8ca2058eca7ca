// Package terminal renders the bot's replies (package answer) for a
// terminal: plain text, or with ANSI bold and dim when the output is one.
// Text from the warehouse or the model never drives the terminal: its
// control characters print as U+FFFD (Inert), styled or not.
// Nothing of Slack's syntax reaches it: emphasis is bold or nothing,
// buttons are the commands that press them, questions to try are numbered.
package terminal

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/answer"
)

// Options changes how Render writes.
type Options struct {
	// ANSI styles emphasis and headers bold and side notes dim.
	ANSI bool
	// Press returns what the user types to press the action with this id
	// (":csv"), or "" when this terminal cannot press it (it is then not
	// shown).
	Press func(id, value string) string
	// Numbered says the user may type a listed question's number to ask
	// it; the list then says so.
	Numbered bool
	// Choose returns what the user runs to ask a question back's choice
	// (its question), when they cannot type a number: a one-shot command.
	Choose func(ask string) string
	// Rate is what the user types to rate an answer (":good / :bad"); ""
	// shows no rating line.
	Rate string
	// MaxRows bounds the table's rows (0: 50); the rest is counted.
	MaxRows int
}

const (
	bold  = "\x1b[1m"
	dim   = "\x1b[2m"
	reset = "\x1b[0m"

	defaultMaxRows = 50
	maxColWidth    = 40
)

// Render writes a as terminal text, ending in a newline.
func Render(a *answer.Answer, o Options) string {
	if a == nil {
		return "Something went wrong on my side while answering.\n"
	}
	var parts []string
	add := func(s string) {
		if s = strings.TrimRight(s, "\n "); s != "" {
			parts = append(parts, s)
		}
	}
	switch a.Kind {
	case answer.KindError:
		add("⚠ " + o.text(a.Text))
		add(o.questions("You could try:", a.Questions))
	case answer.KindNotice:
		add(o.text(a.Text))
		add(o.questions("Try asking:", quoted(a.Questions)))
		add(o.actions(a))
	case answer.KindQuery:
		add(o.query(a))
	case answer.KindClarify:
		add(o.text(a.Text))
		add(o.choices(a.Choices))
	default:
		add(o.text(a.Text))
		if a.Chart != nil {
			add(Inert(a.Chart.Text()))
		}
		if a.ShowsTable() {
			add(o.table(a))
		}
		add(o.context(a))
		add(o.actions(a))
		add(o.questions("You could ask next:", a.FollowUps))
	}
	if len(parts) == 0 {
		parts = append(parts, Inert(a.Plain()))
	}
	return strings.Join(parts, "\n\n") + "\n"
}

// List returns the questions Render numbered for a, in order: the ones the
// user can ask by typing their number.
func List(a *answer.Answer) []string {
	if a == nil {
		return nil
	}
	switch a.Kind {
	case answer.KindError, answer.KindNotice:
		return nonEmpty(a.Questions)
	case answer.KindAnswer:
		return nonEmpty(a.FollowUps)
	case answer.KindClarify:
		var asks []string
		for _, c := range a.Choices {
			if strings.TrimSpace(c.Label) != "" && strings.TrimSpace(c.Ask) != "" {
				asks = append(asks, strings.TrimSpace(c.Ask))
			}
		}
		return asks
	}
	return nil
}

// choices lists the choices of a question asked back, numbered when the
// user may type a number to choose (List gives the questions they ask).
func (o Options) choices(cs []answer.Choice) string {
	var lines []string
	for _, c := range cs {
		label := Inert(strings.Join(strings.Fields(c.Label), " "))
		if label == "" || strings.TrimSpace(c.Ask) == "" {
			continue
		}
		switch {
		case o.Numbered:
			lines = append(lines, "  "+strconv.Itoa(len(lines)+1)+". "+label)
		case o.Choose != nil:
			lines = append(lines, "  • "+label+": "+flat(o.Choose(strings.TrimSpace(c.Ask))))
		default:
			lines = append(lines, "  • "+label)
		}
	}
	if len(lines) > 0 && o.Numbered {
		lines = append([]string{"(type a number to choose)"}, lines...)
	}
	return strings.Join(lines, "\n")
}

func (o Options) style(code, s string) string {
	if !o.ANSI || s == "" {
		return s
	}
	return code + s + reset
}

// text writes prose: bold spans bold under ANSI, code in quotes, links as
// terminal hyperlinks under ANSI (their label elsewhere); italics read
// fine as they are.
func (o Options) text(t answer.Text) string {
	var b strings.Builder
	for _, s := range t {
		switch {
		case s.Link != "":
			b.WriteString(o.link(s.Link, Inert(s.Text)))
		case s.Code:
			b.WriteString("‘" + Inert(s.Text) + "’")
		case s.Bold:
			b.WriteString(o.style(bold, Inert(s.Text)))
		default:
			b.WriteString(Inert(s.Text))
		}
	}
	return strings.TrimSpace(b.String())
}

// link is text linking to u: an OSC 8 hyperlink under ANSI (terminals
// without them show the text), the text alone otherwise or when u holds
// a character that could end the hyperlink's sequence.
func (o Options) link(u, text string) string {
	if !o.ANSI || needsInert(u) || strings.ContainsAny(u, "\n\t") {
		return text
	}
	return "\x1b]8;;" + u + "\x1b\\" + text + "\x1b]8;;\x1b\\"
}

func (o Options) questions(title string, qs []string) string {
	qs = nonEmpty(qs)
	if len(qs) == 0 {
		return ""
	}
	if o.Numbered {
		title += " (type a number to ask it)"
	}
	lines := []string{title}
	for i, q := range qs {
		q = flat(q)
		if o.Numbered {
			lines = append(lines, "  "+strconv.Itoa(i+1)+". "+q)
		} else {
			lines = append(lines, "  • "+q)
		}
	}
	return strings.Join(lines, "\n")
}

func (o Options) context(a *answer.Answer) string {
	var lines []string
	for _, s := range a.Assumptions {
		if s = strings.TrimSpace(s); s != "" {
			lines = append(lines, "  Assumption: "+flat(s))
		}
	}
	if v := strings.TrimSpace(a.VerifiedBy); v != "" {
		lines = append(lines, "  "+flat(answer.VerifiedBadge(v, func(s string) string { return s })))
	}
	if st := a.Status(); st != "" {
		lines = append(lines, "  "+st)
	}
	for i, l := range lines {
		lines[i] = o.style(dim, l)
	}
	return strings.Join(lines, "\n")
}

func (o Options) actions(a *answer.Answer) string {
	if o.Press == nil {
		return ""
	}
	var hints []string
	for _, act := range a.Actions {
		if act.ValueOf(a.QueryID) == "" {
			continue
		}
		if p := o.Press(act.ID, act.ValueOf(a.QueryID)); p != "" {
			hints = append(hints, flat(act.Label+": "+p))
		}
	}
	if a.Feedback && o.Rate != "" {
		hints = append(hints, "Rate it: "+o.Rate)
	}
	sep := " · "
	if width(strings.Join(hints, sep)) > 80 {
		sep = "\n"
	}
	return o.style(dim, strings.Join(hints, sep))
}

func (o Options) query(a *answer.Answer) string {
	lines := []string{o.text(a.Text)}
	q := a.Query
	if q == nil || strings.TrimSpace(q.Text) == "" {
		return lines[0] + "\n\nNo query was run for this answer."
	}
	lines = append(lines, "", indent(Inert(strings.TrimSpace(q.Text))))
	if q.Language != "SQL" {
		by := flat(q.SQLBy)
		if by == "" {
			by = "the backend"
		}
		if sql := strings.TrimSpace(q.SQL); sql != "" {
			lines = append(lines, "", "SQL that "+by+" runs for it:", "", indent(Inert(sql)))
		} else {
			lines = append(lines, "", capitalize(by)+" did not return the SQL it runs for this query.")
		}
	}
	return strings.Join(lines, "\n")
}

// table aligns the result's columns, numbers to the right, and counts the
// rows left out.
func (o Options) table(a *answer.Answer) string {
	r := a.Result
	tb := a.Table()
	limit := o.MaxRows
	if limit <= 0 {
		limit = defaultMaxRows
	}
	rows := r.Rows[:min(len(r.Rows), limit)]
	cells := make([][]string, len(rows))
	links := make([][]string, len(rows))
	widths := make([]int, len(r.Columns))
	headers := make([]string, len(r.Columns))
	for i := range r.Columns {
		headers[i] = fit(flat(tb.Header(i)), maxColWidth)
		widths[i] = width(headers[i])
	}
	for j, row := range rows {
		cells[j] = make([]string, len(r.Columns))
		links[j] = make([]string, len(r.Columns))
		for i := range r.Columns {
			c := fit(flat(tb.Cell(row, i)), maxColWidth)
			cells[j][i], links[j][i] = c, tb.Link(row, i)
			widths[i] = max(widths[i], width(c))
		}
	}
	line := func(texts, urls []string, header bool) string {
		out := make([]string, len(texts))
		for i, t := range texts {
			pad := strings.Repeat(" ", widths[i]-width(t))
			if urls != nil && urls[i] != "" {
				t = o.link(urls[i], t)
			}
			if tb.Numeric(i) && !header {
				out[i] = pad + t
			} else {
				out[i] = t + pad
			}
		}
		return strings.TrimRight(strings.Join(out, "  "), " ")
	}
	rules := make([]string, len(r.Columns))
	for i := range rules {
		rules[i] = strings.Repeat("-", widths[i])
	}
	lines := []string{o.style(bold, line(headers, nil, true)), line(rules, nil, true)}
	for j, c := range cells {
		lines = append(lines, line(c, links[j], false))
	}
	if more := a.Rows() - len(rows); more > 0 {
		note := "… " + answer.Plural(more, "more row", "more rows")
		if a.QueryID != "" && o.Press != nil {
			if p := o.Press(answer.ExportAction, a.QueryID); p != "" {
				note += " (" + p + " exports every row)"
			}
		}
		lines = append(lines, o.style(dim, note))
	}
	return strings.Join(lines, "\n")
}

func quoted(qs []string) []string {
	out := make([]string, 0, len(qs))
	for _, q := range nonEmpty(qs) {
		out = append(out, "“"+flat(q)+"”")
	}
	return out
}

func nonEmpty(qs []string) []string {
	var out []string
	for _, q := range qs {
		if q = strings.TrimSpace(q); q != "" {
			out = append(out, q)
		}
	}
	return out
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return strings.ToUpper(string(r)) + s[size:]
}
