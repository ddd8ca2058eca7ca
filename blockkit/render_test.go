package blockkit

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

func gridResult(rows, cols int) *warehouse.Result {
	r := &warehouse.Result{Columns: make([]warehouse.Column, cols), Rows: make([][]any, rows), RowCount: rows}
	for c := range r.Columns {
		r.Columns[c] = warehouse.Column{Name: fmt.Sprintf("c%d", c), Kind: warehouse.KindNumber, Type: "int8"}
	}
	for i := range r.Rows {
		r.Rows[i] = make([]any, cols)
		for c := range r.Rows[i] {
			r.Rows[i][c] = int64(i * c)
		}
	}
	return r
}

func TestRenderChoosesTheTableBlock(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		rows, cols int
		want       string
	}{
		{name: "1x2", rows: 1, cols: 2, want: "table"},
		{name: "20 rows", rows: 20, cols: 3, want: "table"},
		{name: "21 rows are paged", rows: 21, cols: 3, want: "data_table"},
		{name: "100 rows", rows: 100, cols: 3, want: "data_table"},
		{name: "20 columns", rows: 5, cols: 20, want: "table"},
		{name: "20 columns, 50 rows", rows: 50, cols: 20, want: "data_table"},
		{name: "21 columns", rows: 5, cols: 21, want: "mono"},
		{name: "21 columns, 50 rows", rows: 50, cols: 21, want: "mono"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := Render(answer.Answer{Text: answer.ParseText("x"), Result: gridResult(tc.rows, tc.cols), Actions: testButtons, QueryID: "q"})
			switch b := m.Blocks[1].(type) {
			case *slack.TableBlock:
				assert.Equal(t, "table", tc.want)
				require.Len(t, b.Rows, tc.rows+1, "header plus every row")
				assert.Equal(t, "c0", cellText(b.Rows[0][0]), "header cell")
				assert.Equal(t, slack.ColumnAlignmentRight, b.ColumnSettings[0].Align, "int8 column should be right-aligned")
			case *slack.DataTableBlock:
				assert.Equal(t, "data_table", tc.want)
				require.Len(t, b.Rows, tc.rows+1, "header plus every row")
				assert.Equal(t, 10, b.PageSize)
				assert.Equal(t, &slack.DataTableRawTextCell{Type: slack.DataTableCellRawText, Text: "c1"}, b.Rows[0][1], "header cell")
				assert.Equal(t, &slack.DataTableRawNumberCell{Type: slack.DataTableCellRawNumber, Value: 4, Text: "4"}, b.Rows[3][2],
					"numbers sort as numbers")
			case *slack.SectionBlock:
				assert.Equal(t, "mono", tc.want)
				assert.Contains(t, b.Text.Text, "```\nc0", "want a code block starting with the header")
			default:
				t.Fatalf("got block %T", b)
			}
		})
	}
}

// A data table says what it leaves out past 100 rows, with the
// question as its caption and numbers formatted as in every table.
func TestRenderDataTable(t *testing.T) {
	t.Parallel()
	r := &warehouse.Result{Columns: []warehouse.Column{{Name: "name", Kind: warehouse.KindText}, {Name: "price_usd", Kind: warehouse.KindNumber}}}
	for i := range 150 {
		r.Rows = append(r.Rows, []any{fmt.Sprintf("game %d", i), json.Number(fmt.Sprintf("%d.50", 1000+i))})
	}
	r.Rows[3][1] = nil
	m := Render(answer.Answer{Question: "Prices?", Text: answer.ParseText("x"), Result: r, Actions: testButtons, QueryID: "q"})
	dt, ok := m.Blocks[1].(*slack.DataTableBlock)
	require.True(t, ok, "got %T", m.Blocks[1])
	assert.Equal(t, "Prices?", dt.Caption)
	require.Len(t, dt.Rows, 101, "header and the first 100 rows")
	assert.Equal(t, &slack.DataTableRawNumberCell{Type: slack.DataTableCellRawNumber, Value: 1000.5, Text: "$1,000.50"}, dt.Rows[1][1])
	assert.Equal(t, &slack.DataTableRawTextCell{Type: slack.DataTableCellRawText, Text: "—"}, dt.Rows[4][1], "NULL stays text")
	note := m.Blocks[2].(*slack.ContextBlock).ContextElements.Elements[0].(*slack.TextBlockObject).Text
	assert.Equal(t, "_Showing 100 of 150 rows. Export CSV for all 150 rows._", note)
	assert.Contains(t, PlainText(m.Blocks), "game 99", "the plain rendering shows the data table")

	// A stored reply keeps 100 rows and the count: re-rendered, it says the same.
	kept := *r
	kept.Rows = r.Rows[:100]
	again := Render(answer.Answer{Question: "Prices?", Text: answer.ParseText("x"), Result: &kept, TotalRows: 150, Actions: testButtons, QueryID: "q"})
	assert.Equal(t, m.Blocks, again.Blocks, "the same message from the stored reply")
}

