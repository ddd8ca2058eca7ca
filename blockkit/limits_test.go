package blockkit

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// limitCase is a message and the query id its buttons must carry ("" = no buttons).
type limitCase struct {
	name    string
	msg     Message
	queryID string
}

func limitCases() []limitCase {
	cases := []limitCase{}
	for _, g := range goldenCases() {
		cases = append(cases, limitCase{name: "golden/" + g.name, msg: g.msg})
	}
	cases[0].queryID = singleNumberAnswer().QueryID
	cases[1].queryID = regionsAnswer().QueryID
	cases[2].queryID = manyRowsAnswer().QueryID
	cases[3].queryID = wideAnswer().QueryID
	cases[4].queryID = longAnswer().QueryID

	truncated := dailyResult(1000)
	truncated.Truncated = true
	wide := wideAnswer()
	wide.Result.Columns = append(wide.Result.Columns, make([]warehouse.Column, 275)...)
	for i := range wide.Result.Rows {
		wide.Result.Rows[i] = append(wide.Result.Rows[i], make([]any, 275)...)
	}
	hugeCell := &warehouse.Result{
		Columns: []warehouse.Column{{Name: "note", Kind: warehouse.KindText, Type: "text"}, {Name: "n"}},
		Rows: [][]any{
			{strings.Repeat("<&>", 4000), int64(1)},
			{"line one\nline two ``` not a fence", 2.5},
			{[]any{"a", int64(1)}, map[string]any{"k": "v"}},
		},
	}
	monoHuge := dailyResult(101)
	monoHuge.Rows[0][0] = strings.Repeat("x&", 5000)
	assumptions := make([]string, 15)
	for i := range assumptions {
		assumptions[i] = fmt.Sprintf("assumption %d with <angle> & ampersand", i)
	}
	fenced := "Here is the breakdown:\n```\n" + strings.Repeat("row | 1 | 2\n", 400) + "```\nDone."

	add := func(name string, a answer.Answer) {
		cases = append(cases, limitCase{name: name, msg: Render(a), queryID: a.QueryID})
	}
	add("huge answer is cut", answer.Answer{Text: answer.ParseText(longText(200_000)), Actions: testButtons, QueryID: "q1", Result: dailyResult(5)})
	add("entities at every cut", answer.Answer{Text: answer.ParseText(strings.Repeat("&", 20_000)), Actions: testButtons, QueryID: "q2"})
	add("emoji surrogate pairs", answer.Answer{Text: answer.ParseText(strings.Repeat("📈", 5000)), Actions: testButtons, QueryID: "q3"})
	add("no spaces", answer.Answer{Text: answer.ParseText(strings.Repeat("x", 7000)), Actions: testButtons, QueryID: "q4"})
	add("code fence across sections", answer.Answer{Text: answer.ParseText(fenced), Actions: testButtons, QueryID: "q5"})
	add("truncated at row cap", answer.Answer{Text: answer.ParseText("Daily orders."), Result: truncated, Actions: testButtons, QueryID: "q6"})
	add("300 columns", answer.Answer{Text: answer.ParseText("Wide."), Result: wide.Result, Actions: testButtons, QueryID: "q7"})
	add("huge and odd cells", answer.Answer{Text: answer.ParseText("Notes."), Result: hugeCell, Actions: testButtons, QueryID: "q8"})
	add("huge cell in monospace", answer.Answer{Text: answer.ParseText("Notes."), Result: monoHuge, Actions: testButtons, QueryID: "q9"})
	add("15 assumptions", answer.Answer{Text: answer.ParseText("ok"), Assumptions: assumptions, Actions: testButtons, QueryID: "q10"})
	add("15 assumptions, verified", answer.Answer{Text: answer.ParseText("ok"), Assumptions: assumptions, VerifiedBy: "Dana <analytics>", Result: dailyResult(3), Backend: "sql", Actions: testButtons, QueryID: "q11"})
	add("empty answer", answer.Answer{})
	add("question only", answer.Answer{Question: "What <is> this?"})
	add("result without rows", answer.Answer{Result: &warehouse.Result{Columns: []warehouse.Column{{Name: "n"}}}})
	add("long query id", answer.Answer{Text: answer.ParseText("ok"), Actions: testButtons, QueryID: strings.Repeat("z", 400)})
	cases = append(cases,
		// Too long for a button value: no buttons rather than a broken one.
		limitCase{name: "query id too long for a button", msg: Render(answer.Answer{Text: answer.ParseText("ok"), Actions: testButtons, QueryID: strings.Repeat("q", 2001)})},
		limitCase{name: "empty error", msg: Error("", nil)},
		limitCase{name: "empty notice", msg: Notice("  ", []string{"", " "})},
		limitCase{name: "many suggestions", msg: Error("bad", make([]string, 40))},
		limitCase{name: "huge sql", msg: SQL("q", strings.Repeat("SELECT a < b & c > d FROM t;\n", 10_000), "q?")},
		limitCase{name: "one-line sql", msg: SQL("q", strings.Repeat("x", 7000), "")},
		limitCase{name: "empty sql", msg: SQL("q", "", "")},
		limitCase{name: "question asked back, huge and odd", msg: Reply(&answer.Answer{Kind: answer.KindClarify,
			Text: answer.Plain(strings.Repeat("Which <one> & ", 1000)), Choices: manyChoices(40)})},
		limitCase{name: "question asked back, empty", msg: Reply(&answer.Answer{Kind: answer.KindClarify})},
	)
	return cases
}

