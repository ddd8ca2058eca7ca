package fakeslack

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// dailyResult and wideResult mirror blockkit's own fixtures: a result too
// long for a table block and one too wide for it.
func dailyResult(n int) *warehouse.Result {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{start.AddDate(0, 0, i).Format("2006-01-02"), int64(100 + i*7%53), float64(i) * 12.25}
	}
	cols := []warehouse.Column{{Name: "day", Type: "date"}, {Name: "orders", Type: "int8"}, {Name: "revenue", Type: "float8"}}
	return &warehouse.Result{Columns: cols, Rows: rows, RowCount: n}
}

func wideResult(cols, rows int) *warehouse.Result {
	r := &warehouse.Result{Columns: make([]warehouse.Column, cols), Rows: make([][]any, rows), RowCount: rows}
	for c := range r.Columns {
		r.Columns[c] = warehouse.Column{Name: fmt.Sprintf("metric_%02d", c+1), Type: "int4"}
	}
	for i := range r.Rows {
		r.Rows[i] = make([]any, cols)
		for c := range r.Rows[i] {
			r.Rows[i][c] = int64((i + 1) * (c + 1) * 11)
		}
	}
	return r
}

func marshalBlocks(t *testing.T, m blockkit.Message) []byte {
	t.Helper()
	b, err := json.Marshal(m.Blocks)
	require.NoError(t, err)
	return b
}

func TestValidateAcceptsBlockkitOutput(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Revenue in *region 4* grew while costs & returns stayed below 5%. ", 2500)
	tests := []struct {
		name string
		msg  blockkit.Message
	}{
		{name: "150 rows", msg: blockkit.Render(answer.Answer{Text: answer.ParseText("Orders per day."), Result: dailyResult(150), Actions: nodes.Buttons(), QueryID: "q_daily", Elapsed: time.Second, Backend: "sql"})},
		{name: "25 columns", msg: blockkit.Render(answer.Answer{Text: answer.ParseText("All metrics."), Result: wideResult(25, 5), Actions: nodes.Buttons(), QueryID: "q_wide"})},
		{name: "native table at the limit", msg: blockkit.Render(answer.Answer{Text: answer.ParseText("Big table."), Result: wideResult(20, 99), Actions: nodes.Buttons(), QueryID: "q_big"})},
		{name: "long answer", msg: blockkit.Render(answer.Answer{Text: answer.ParseText(long), Result: dailyResult(3), Actions: nodes.Buttons(), QueryID: "q_long",
			Assumptions: strings.Split(strings.Repeat("an assumption,", 15), ",")})},
		{name: "error", msg: blockkit.Error("The database timed out.", []string{"Ask for fewer days", "Try again"})},
		{name: "notice", msg: blockkit.Notice("I only know the analytics data.", []string{"Revenue by region last month?"})},
		{name: "sql", msg: blockkit.SQL("q_daily", "SELECT day, count(*) FROM orders GROUP BY day", "Daily orders?")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			raw := marshalBlocks(t, tc.msg)
			assert.Empty(t, validateBlocks(raw), "blocks: %.300s", raw)
			assert.LessOrEqual(t, runeLen(tc.msg.Text), maxMessageText)
		})
	}
}