func TestRenderSaysWhenResultWasLimited(t *testing.T) {
	t.Parallel()
	r := dailyResult(50)
	r.Truncated = true
	m := Render(answer.Answer{Text: answer.ParseText("x"), Result: r, Actions: testButtons, QueryID: "q"})
	ctx := m.Blocks[2].(*slack.ContextBlock)
	last := ctx.ContextElements.Elements[len(ctx.ContextElements.Elements)-1].(*slack.TextBlockObject)
	assert.Equal(t, "result limited to 50 rows; Export CSV has every row", last.Text,
		"the export runs the query again: it has more than the 50 rows shown")

	big := dailyResult(1000)
	big.Truncated = true
	m = Render(answer.Answer{Text: answer.ParseText("x"), Result: big, Actions: testButtons, QueryID: "q"})
	note := m.Blocks[2].(*slack.ContextBlock).ContextElements.Elements[0].(*slack.TextBlockObject).Text
	assert.Equal(t, "_Showing 100 of 1,000 rows. Export CSV for every row of the query._", note)

	m = Render(answer.Answer{Text: answer.ParseText("x"), Result: big})
	note = m.Blocks[2].(*slack.ContextBlock).ContextElements.Elements[0].(*slack.TextBlockObject).Text
	assert.Equal(t, "_Showing 100 of 1,000 rows._", note, "no buttons, so the note must not point at one")

	r.LimitedBy = "bytes"
	m = Render(answer.Answer{Text: answer.ParseText("x"), Result: r, Actions: testButtons, QueryID: "q"})
	ctx = m.Blocks[2].(*slack.ContextBlock)
	last = ctx.ContextElements.Elements[len(ctx.ContextElements.Elements)-1].(*slack.TextBlockObject)
	assert.Equal(t, "result cut to 50 rows (size limit); Export CSV has every row", last.Text, "a result cut by the byte cap says so")

	m = Render(answer.Answer{Text: answer.ParseText("x"), Result: r})
	ctx = m.Blocks[2].(*slack.ContextBlock)
	last = ctx.ContextElements.Elements[len(ctx.ContextElements.Elements)-1].(*slack.TextBlockObject)
	assert.Equal(t, "result cut to 50 rows (size limit)", last.Text, "no export button, no promise")
}

// A single value is said by the answer's text: no 1×1 table, unless there
// is no text to say it.
func TestRenderSingleValueWithoutTable(t *testing.T) {
	t.Parallel()
	one := gridResult(1, 1)
	for _, b := range Render(answer.Answer{Text: answer.ParseText("*0* games."), Result: one}).Blocks {
		_, isTable := b.(*slack.TableBlock)
		assert.False(t, isTable, "a table for a single value the text says")
	}
	blocks := Render(answer.Answer{Result: one}).Blocks
	require.NotEmpty(t, blocks)
	_, isTable := blocks[0].(*slack.TableBlock)
	assert.True(t, isTable, "without text the value needs its table")
}

func TestRenderWithoutQueryIDHasNoButtons(t *testing.T) {
	t.Parallel()
	m := Render(answer.Answer{Text: answer.ParseText("hi"), Result: gridResult(2, 2)})
	for _, b := range m.Blocks {
		_, isActions := b.(*slack.ActionBlock)
		assert.False(t, isActions, "got an actions block without a query id")
	}
}