var entity = regexp.MustCompile(`&(amp|lt|gt);`)

func TestMessagesStayWithinSlackLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range limitCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := tc.msg
			require.NotEmpty(t, m.Blocks, "got no blocks")
			assert.LessOrEqual(t, len(m.Blocks), maxBlocks, "got %d blocks, want at most 50", len(m.Blocks))
			assert.NotEmpty(t, strings.TrimSpace(m.Text), "got empty fallback text")
			assert.LessOrEqual(t, utf8.RuneCountInString(m.Text), maxFallbackText, "fallback text too long")

			tables, actions := 0, 0
			for i, b := range m.Blocks {
				switch x := b.(type) {
				case *slack.SectionBlock:
					checkSectionText(t, i, x.Text)
				case *slack.TableBlock:
					tables++
					checkTable(t, x)
				case *slack.DataTableBlock:
					tables++
					checkDataTable(t, x)
				case *slack.ContextBlock:
					assert.LessOrEqual(t, len(x.ContextElements.Elements), maxContextElems, "context elements")
					for _, e := range x.ContextElements.Elements {
						checkSectionText(t, i, e.(*slack.TextBlockObject))
					}
				case *slack.ActionBlock:
					if x.BlockID == ClarifyBlockID {
						checkChoices(t, x)
						continue
					}
					actions++
					checkActions(t, x, tc.queryID)
				default:
					t.Errorf("block %d: got unexpected block type %T", i, b)
				}
			}
			assert.LessOrEqual(t, tables, 1, "got %d table blocks, Slack allows one per message", tables)
			wantActions := 0
			if tc.queryID != "" {
				wantActions = 1
			}
			assert.Equal(t, wantActions, actions, "got %d actions blocks, want %d", actions, wantActions)
			checkRoundTrip(t, m.Blocks)
		})
	}
}

func checkSectionText(t *testing.T, i int, tx *slack.TextBlockObject) {
	t.Helper()
	require.NotNil(t, tx, "block %d: section without text", i)
	assert.NoError(t, tx.Validate(), "block %d: slack-go rejects the text", i)
	assert.LessOrEqual(t, textLen(tx.Text), maxSectionText, "block %d: got %d characters", i, textLen(tx.Text))
	assert.Zero(t, strings.Count(tx.Text, "```")%2, "block %d: unbalanced code fence in %q", i, truncate(tx.Text, 200))
	// Everything is escaped: no raw < or >, and every & starts an entity.
	bare := entity.ReplaceAllString(tx.Text, "")
	assert.NotContains(t, bare, "&", "block %d: bare or split &", i)
	assert.NotContains(t, bare, "<", "block %d: unescaped <", i)
	assert.NotContains(t, bare, ">", "block %d: unescaped >", i)
}

func checkTable(t *testing.T, tb *slack.TableBlock) {
	t.Helper()
	assert.LessOrEqual(t, len(tb.Rows), maxTableRows, "table rows")
	assert.LessOrEqual(t, len(tb.ColumnSettings), maxTableColumns, "column settings")
	for r, row := range tb.Rows {
		assert.LessOrEqual(t, len(row), maxTableColumns, "row %d cells", r)
		assert.Len(t, row, len(tb.Rows[0]), "row %d has a different width than the header", r)
		for c, cl := range row {
			text := cellText(cl)
			assert.NotEmpty(t, text, "row %d col %d: empty cell", r, c)
			assert.LessOrEqual(t, textLen(text), maxTableCellText, "row %d col %d too long", r, c)
		}
	}
}