// An answer's context line holds its assumptions, the verified badge and
// the status line; Slack takes at most 10 elements in a context block, so
// every mix of the three must pass, and no assumption may be lost.
func TestValidateAcceptsEveryContextLine(t *testing.T) {
	t.Parallel()
	for _, verified := range []string{"", "U0VERIFY"} {
		for _, backend := range []string{"", "sql"} {
			for n := 0; n <= 15; n++ {
				name := fmt.Sprintf("verified=%t status=%t assumptions=%d", verified != "", backend != "", n)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					assumptions := make([]string, n)
					for i := range assumptions {
						assumptions[i] = fmt.Sprintf("assumption number %d", i+1)
					}
					a := answer.Answer{Text: answer.ParseText("Orders per day."), Actions: nodes.Buttons(),
						QueryID: "q_ctx", Backend: backend, VerifiedBy: verified, Assumptions: assumptions}
					if backend != "" {
						a.Result = dailyResult(3) // "3 rows · via sql"
					}
					m := blockkit.Render(a)
					raw := marshalBlocks(t, m)
					assert.Empty(t, validateBlocks(raw), "blocks: %.600s", raw)

					text := string(raw)
					if n > 0 {
						assert.Contains(t, text, fmt.Sprintf("assumption number %d\"", n), "the last assumption is shown")
					}
					if verified != "" {
						assert.Contains(t, text, "Verified query", "the verified badge is shown")
					}
					if backend != "" {
						assert.Contains(t, text, "via sql", "the status line is shown")
					}
					assert.Contains(t, text, "Export CSV", "the buttons are shown")
				})
			}
		}
	}
}

// block builders for the rejection table.
func section(text string) string {
	t, _ := json.Marshal(text)
	return `{"type":"section","text":{"type":"mrkdwn","text":` + string(t) + `}}`
}

func repeatJoin(item string, n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = strings.ReplaceAll(item, "#", fmt.Sprint(i))
	}
	return strings.Join(items, ",")
}

func button(actionID, text, value string) string {
	return fmt.Sprintf(`{"type":"button","action_id":%q,"text":{"type":"plain_text","text":%q},"value":%q}`, actionID, text, value)
}

func table(rows, cells int, cell string) string {
	row := "[" + repeatJoin(cell, cells) + "]"
	return `{"type":"table","rows":[` + repeatJoin(row, rows) + `]}`
}

const rawCell = `{"type":"raw_text","text":"v"}`

// barChart is a data_visualization block of a bar chart (categories and
// series JSON).
func barChart(title, categories, series string) string {
	return `{"type":"data_visualization","title":"` + title + `","chart":{"type":"bar","axis_config":{"categories":` + categories + `},"series":` + series + `}}`
}

// feedback is a feedback_buttons element whose two buttons have text and
// value (JSON).
func feedback(text, value string) string {
	b := `{"text":` + text + `,"value":` + value + `}`
	if value == "null" {
		b = `{"text":` + text + `}`
	}
	return `{"type":"feedback_buttons","action_id":"f#","positive_button":` + b + `,"negative_button":` + b + `}`
}