func TestMrkdwnOfModelText(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{name: "slack bold kept", in: "We sold *42* units", want: "We sold *42* units"},
		{name: "markdown bold converted", in: "**West** leads", want: "*West* leads"},
		{name: "control characters escaped", in: "a < b && c > d", want: "a &lt; b &amp;&amp; c &gt; d"},
		{name: "mention syntax neutralised", in: "<!channel> look", want: "&lt;!channel&gt; look"},
		{name: "trimmed", in: "  hi \n", want: "hi"},
		{name: "italic and code", in: "_about_ `games`", want: "_about_ `games`"},
		{name: "snake case is no italic", in: "avg_price_gbp is 7", want: "avg_price_gbp is 7"},
		{name: "markdown link", in: "see [Steam](https://store.steampowered.com/app/10/)", want: "see <https://store.steampowered.com/app/10/|Steam>"},
		{name: "slack link kept", in: "<https://x.test/a|A & B>", want: "<https://x.test/a|A &amp; B>"},
		{name: "javascript link is text", in: "[x](javascript:alert(1))", want: "[x](javascript:alert(1))"},
		{name: "lone star stays", in: "5 * 3 = 15", want: "5 * 3 = 15"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, Mrkdwn(answer.ParseText(tc.in)), "Mrkdwn(ParseText(%q))", tc.in)
		})
	}
}

func TestFormatValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   any
		want string
	}{
		{name: "null", in: nil, want: "—"},
		{name: "empty string", in: "", want: `""`},
		{name: "integer raw (tables add separators)", in: int64(1234567), want: "1234567"},
		{name: "numeric string untouched", in: "1234567.890", want: "1234567.890"},
		{name: "float noise removed", in: 0.1 + 0.2, want: "0.3"},
		{name: "four decimals", in: 823.0456789, want: "823.0457"},
		{name: "whole float", in: 15.0, want: "15"},
		{name: "small float keeps 4 significant digits", in: 0.00012345678, want: "0.0001235"},
		{name: "tiny float in exponent form", in: 1.5e-9, want: "1.5e-09"},
		{name: "negative", in: -3.25, want: "-3.25"},
		{name: "negative rounding to zero", in: -0.00000000001, want: "-1e-11"},
		{name: "NaN", in: math.NaN(), want: "NaN"},
		{name: "infinity", in: math.Inf(-1), want: "-Infinity"},
		{name: "bool", in: true, want: "true"},
		{name: "array as JSON", in: []any{"a", int64(1)}, want: `["a",1]`},
		{name: "json object", in: map[string]any{"k": "v"}, want: `{"k":"v"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, formatValue(tc.in), "formatValue(%#v)", tc.in)
		})
	}
}

func TestFormatElapsed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   time.Duration
		want string
	}{
		{name: "zero hidden", in: 0, want: ""},
		{name: "sub-millisecond", in: 300 * time.Microsecond, want: "<1 ms"},
		{name: "milliseconds", in: 340 * time.Millisecond, want: "340 ms"},
		{name: "seconds one decimal", in: 1234 * time.Millisecond, want: "1.2 s"},
		{name: "minutes", in: 125 * time.Second, want: "2 min 5 s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, formatElapsed(tc.in))
		})
	}
}

func TestSplitText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		limit int
	}{
		{name: "paragraphs", in: strings.Repeat("word word word.\n\n", 50), limit: 100},
		{name: "one long word", in: strings.Repeat("y", 1000), limit: 100},
		{name: "entities never split", in: strings.Repeat("&amp;", 300), limit: 97},
		{name: "code fence reopened", in: "intro\n```\n" + strings.Repeat("line\n", 100) + "```\nend", limit: 120},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pieces := splitText(tc.in, tc.limit)
			require.Greater(t, len(pieces), 1, "want the text split")
			var words int
			for i, p := range pieces {
				assert.LessOrEqual(t, textLen(p), tc.limit, "piece %d too long", i)
				assert.Zero(t, strings.Count(p, "```")%2, "piece %d has an unbalanced fence: %q", i, p)
				assert.NotContains(t, entity.ReplaceAllString(p, ""), "&", "piece %d splits an entity", i)
				words += len(strings.Fields(strings.ReplaceAll(p, "```", "")))
			}
			want := len(strings.Fields(strings.ReplaceAll(tc.in, "```", "")))
			if tc.name != "one long word" && tc.name != "entities never split" {
				assert.Equal(t, want, words, "got %d words across pieces, want all %d", words, want)
			}
		})
	}
}

