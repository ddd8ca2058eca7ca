package blockkit

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

func TestPlainText(t *testing.T) {
	t.Parallel()
	regions := regionsAnswer()
	regions.Result.Rows = regions.Result.Rows[:5]
	regions.Elapsed = 1200 * time.Millisecond
	regions.Backend = "sql"

	tests := []struct {
		name string
		msg  Message
		want string
	}{
		{
			name: "answer with table, context and buttons",
			msg:  Render(regions),
			want: `*West* leads with 1.5M orders; East has no orders recorded (shown as —). Revenue < 0 means refunds exceeded sales.

region                orders       revenue  avg_basket  active
-----------------  ---------  ------------  ----------  ------
North                    120     10,500.50         0.3  true
South                     98      8,700.00        87.5  false
East                       —          0.00           —  —
West               1,500,000  1,234,567.89    823.0457  true
Central <HQ> & Co          7             —  0.00001234  false

  Assumption: Revenue is net of refunds.
  Assumption: Regions come from the shipping address.
  5 rows · in 1.2 s · via sql

[Export CSV] [Show SQL]
`,
		},
		{
			name: "show sql unescaped without fences",
			msg:  sqlMessage(),
			want: "*SQL for:* Orders by region last week?\n\n" + sampleSQL + "\n",
		},
		{
			name: "error without buttons",
			msg:  errorMessage(),
			want: `:warning: I couldn't run that query: it took longer than 30 s.

*You could try:*
• Ask about a shorter period, e.g. last month
• Filter to one region
`,
		},
		{
			name: "decline notice",
			msg:  noticeMessage(),
			want: `I can only answer questions about our sales data, so I can't help with the weather.

*Try asking:*
• “How many orders did we get last week?”
• “Top 5 products by revenue this month”
`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := PlainText(tc.msg.Blocks)
			assert.Equal(t, tc.want, got, "got:\n%s\nwant:\n%s", got, tc.want)
			assert.NotContains(t, got, "\x1b[", "no ANSI codes unless asked")
		})
	}
}

func TestPlainTextDataTable(t *testing.T) {
	t.Parallel()
	got := PlainText(Render(manyRowsAnswer()).Blocks)
	lines := strings.Split(got, "\n")
	assert.Equal(t, "Daily orders since January?", lines[2], "the caption")
	assert.Equal(t, "day         orders   revenue", lines[3], "header line")
	assert.Equal(t, "2025-01-02     107     12.25", lines[6], "second data row")
	assert.Contains(t, got, "\n  Showing 100 of 150 rows. Export CSV for all 150 rows.\n", "note without mrkdwn italics")
}

func TestPlainTextMonospaceFallback(t *testing.T) {
	t.Parallel()
	got := PlainText(Render(wideAnswer()).Blocks)
	assert.Contains(t, got, "metric_01  metric_02", "header line")
	assert.Contains(t, got, "metric_25\n", "every column fits a terminal line")
	assert.NotContains(t, got, "```", "code fences are Slack-only")
}

func TestPlainTextANSI(t *testing.T) {
	t.Parallel()
	got := PlainTextWith(Render(singleNumberAnswer()).Blocks, PlainOptions{ANSI: true})
	want := "We received *1,234* orders last week.\n\n" +
		"\x1b[2m  Assumption: “Last week” means Monday to Sunday before today.\x1b[0m\n" +
		"\x1b[2m  1 row · in 1.2 s · via sql\x1b[0m\n\n" +
		"[Export CSV] [Show SQL]\n"
	assert.Equal(t, want, got)
}

// The terminal shows an answer's badge and feedback buttons readably.
func TestPlainTextBadgeAndFeedback(t *testing.T) {
	t.Parallel()
	msg := Render(answer.Answer{Text: answer.ParseText("42 games."), QueryID: "0123abcd", Actions: []answer.Action{{ID: "show_sql", Label: "Show SQL"}},
		Feedback: true, VerifiedBy: "UADMIN01"})
	got := PlainText(msg.Blocks)
	assert.Contains(t, got, "✓ Verified query (by <@UADMIN01>)", "a mention, as Slack's fallback text needs it")
	assert.Contains(t, got, "[Show SQL]\n\n[👍] [👎]")
	assert.Contains(t, PlainText(Render(answer.Answer{Text: answer.ParseText("x"), VerifiedBy: "file"}).Blocks), "(by the examples file)")
	assert.Contains(t, PlainText(Render(answer.Answer{Text: answer.ParseText("x"), VerifiedBy: "ana <script>"}).Blocks), "(by ana <script>)")
}

// PlainMrkdwn is what Slack gets when it refuses the blocks: Slack's
// escapes put back, and a long text cut within Slack's 40,000 characters
// without splitting an escape.
func TestPlainMrkdwn(t *testing.T) {
	t.Parallel()
	huge := &warehouse.Result{
		Columns: []warehouse.Column{{Name: "note", Kind: warehouse.KindText, Type: "text"}},
		Rows:    make([][]any, 150),
	}
	for i := range huge.Rows {
		huge.Rows[i] = []any{strings.Repeat("<", 190)}
	}
	tests := []struct {
		name string
		msg  Message
		want []string
	}{
		{
			name: "markup in a value and in the words",
			msg: Render(answer.Answer{Text: answer.ParseText("See <!here> & <@U999>."), Result: &warehouse.Result{
				Columns: []warehouse.Column{{Name: "note", Kind: warehouse.KindText, Type: "text"}, {Name: "n"}},
				Rows:    [][]any{{"<!channel> <https://evil.example|click>", int64(1)}, {"a & b", int64(2)}},
			}}),
			want: []string{"See &lt;!here&gt; &amp; &lt;@U999&gt;.", "&lt;!channel&gt; &lt;https://evil.example|click&gt;", "a &amp; b"},
		},
		{name: "cut", msg: Render(answer.Answer{Text: answer.ParseText("Notes."), Result: huge}), want: []string{"&lt;\n… (cut)\n```"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := PlainMrkdwn(tt.msg.Blocks)
			assert.True(t, strings.HasPrefix(got, "```\n") && strings.HasSuffix(got, "\n```"), "got %.200q, want a code block", got)
			assert.LessOrEqual(t, textLen(got), 40_000, "Slack's limit")
			for _, w := range tt.want {
				assert.Contains(t, got, w)
			}
			assert.NotRegexp(t, `[<>]`, got, "got unescaped markup")
			assert.NotContains(t, entity.ReplaceAllString(got, ""), "&", "got an unescaped & or a broken escape")
		})
	}
}