func TestValidateBlocks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		blocks string
		want   string // a substring of the first problem; "" means accepted
	}{
		{name: "empty array", blocks: `[]`},
		{name: "50 blocks", blocks: "[" + repeatJoin(`{"type":"divider"}`, 50) + "]"},
		{name: "section at 3000", blocks: "[" + section(strings.Repeat("é", 3000)) + "]"},
		{name: "table 100x20", blocks: "[" + table(100, 20, rawCell) + "]"},
		{name: "rich text cells", blocks: `[{"type":"table","rows":[[{"type":"rich_text","elements":[{"type":"rich_text_section","elements":[{"type":"text","text":"h"}]}]}]]}]`},
		{name: "25 buttons", blocks: `[{"type":"actions","elements":[` + repeatJoin(button("a#", strings.Repeat("b", 75), strings.Repeat("v", 2000)), 25) + `]}]`},
		{name: "10 context elements", blocks: `[{"type":"context","elements":[` + repeatJoin(`{"type":"mrkdwn","text":"x"}`, 10) + `]}]`},

		{name: "not an array", blocks: section("x"), want: "must be a JSON array [json-pointer:/blocks]"},
		{name: "not JSON", blocks: `[{"type":`, want: "must be a JSON array"},
		{name: "51 blocks", blocks: "[" + repeatJoin(`{"type":"divider"}`, 51) + "]", want: "no more than 50 items [json-pointer:/blocks]"},
		{name: "unknown type", blocks: `[{"type":"banner"}]`, want: `unknown block type "banner" [json-pointer:/blocks/0/type]`},
		{name: "no type", blocks: `[{"text":"x"}]`, want: "must provide a string [json-pointer:/blocks/0/type]"},
		{name: "section too long", blocks: "[" + section(strings.Repeat("a", 3001)) + "]", want: "less than 3001 characters [json-pointer:/blocks/0/text/text]"},
		{name: "section empty text", blocks: "[" + section("") + "]", want: "more than 0 characters [json-pointer:/blocks/0/text/text]"},
		{name: "section without text", blocks: `[{"type":"section"}]`, want: "must provide text or fields"},
		{name: "bad text type", blocks: `[{"type":"section","text":{"type":"markdown","text":"x"}}]`, want: "[json-pointer:/blocks/0/text/type]"},
		{name: "mrkdwn header", blocks: `[{"type":"header","text":{"type":"mrkdwn","text":"x"}}]`, want: "[json-pointer:/blocks/0/text/type]"},
		{name: "11 fields", blocks: `[{"type":"section","fields":[` + repeatJoin(`{"type":"mrkdwn","text":"x"}`, 11) + `]}]`, want: "no more than 10 items [json-pointer:/blocks/0/fields]"},
		{name: "11 context elements", blocks: `[{"type":"context","elements":[` + repeatJoin(`{"type":"mrkdwn","text":"x"}`, 11) + `]}]`, want: "no more than 10 items [json-pointer:/blocks/0/elements]"},
		{name: "empty context", blocks: `[{"type":"context","elements":[]}]`, want: "non-empty array [json-pointer:/blocks/0/elements]"},
		{name: "26 buttons", blocks: `[{"type":"actions","elements":[` + repeatJoin(button("a#", "b", "v"), 26) + `]}]`, want: "no more than 25 items"},
		{name: "button text 76", blocks: `[{"type":"actions","elements":[` + button("a", strings.Repeat("b", 76), "v") + `]}]`, want: "less than 76 characters [json-pointer:/blocks/0/elements/0/text/text]"},
		{name: "button value 2001", blocks: `[{"type":"actions","elements":[` + button("a", "b", strings.Repeat("v", 2001)) + `]}]`, want: "less than 2001 characters [json-pointer:/blocks/0/elements/0/value]"},
		{name: "action_id 256", blocks: `[{"type":"actions","elements":[` + button(strings.Repeat("a", 256), "b", "v") + `]}]`, want: "[json-pointer:/blocks/0/elements/0/action_id]"},
		{name: "duplicate action_id", blocks: `[{"type":"actions","elements":[` + button("a", "b", "v") + "," + button("a", "c", "v") + `]}]`, want: `duplicate action_id "a" [json-pointer:/blocks/0/elements/1/action_id]`},
		{name: "block_id 256", blocks: `[{"type":"divider","block_id":"` + strings.Repeat("b", 256) + `"}]`, want: "less than 256 characters [json-pointer:/blocks/0/block_id]"},
		{name: "duplicate block_id", blocks: `[{"type":"divider","block_id":"x"},{"type":"divider","block_id":"x"}]`, want: `duplicate block_id "x" [json-pointer:/blocks/1/block_id]`},
		{name: "table 101 rows", blocks: "[" + table(101, 2, rawCell) + "]", want: "no more than 100 items [json-pointer:/blocks/0/rows]"},
		{name: "table 21 cells", blocks: "[" + table(1, 21, rawCell) + "]", want: "no more than 20 items [json-pointer:/blocks/0/rows/0]"},
		{name: "raw_number cell", blocks: "[" + table(1, 1, `{"type":"raw_number","value":1}`) + "]", want: `not "raw_number" [json-pointer:/blocks/0/rows/0/0/type]`},
		{name: "raw_text without text", blocks: "[" + table(1, 1, `{"type":"raw_text"}`) + "]", want: "[json-pointer:/blocks/0/rows/0/0/text]"},
		{name: "two tables", blocks: "[" + table(1, 1, rawCell) + "," + table(1, 1, rawCell) + "]", want: "only one table block"},
		{name: "rich_text without elements", blocks: `[{"type":"rich_text"}]`, want: "[json-pointer:/blocks/0/elements]"},
		{name: "bar chart", blocks: `[` + barChart("Games", `["a","b"]`, `[{"name":"n","data":[{"label":"a","value":1},{"label":"b","value":-2}]}]`) + `]`},
		{name: "pie chart", blocks: `[{"type":"data_visualization","title":"Shares","chart":{"type":"pie","segments":[{"label":"a","value":1},{"label":"b","value":2}]}}]`},
		{name: "three charts", blocks: `[` + repeatJoin(barChart("T", `["a"]`, `[{"name":"n","data":[{"label":"a","value":1}]}]`), 3) + `]`, want: "no more than 2 data_visualization blocks"},
		{name: "chart title 51", blocks: `[` + barChart(strings.Repeat("t", 51), `["a"]`, `[{"name":"n","data":[{"label":"a","value":1}]}]`) + `]`, want: "[json-pointer:/blocks/0/title]"},
		{name: "chart label 21", blocks: `[` + barChart("T", `["`+strings.Repeat("a", 21)+`"]`, `[{"name":"n","data":[{"label":"`+strings.Repeat("a", 21)+`","value":1}]}]`) + `]`, want: "[json-pointer:/blocks/0/chart/axis_config/categories/0]"},
		{name: "21 categories", blocks: `[` + barChart("T", `[`+repeatJoin(`"c#"`, 21)+`]`, `[{"name":"n","data":[]}]`) + `]`, want: "1 to 20 items"},
		{name: "7 series", blocks: `[` + barChart("T", `["a"]`, `[`+repeatJoin(`{"name":"n#","data":[{"label":"a","value":1}]}`, 7)+`]`) + `]`, want: "1 to 6 items [json-pointer:/blocks/0/chart/series]"},
		{name: "a category without a value", blocks: `[` + barChart("T", `["a","b"]`, `[{"name":"n","data":[{"label":"a","value":1}]}]`) + `]`, want: "one value for every category"},
		{name: "a point off the axis", blocks: `[` + barChart("T", `["a"]`, `[{"name":"n","data":[{"label":"z","value":1}]}]`) + `]`, want: "one of the categories"},
		{name: "pie at zero", blocks: `[{"type":"data_visualization","title":"S","chart":{"type":"pie","segments":[{"label":"a","value":0}]}}]`, want: "greater than 0"},
		{name: "7 pie segments", blocks: `[{"type":"data_visualization","title":"S","chart":{"type":"pie","segments":[` + repeatJoin(`{"label":"s#","value":1}`, 7) + `]}}]`, want: "1 to 6 items"},
		{name: "scatter chart", blocks: `[{"type":"data_visualization","title":"S","chart":{"type":"scatter"}}]`, want: "[json-pointer:/blocks/0/chart/type]"},
		{name: "data table", blocks: `[` + dataTable(`"caption":"Games","page_size":10,`, 100, 20, `{"type":"raw_number","value":1.5,"text":"1.5"}`) + `]`},
		{name: "data table 101 rows", blocks: `[` + dataTable(`"caption":"G",`, 101, 2, rawCell) + `]`, want: "no more than 101 items [json-pointer:/blocks/0/rows]"},
		{name: "data table 21 columns", blocks: `[` + dataTable(`"caption":"G",`, 1, 21, rawCell) + `]`, want: "no more than 20 items [json-pointer:/blocks/0/rows/0]"},
		{name: "data table without caption", blocks: `[` + dataTable(``, 1, 1, rawCell) + `]`, want: "[json-pointer:/blocks/0/caption]"},
		{name: "data table header only", blocks: `[` + dataTable(`"caption":"G",`, 0, 1, rawCell) + `]`, want: "at least 2 items"},
		{name: "data table page 101", blocks: `[` + dataTable(`"caption":"G","page_size":101,`, 1, 1, rawCell) + `]`, want: "[json-pointer:/blocks/0/page_size]"},
		{name: "data table number without value", blocks: `[` + dataTable(`"caption":"G",`, 1, 1, `{"type":"raw_number","value":"x"}`) + `]`, want: "[json-pointer:/blocks/0/rows/1/0/value]"},
		{name: "data table ragged", blocks: `[{"type":"data_table","caption":"G","rows":[[` + rawCell + `,` + rawCell + `],[` + rawCell + `]]}]`, want: "as many cells as the header"},
		{name: "data table and table", blocks: `[` + dataTable(`"caption":"G",`, 1, 1, rawCell) + "," + table(1, 1, rawCell) + `]`, want: "only one table block"},
		{name: "feedback buttons", blocks: `[{"type":"context_actions","elements":[` + feedback(`{"type":"plain_text","text":"👍"}`, `"up"`) + `]}]`},
		{name: "context_actions with a button", blocks: `[{"type":"context_actions","elements":[` + button("a", "b", "v") + `]}]`, want: "[json-pointer:/blocks/0/elements/0/type]"},
		{name: "empty context_actions", blocks: `[{"type":"context_actions","elements":[]}]`, want: "non-empty array [json-pointer:/blocks/0/elements]"},
		{name: "6 feedback elements", blocks: `[{"type":"context_actions","elements":[` + repeatJoin(feedback(`{"type":"plain_text","text":"x"}`, `"v"`), 6) + `]}]`, want: "no more than 5 items"},
		{name: "feedback without value", blocks: `[{"type":"context_actions","elements":[` + feedback(`{"type":"plain_text","text":"x"}`, `null`) + `]}]`, want: "[json-pointer:/blocks/0/elements/0/positive_button/value]"},
		{name: "feedback mrkdwn text", blocks: `[{"type":"context_actions","elements":[` + feedback(`{"type":"mrkdwn","text":"x"}`, `"v"`) + `]}]`, want: "[json-pointer:/blocks/0/elements/0/positive_button/text/type]"},
		{name: "feedback value 2001", blocks: `[{"type":"context_actions","elements":[` + feedback(`{"type":"plain_text","text":"x"}`, `"`+strings.Repeat("v", 2001)+`"`) + `]}]`, want: "less than 2001 characters [json-pointer:/blocks/0/elements/0/positive_button/value]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := validateBlocks([]byte(tc.blocks))
			if tc.want == "" {
				assert.Empty(t, got, "want the blocks accepted")
				return
			}
			require.NotEmpty(t, got, "want a problem containing %q", tc.want)
			assert.Contains(t, got[0], tc.want, "got problems %q", got)
		})
	}
}

func TestBlockTexts(t *testing.T) {
	t.Parallel()
	msg := blockkit.Render(answer.Answer{
		Text: answer.ParseText("North leads."),
		Result: &warehouse.Result{
			Columns:  []warehouse.Column{{Name: "region", Type: "text"}, {Name: "orders", Type: "int8"}},
			Rows:     [][]any{{"North", int64(120)}, {"South", int64(98)}},
			RowCount: 2,
		},
		Actions: nodes.Buttons(), QueryID: "q1",
	})
	got := Message{Blocks: marshalBlocks(t, msg)}.BlockTexts()
	want := []string{"North leads.", "region", "orders", "North", "120", "South", "98", "2 rows", "Export CSV", "Show SQL"}
	assert.Equal(t, want, got)
	assert.Nil(t, Message{}.BlockTexts())
}

// dataTable is a data_table block with fields, a raw_text header of cols
// cells, then rows rows of cell.
func dataTable(fields string, rows, cols int, cell string) string {
	out := []string{"[" + repeatJoin(rawCell, cols) + "]"}
	for range rows {
		out = append(out, "["+repeatJoin(cell, cols)+"]")
	}
	return `{"type":"data_table",` + fields + `"rows":[` + strings.Join(out, ",") + `]}`
}