func TestSQLIsSplitIntoCompleteCodeBlocks(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "SELECT %d AS n WHERE a < b AND c > d\nUNION ALL\n", i)
	}
	sql := b.String() + "SELECT -1"
	m := SQL("q42", sql, "numbers?")
	require.Greater(t, len(m.Blocks), 2, "want the SQL split across sections")
	var code []string
	for i, blk := range m.Blocks[1:] {
		s := blk.(*slack.SectionBlock)
		text := s.Text.Text
		require.True(t, strings.HasPrefix(text, "```\n") && strings.HasSuffix(text, "\n```"), "section %d is not one code block", i)
		assert.Equal(t, fmt.Sprintf("sql:q42:%d", i), s.BlockID)
		code = append(code, unescape(strings.TrimSuffix(strings.TrimPrefix(text, "```\n"), "\n```")))
	}
	assert.Equal(t, sql, strings.Join(code, "\n"), "got SQL that does not reassemble into the original")
}

// Linked cells are links in both table blocks; their text stays the cell's.
func TestRenderLinkedCells(t *testing.T) {
	t.Parallel()
	r := &warehouse.Result{Columns: []warehouse.Column{{Name: "publisher", Kind: warehouse.KindText}, {Name: "games", Kind: warehouse.KindNumber}}}
	for i := range 30 {
		r.Rows = append(r.Rows, []any{fmt.Sprintf("P&%d", i), int64(100 - i)})
	}
	links := answer.Links{{Column: "publisher", URL: "https://x.test/p/{publisher}"}}
	for _, n := range []int{3, 30} {
		cut := *r
		cut.Rows = r.Rows[:n]
		a := answer.Answer{Text: answer.ParseText("P&0 leads."), Result: &cut, Links: links.For(&cut)}
		a.Text = answer.LinkText(a.Text, a.Table())
		m := Render(a)
		data, err := json.Marshal(m.Blocks)
		require.NoError(t, err)
		assert.Contains(t, string(data), `{"type":"link","url":"https://x.test/p/P\u00260","text":"P\u00260"}`, "%d rows: a link cell", n)
		assert.Contains(t, PlainText(m.Blocks), "P&1 ", "%d rows: the plain rendering keeps the text", n)
		assert.Equal(t, "<https://x.test/p/P&amp;0|P&amp;0> leads.", m.Blocks[0].(*slack.SectionBlock).Text.Text, "the name in the text links too")
	}
}

// The bot's own mentions reach Slack as mentions; a model's, or a quoted
// question's, stay characters.
func TestMrkdwnMentions(t *testing.T) {
	t.Parallel()
	own := answer.Mentions(answer.ParseText("posts in <#C0123ABC|growth>, made by <@U0456DEF>"))
	assert.Equal(t, "posts in <#C0123ABC>, made by <@U0456DEF>", Mrkdwn(own))
	model := answer.ParseText("ping <@U0456DEF>")
	assert.Equal(t, "ping &lt;@U0456DEF&gt;", Mrkdwn(model))
	quoted := answer.Mentions(answer.ParseText("“" + answer.Defuse("ping <@U0456DEF>") + "” in <#C0123ABC|growth>"))
	assert.Equal(t, "“ping &lt;\u200b@U0456DEF&gt;” in <#C0123ABC>", Mrkdwn(quoted))
}

// A result too wide for Slack's tables, drawn as monospace text, writes
// its numbers with the units the catalog states, as the other tables do.
func TestMonospaceTableKeepsUnits(t *testing.T) {
	t.Parallel()
	a := wideAnswer()
	a.Units = map[string]answer.Unit{"metric_01": {Prefix: "£"}, "metric_02": {Suffix: "%"}}
	shown := PlainText(Render(a).Blocks)
	assert.Contains(t, shown, "£11", "the first column's currency")
	assert.Contains(t, shown, "22%", "the second's percent")
}
