package nodes

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/chart"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/prompts"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// previewRows, previewCellChars and previewChars bound what the interpreter
// sees: enough to describe the answer, never the whole result. A cell or
// column name is cut at previewCellChars characters, and rows stop once the
// preview holds previewChars bytes; the header and the first row are shown
// whatever their length, each cut at previewChars bytes.
const (
	previewRows      = 20
	previewCellChars = 200
	previewChars     = 4000
)

type interpretReply struct {
	Answer string `json:"answer"`
	// Chart is the model's proposal for a chart, if any (package chart
	// decides whether it fits).
	Chart chart.Hint `json:"chart"`
	// FollowUps are questions the user may want to ask next.
	FollowUps []string `json:"follow_ups"`
}

// maxFollowUps and maxFollowUpLen bound the follow-ups an answer offers.
const (
	maxFollowUps   = 3
	maxFollowUpLen = 200
)

// followUps keeps the model's suggestions worth a button: one line each,
// not too long, not the question just answered, no repeats, at most
// maxFollowUps.
func followUps(qs []string, asked string) []string {
	var out []string
	seen := map[string]bool{strings.ToLower(strings.TrimSpace(asked)): true}
	for _, q := range qs {
		q = strings.Join(strings.Fields(q), " ")
		key := strings.ToLower(q)
		if q == "" || utf8.RuneCountInString(q) > maxFollowUpLen || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, q)
		if len(out) == maxFollowUps {
			break
		}
	}
	return out
}

// Interpret asks the model for a short answer written from the result. An
// answer that quotes numbers the result does not hold is replaced by a
// plain summary: a wrong number is worse than a dull sentence.
func (n *Nodes) Interpret(ctx context.Context, s *State) error {
	reply, err := n.complete(ctx, s, llm.StepInterpret, prompts.Interpret{
		Question:  s.Question(),
		Query:     s.Query.Text,
		Columns:   promptColumns(s.ColumnNames()),
		RowCount:  s.Result.RowCount,
		Truncated: s.Result.Truncated,
		Rows:      preview(s.Result),
	})
	if err != nil {
		s.note("interpreter failed, using a plain summary: " + err.Error())
		s.Answer = n.plainSummary(ctx, s.Result)
		return nil
	}
	answer := strings.TrimSpace(reply)
	var r interpretReply
	if err := llm.DecodeJSON(reply, &r); err == nil {
		answer = strings.TrimSpace(r.Answer)
		s.ChartHint = r.Chart
		s.FollowUps = followUps(r.FollowUps, s.Question())
	}
	if answer == "" {
		s.note("interpreter reply was empty")
		s.Answer = n.plainSummary(ctx, s.Result)
		return nil
	}
	// A number the model wrote only in a comment of its query ("-- about
	// 9,900,000") is no number the query used.
	query := s.Query.Text
	if d := n.Warehouse.Dialect(); d.Uncommented != nil && s.Query.Backend == n.Warehouse.Name() {
		query = d.Uncommented(query)
	}
	if bad := inventedNumbers(answer, s.Result, s.Question()+"\n"+query); len(bad) > 0 {
		s.note(fmt.Sprintf("interpreter answer quoted numbers not in the result %v: %.200q", bad, answer))
		s.Answer = n.plainSummary(ctx, s.Result)
		return nil
	}
	s.Answer = s.capText("answer", answer, maxAnswerChars)
	return nil
}

// preview renders the first rows as tab-separated text with a header, each
// value on one line (prompts.Data), so that what the data holds starts no
// line of the prompt: a cell "Indie\n\nQuestion: …" is shown as
// "Indie\\n\\nQuestion: …".
func preview(r warehouse.Result) string {
	if r.RowCount == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(previewLine(len(r.Columns), func(i int) string { return r.Columns[i].Name }))
	for i, row := range r.Rows {
		if i == previewRows {
			fmt.Fprintf(&b, "\n… %d more rows", r.RowCount-i)
			break
		}
		line := previewLine(len(row), func(j int) string { return cellText(row[j]) })
		if i > 0 && b.Len()+1+len(line) > previewChars {
			fmt.Fprintf(&b, "\n… %d more rows", r.RowCount-i)
			break
		}
		b.WriteByte('\n')
		b.WriteString(line)
	}
	return b.String()
}

// previewLine is one line of the preview: n values, tab-separated, each on
// one line and cut at previewCellChars; the line is cut at previewChars
// bytes, as a wide row of long values would overflow it.
func previewLine(n int, value func(int) string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte('\t')
		}
		b.WriteString(prompts.Data(value(i), previewCellChars))
		if b.Len() > previewChars {
			return truncateBytes(b.String(), previewChars)
		}
	}
	return b.String()
}

// maxPromptColumns is the most column names a prompt lists.
const maxPromptColumns = 100

// promptColumns are a result's column names as a prompt lists them: each
// on one line and cut as the preview's cells are (a column named
// "x\n\nRules:" starts no line), at most maxPromptColumns of them.
func promptColumns(names []string) []string {
	out := make([]string, 0, min(len(names), maxPromptColumns+1))
	for i, name := range names {
		if i == maxPromptColumns {
			out = append(out, fmt.Sprintf("… %d more", len(names)-i))
			break
		}
		out = append(out, prompts.Data(name, previewCellChars))
	}
	return out
}

// truncateBytes cuts s to at most n bytes, on a rune boundary, with "…".
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// cellText renders a JSON-safe value for people and prompts: as in a CSV
// export, but NULL is spelled out.
func cellText(v any) string {
	if v == nil {
		return "NULL"
	}
	return warehouse.Text(v)
}

// plainSummary answers without the model, from the result alone: a single
// value with its column's label ("Avg price (GBP): *£74.90*."),
// otherwise how many rows there are.
func (n *Nodes) plainSummary(ctx context.Context, r warehouse.Result) string {
	switch {
	case r.RowCount == 0:
		return "The query returned no rows."
	case r.RowCount == 1 && len(r.Columns) == 1:
		name := answer.Label(r.Columns[0].Name)
		// With its unit, as the answer's table shows it ("£74.90").
		value := (&answer.Answer{Result: &r, Units: n.units(ctx, r)}).Table().Cell(r.Rows[0], 0)
		if name == "" || name == "?column?" {
			return fmt.Sprintf("The answer is *%s*.", value)
		}
		return fmt.Sprintf("%s: *%s*.", name, value)
	case r.RowCount == 1:
		return "Here is the one row."
	case r.Truncated:
		return fmt.Sprintf("Here are the first *%s* rows.", answer.Thousands(fmt.Sprint(r.RowCount)))
	default:
		return fmt.Sprintf("Here are the *%s* rows.", answer.Thousands(fmt.Sprint(r.RowCount)))
	}
}
