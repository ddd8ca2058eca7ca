package web

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// TestBrowserRendering checks, in Chromium, how the page draws the bot's
// mrkdwn and Block Kit: formatting, links, lists and code, every block type
// it knows, and that text from the model or the data never becomes markup.
func TestBrowserRendering(t *testing.T) {
	t.Parallel()
	tb := newTab(t)
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{})
	tb.do(t, "open the chat", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS(".chip")))

	t.Run("mrkdwn", func(t *testing.T) {
		link := `<a href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">Example</a>`
		tests := []struct {
			name string
			in   string // as the bot sends it: Slack-escaped mrkdwn
			want string // innerHTML of what the page draws
		}{
			{name: "formatting", in: "*8160* games _about_ ~old~ `n &lt; 3`",
				want: "<p><strong>8160</strong> games <em>about</em> <s>old</s> <code>n &lt; 3</code></p>"},
			{name: "nested", in: "*bold _and italic_*", want: "<p><strong>bold <em>and italic</em></strong></p>"},
			{name: "markers inside words stay", in: "release_year = 2018, 2*3*4 and snake_case_name",
				want: "<p>release_year = 2018, 2*3*4 and snake_case_name</p>"},
			{name: "entities", in: "Revenue &lt; 0 &amp; R&amp;D &gt; 1", want: "<p>Revenue &lt; 0 &amp; R&amp;D &gt; 1</p>"},
			{name: "raw markup is text", in: "<img src=x onerror=window.__xss=1><script>window.__xss=2</script>",
				want: "<p>img src=x onerror=window.__xss=1scriptwindow.__xss=2/script</p>"},
			{name: "link", in: "<https://example.com/a?b=1&amp;c=2|Example>", want: "<p>" + link + "</p>"},
			{name: "unsafe links are text", in: "<javascript:alert(1)|click me> <data:text/html,x|data> </path|rel>",
				want: "<p>click me data rel</p>"},
			{name: "code block", in: "Query:\n```\nSELECT 1 &lt; 2\nFROM t\n```",
				want: "<p>Query:</p><pre tabindex=\"0\"><code>SELECT 1 &lt; 2\nFROM t</code></pre>"},
			{name: "no formatting in code", in: "`*not bold*`", want: "<p><code>*not bold*</code></p>"},
			{name: "unclosed fence", in: "```abc", want: "<p>```abc</p>"},
			{name: "bullet list", in: "*Try asking:*\n• one\n• two",
				want: "<p><strong>Try asking:</strong></p><ul><li>one</li><li>two</li></ul>"},
			{name: "numbered list", in: "1. first\n2. second", want: `<ol start="1"><li>first</li><li>second</li></ol>`},
			{name: "quote", in: "&gt; note\nafter", want: "<blockquote>note</blockquote><p>after</p>"},
			{name: "line breaks", in: "a\nb", want: "<p>a\nb</p>"},
			{name: "emoji", in: ":warning: careful :nonsense:", want: "<p>⚠️ careful :nonsense:</p>"},
			{name: "mentions", in: "<@U123> and <!here>",
				want: `<p><span class="mention">@U123</span> and <span class="mention">@here</span></p>`},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got := eval[string](t, tb, `(() => { const d = document.createElement("div");
				  d.append(Mrkdwn.render(`+jsValue(t, tt.in)+`)); return d.innerHTML; })()`)
				assert.Equal(t, tt.want, got, "mrkdwn %q: got %s, want %s", tt.in, got, tt.want)
			})
		}
	})

	t.Run("answer blocks", func(t *testing.T) {
		msg := blockkit.Render(answer.Answer{
			Question: "Top publishers?",
			Text:     answer.ParseText("*Top* publisher is <b>Valve</b>"),
			Result: &warehouse.Result{
				Columns:  []warehouse.Column{{Name: "publisher", Type: "text"}, {Name: "games", Type: "int8"}},
				Rows:     [][]any{{"Valve <img src=x onerror=window.__xss=3>", int64(42)}, {"Ubisoft", int64(7)}},
				RowCount: 2,
			},
			Assumptions: []string{"A & B count once."},
			Actions:     nodes.Buttons(),
			QueryID:     "q_test",
			Elapsed:     1200 * time.Millisecond,
			Backend:     "sql",
		})
		got := renderLast(t, tb, msg.Blocks, `({
		  text: m.querySelector(".bk-section").textContent,
		  strong: m.querySelector(".bk-section strong")?.textContent,
		  headers: [...m.querySelectorAll("th")].map((c) => c.textContent),
		  cells: [...m.querySelectorAll("tbody tr")].map((r) => [...r.cells].map((c) => c.textContent)),
		  aligns: [...m.querySelectorAll("tbody tr:first-child td")].map((c) => c.style.textAlign),
		  context: m.querySelector(".bk-context").textContent,
		  buttons: [...m.querySelectorAll(".bk-actions button")].map((b) => [b.textContent, b.dataset.actionId, b.dataset.value]),
		  markup: m.querySelectorAll("img, b, script").length,
		})`)
		want := map[string]any{
			"text":    "Top publisher is <b>Valve</b>",
			"strong":  "Top",
			"headers": []any{"publisher", "games"},
			"cells":   []any{[]any{"Valve <img src=x onerror=window.__xss=3>", "42"}, []any{"Ubisoft", "7"}},
			"aligns":  []any{"left", "right"},
			"context": "Assumption: A & B count once.2 rows · in 1.2 s · via sql",
			"buttons": []any{[]any{"Export CSV", "export_csv", "q_test"}, []any{"Show SQL", "show_sql", "q_test"}},
			"markup":  float64(0),
		}
		assert.Equal(t, want, got, "the answer as drawn")
	})

	t.Run("data table", func(t *testing.T) {
		r := &warehouse.Result{Columns: []warehouse.Column{
			{Name: "name", Kind: warehouse.KindText}, {Name: "price_usd", Kind: warehouse.KindNumber}}}
		for i := range 25 {
			r.Rows = append(r.Rows, []any{fmt.Sprintf("game <%02d>", i), int64((i * 7) % 25 * 100)})
		}
		msg := blockkit.Render(answer.Answer{Question: "Prices?", Text: answer.ParseText("x"), Result: r, Actions: nodes.Buttons(), QueryID: "q_dt"})
		read := `({
		  caption: m.querySelector("caption")?.textContent,
		  rows: [...m.querySelectorAll(".bk-data_table tbody tr")].map((r) => [...r.cells].map((c) => c.textContent)),
		  align: m.querySelector(".bk-data_table tbody td:last-child")?.style.textAlign,
		  where: m.querySelector(".bk-pager-where")?.textContent,
		})`
		got := renderLast(t, tb, msg.Blocks, read)
		assert.Equal(t, "Prices?", got["caption"])
		assert.Len(t, got["rows"], 10, "a page of ten rows")
		assert.Equal(t, []any{"game <00>", "$0"}, got["rows"].([]any)[0])
		assert.Equal(t, "right", got["align"], "numbers to the right")
		assert.Equal(t, "1–10 of 25", got["where"])

		last := `document.querySelector("#log .msg.bot:last-child")`
		eval[chromedp.Void](t, tb, last+`.querySelectorAll(".bk-sort")[1].click()`)
		eval[chromedp.Void](t, tb, last+`.querySelectorAll(".bk-sort")[1].click()`)
		top := eval[[]string](t, tb, `[...`+last+`.querySelectorAll(".bk-data_table tbody tr:first-child td")].map((c) => c.textContent)`)
		assert.Equal(t, []string{"game <07>", "$2,400"}, top, "sorted by price, highest first, as numbers")
		eval[chromedp.Void](t, tb, last+`.querySelector(".bk-pager button:last-child").click()`)
		eval[chromedp.Void](t, tb, last+`.querySelector(".bk-pager button:last-child").click()`)
		assert.Equal(t, "21–25 of 25", eval[string](t, tb, last+`.querySelector(".bk-pager-where").textContent`), "the last page")
		assert.True(t, eval[bool](t, tb, last+`.querySelector(".bk-pager button:last-child").disabled`), "no page after the last")
	})

	t.Run("wide table says it scrolls", func(t *testing.T) {
		r := &warehouse.Result{}
		row := []any{}
		for i := range 20 {
			r.Columns = append(r.Columns, warehouse.Column{Name: fmt.Sprintf("a_rather_long_column_%02d", i), Kind: warehouse.KindText})
			row = append(row, "a value that takes room")
		}
		r.Rows = [][]any{row, row}
		msg := blockkit.Render(answer.Answer{Text: answer.ParseText("x"), Result: r})
		renderLast(t, tb, msg.Blocks, `({})`)
		tb.waitUntil(t, "the hint", `document.querySelector("#log > .msg.bot:last-child .scroll-hint")?.textContent === "Scroll sideways for more columns →"`)
	})

	t.Run("show SQL blocks", func(t *testing.T) {
		msg := blockkit.SQL("q_test", "SELECT a FROM t WHERE x < 3 AND y > 1", "Top publishers?")
		got := renderLast(t, tb, msg.Blocks, `({
		  title: m.querySelector(".bk-section").textContent,
		  sql: m.querySelector("pre code")?.textContent,
		  block: m.querySelector("pre").closest("[data-block-id]")?.dataset.blockId,
		})`)
		assert.Equal(t, map[string]any{"title": "SQL for: Top publishers?", "sql": "SELECT a FROM t WHERE x < 3 AND y > 1",
			"block": "sql:q_test:0"}, got, "the SQL as drawn")
	})

	t.Run("other blocks", func(t *testing.T) {
		const png = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
		blocks := []map[string]any{
			{"type": "header", "text": map[string]any{"type": "plain_text", "text": "Weekly <report>"}},
			{"type": "divider"},
			{"type": "section", "fields": []map[string]any{
				{"type": "mrkdwn", "text": "*Games*\n8160"}, {"type": "plain_text", "text": "<i>plain</i>"}}},
			{"type": "image", "image_url": png, "alt_text": "Games per year chart",
				"title": map[string]any{"type": "plain_text", "text": "Games per year"}},
			{"type": "image", "image_url": "javascript:window.__xss=4", "alt_text": "bad"},
			{"type": "rich_text", "elements": []map[string]any{
				{"type": "rich_text_section", "elements": []map[string]any{
					{"type": "text", "text": "rich "}, {"type": "text", "text": "bold", "style": map[string]any{"bold": true}}}},
				{"type": "rich_text_list", "style": "bullet", "elements": []map[string]any{
					{"type": "rich_text_section", "elements": []map[string]any{{"type": "text", "text": "item"}}}}}}},
			{"type": "mystery", "text": "never shown"},
			{"type": "context", "elements": []map[string]any{{"type": "mrkdwn", "text": "_small_"}}},
		}
		got := renderLast(t, tb, blocks, `({
		  blocks: [...m.querySelectorAll(".bk-block")].map((b) => b.dataset.blockType),
		  header: m.querySelector("h3").textContent,
		  fields: [...m.querySelectorAll(".bk-fields > *")].map((f) => f.textContent),
		  italics: m.querySelectorAll(".bk-fields i").length,
		  images: [...m.querySelectorAll("img")].map((i) => [i.alt, i.hasAttribute("src") ? i.src.slice(0, 15) : ""]),
		  caption: m.querySelector("figcaption").textContent,
		  rich: [m.querySelector(".bk-rich_text strong")?.textContent, m.querySelector(".bk-rich_text li")?.textContent],
		  context: m.querySelector(".bk-context em")?.textContent,
		})`)
		want := map[string]any{
			"blocks":  []any{"header", "divider", "section", "image", "image", "rich_text", "context"},
			"header":  "Weekly <report>",
			"fields":  []any{"Games\n8160", "<i>plain</i>"},
			"italics": float64(0),
			"images":  []any{[]any{"Games per year chart", "data:image/png;"}, []any{"bad", ""}},
			"caption": "Games per year",
			"rich":    []any{"bold", "item"},
			"context": "small",
		}
		assert.Equal(t, want, got, "the blocks as drawn")
	})

	// Had any text above become markup, one of its handlers would have set __xss by now.
	eval[chromedp.Void](t, tb, `new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))`)
	assert.Equal(t, "undefined", eval[string](t, tb, `typeof window.__xss`), "no script from the texts ran")
	assert.Empty(t, tb.problems(nil), "the page logs no errors")
}

// renderLast shows blocks as a new bot message, the way the page shows an
// answer, and returns what the JavaScript expression pick reads from it (m
// is the message's bubble).
func renderLast(t *testing.T, tb *tab, blocks any, pick string) map[string]any {
	t.Helper()
	data, err := json.Marshal(blocks)
	require.NoError(t, err, "encode blocks")
	return eval[map[string]any](t, tb, `(() => { analyticsbot.renderBlocks(`+string(data)+`);
	  const m = document.querySelector("#log > .msg.bot:last-child .bubble"); return `+pick+`; })()`)
}