func checkDataTable(t *testing.T, dt *slack.DataTableBlock) {
	t.Helper()
	assert.NotEmpty(t, dt.Caption, "a data table needs its caption")
	assert.LessOrEqual(t, textLen(dt.Caption), maxCaption, "caption")
	assert.GreaterOrEqual(t, len(dt.Rows), 2, "header and at least one row")
	assert.LessOrEqual(t, len(dt.Rows), maxDataTableRows+1, "data table rows")
	assert.True(t, dt.PageSize >= 1 && dt.PageSize <= 100, "page size %d", dt.PageSize)
	for r, row := range dt.Rows {
		assert.LessOrEqual(t, len(row), maxDataTableColumns, "row %d cells", r)
		assert.Len(t, row, len(dt.Rows[0]), "row %d has a different width than the header", r)
		for c, cl := range row {
			switch x := cl.(type) {
			case *slack.DataTableRawTextCell:
				assert.NotEmpty(t, x.Text, "row %d col %d: empty cell", r, c)
				assert.LessOrEqual(t, textLen(x.Text), maxTableCellText, "row %d col %d too long", r, c)
			case *slack.DataTableRawNumberCell:
				assert.NotZero(t, r, "the header holds only raw_text")
				assert.False(t, math.IsNaN(x.Value) || math.IsInf(x.Value, 0), "row %d col %d: a number JSON can carry", r, c)
			default:
				t.Errorf("row %d col %d: cell %T", r, c, cl)
			}
		}
	}
}

// checkChoices checks the buttons of a question asked back: each asks a
// question that fits in its value, under a label that fits.
func checkChoices(t *testing.T, ab *slack.ActionBlock) {
	t.Helper()
	assert.LessOrEqual(t, len(ab.Elements.ElementSet), maxActionElems, "buttons")
	for _, e := range ab.Elements.ElementSet {
		btn := e.(*slack.ButtonBlockElement)
		assert.True(t, IsAskAction(btn.ActionID), "got action %q, want an ask button", btn.ActionID)
		assert.NotEmpty(t, strings.TrimSpace(btn.Value), "button %s asks nothing", btn.ActionID)
		assert.LessOrEqual(t, utf8.RuneCountInString(btn.Value), maxButtonValue, "button %s value", btn.ActionID)
		assert.LessOrEqual(t, utf8.RuneCountInString(btn.Text.Text), maxButtonText, "button %s label", btn.ActionID)
	}
}

func checkActions(t *testing.T, ab *slack.ActionBlock, queryID string) {
	t.Helper()
	assert.LessOrEqual(t, len(ab.BlockID), maxBlockID, "block_id length")
	assert.True(t, strings.HasPrefix(ab.BlockID, ActionsBlockIDPrefix), "got block_id %q", ab.BlockID)
	assert.Contains(t, ActionsBlockIDPrefix+queryID, ab.BlockID, "block_id should carry the query id")
	var ids []string
	for _, e := range ab.Elements.ElementSet {
		btn := e.(*slack.ButtonBlockElement)
		ids = append(ids, btn.ActionID)
		assert.Equal(t, queryID, btn.Value, "button %s value", btn.ActionID)
	}
	assert.Equal(t, []string{"export_csv", "show_sql"}, ids, "button action ids")
}

// checkRoundTrip decodes our JSON with slack-go's own decoder, which knows
// every block type Slack documents, and requires the same JSON back.
func checkRoundTrip(t *testing.T, blocks []slack.Block) {
	t.Helper()
	first, err := json.Marshal(slack.Blocks{BlockSet: blocks})
	require.NoError(t, err)
	var decoded slack.Blocks
	require.NoError(t, json.Unmarshal(first, &decoded), "slack.Blocks rejects our JSON")
	require.Len(t, decoded.BlockSet, len(blocks))
	for i, b := range decoded.BlockSet {
		_, unknown := b.(*slack.UnknownBlock)
		assert.False(t, unknown, "block %d decoded as unknown type %s", i, b.BlockType())
	}
	second, err := json.Marshal(decoded)
	require.NoError(t, err)
	assert.JSONEq(t, string(first), string(second), "JSON changed in a decode/encode round trip")
}

// manyChoices are n choices, some of which Slack would refuse.
func manyChoices(n int) []answer.Choice {
	out := make([]answer.Choice, n)
	for i := range out {
		out[i] = answer.Choice{Label: strings.Repeat("<label> ", i), Ask: strings.Repeat("q&", i*100)}
	}
	return out
}
