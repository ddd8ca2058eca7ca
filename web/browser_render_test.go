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
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// TestBrowserRendering checks, in Chromium, how the page draws replies:
// text with emphasis and links, a table with formatted cells that sorts and
// pages, the small print, buttons, questions to ask, the query behind an
// answer, and that text from the model or the data never becomes markup.
func TestBrowserRendering(t *testing.T) {
	t.Parallel()
	tb := newTab(t)
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{})
	tb.do(t, "open the chat", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS(".chip")))

	t.Run("text", func(t *testing.T) {
		tests := []struct {
			name  string
			spans answer.Text
			want  string // innerHTML of the drawn text
		}{
			{name: "emphasis", spans: answer.ParseText("*8160* games _about_ `n < 3` and **more**"),
				want: "<strong>8160</strong> games <em>about</em> <code>n &lt; 3</code> and <strong>more</strong>"},
			{name: "markers inside words stay", spans: answer.ParseText("release_year = 2018, 2*3*4 and snake_case_name"),
				want: "release_year = 2018, 2*3*4 and snake_case_name"},
			{name: "raw markup is text", spans: answer.Plain("<img src=x onerror=window.__xss=1><script>window.__xss=2</script>"),
				want: "&lt;img src=x onerror=window.__xss=1&gt;&lt;script&gt;window.__xss=2&lt;/script&gt;"},
			{name: "link", spans: answer.ParseText("[Example](https://example.com/a?b=1&c=2)"),
				want: `<a href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">Example</a>`},
			{name: "unsafe links are text", spans: answer.Text{{Text: "click me", Link: "javascript:window.__xss=5"}, {Text: " data", Link: "data:text/html,x"}},
				want: "click me data"},
			{name: "bold link", spans: answer.Text{{Text: "Valve", Bold: true, Link: "https://example.com/v"}},
				want: `<strong><a href="https://example.com/v" target="_blank" rel="noopener noreferrer">Valve</a></strong>`},
			{name: "line breaks kept", spans: answer.Plain("a\n• b"), want: "a\n• b"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got := renderLast(t, tb, replyView{Kind: answer.KindAnswer, Text: tt.spans}, `({ html: m.querySelector(".answer-text").innerHTML })`)
				assert.Equal(t, tt.want, got["html"], "spans %+v", tt.spans)
			})
		}
	})

	t.Run("answer", func(t *testing.T) {
		v := newView(&answer.Answer{
			Kind:     answer.KindAnswer,
			Question: "Top publishers?",
			Text:     answer.ParseText("*Top* publisher is <b>Valve</b>"),
			Result: &warehouse.Result{
				Columns:  []warehouse.Column{{Name: "publisher", Kind: warehouse.KindText}, {Name: "games", Kind: warehouse.KindNumber}},
				Rows:     [][]any{{"Valve <img src=x onerror=window.__xss=3>", int64(4200)}, {"Ubisoft", int64(7)}},
				RowCount: 2,
			},
			Assumptions: []string{"A & B count once."},
			Actions:     nodes.Buttons(),
			QueryID:     "q_test",
			Feedback:    true,
			FollowUps:   []string{"And in 2017?"},
			Elapsed:     1200 * time.Millisecond,
			Backend:     "postgres",
		})
		got := renderLast(t, tb, v, `({
		  text: m.querySelector(".answer-text").textContent,
		  strong: m.querySelector(".answer-text strong")?.textContent,
		  headers: [...m.querySelectorAll("th")].map((c) => c.textContent),
		  names: [...m.querySelectorAll("th .sort")].map((c) => c.title),
		  cells: [...m.querySelectorAll("tbody tr")].map((r) => [...r.cells].map((c) => c.textContent)),
		  aligns: [...m.querySelectorAll("tbody tr:first-child td")].map((c) => getComputedStyle(c).textAlign),
		  context: [...m.querySelectorAll(".answer-context > *")].map((c) => c.textContent),
		  buttons: [...m.querySelectorAll(".answer-actions button")].map((b) => [b.textContent, b.dataset.action, b.dataset.value]),
		  next: [...m.querySelectorAll(".answer-asks")].map((g) => [g.querySelector("p").textContent, ...[...g.querySelectorAll("button")].map((b) => b.textContent)]),
		  feedback: [...m.querySelectorAll(".answer-feedback button")].map((b) => b.getAttribute("aria-label")),
		  pager: m.querySelector(".pager") !== null,
		  markup: m.querySelectorAll("img, b, script").length,
		})`)
		want := map[string]any{
			"text":     "Top publisher is <b>Valve</b>",
			"strong":   "Top",
			"headers":  []any{"Publisher", "Games"},
			"names":    []any{"publisher", "games"},
			"cells":    []any{[]any{"Valve <img src=x onerror=window.__xss=3>", "4,200"}, []any{"Ubisoft", "7"}},
			"aligns":   []any{"left", "right"},
			"context":  []any{"Assumption: A & B count once.", "2 rows · in 1.2 s · via postgres"},
			"buttons":  []any{[]any{"Export CSV", "export_csv", "q_test"}, []any{"Show SQL", "show_sql", "q_test"}},
			"next":     []any{[]any{"You could ask next:", "And in 2017?"}},
			"feedback": []any{"This answer is right", "This answer is wrong"},
			"pager":    false,
			"markup":   float64(0),
		}
		assert.Equal(t, want, got, "the answer as drawn")
	})

	t.Run("long table sorts and pages", func(t *testing.T) {
		r := &warehouse.Result{Columns: []warehouse.Column{
			{Name: "name", Kind: warehouse.KindText}, {Name: "price_usd", Kind: warehouse.KindNumber}}}
		for i := range 45 {
			r.Rows = append(r.Rows, []any{fmt.Sprintf("game <%02d>", i), int64((i * 7) % 45 * 100)})
		}
		r.Rows = append(r.Rows, []any{"no price", nil})
		r.RowCount = len(r.Rows)
		v := newView(&answer.Answer{Question: "Prices?", Text: answer.ParseText("x"), Result: r, Actions: nodes.Buttons(), QueryID: "q_dt"})
		read := `({
		  label: m.querySelector(".table-wrap").getAttribute("aria-label"),
		  rows: [...m.querySelectorAll(".answer-table tbody tr")].map((r) => [...r.cells].map((c) => c.textContent)),
		  where: m.querySelector(".pager-where")?.textContent,
		})`
		got := renderLast(t, tb, v, read)
		assert.Equal(t, "Result: Prices?", got["label"])
		assert.Len(t, got["rows"], 10, "a page of ten rows")
		assert.Equal(t, []any{"game <00>", "$0"}, got["rows"].([]any)[0])
		assert.Equal(t, "1–10 of 46", got["where"])

		last := `document.querySelector("#log .msg.bot:last-child")`
		eval[chromedp.Void](t, tb, last+`.querySelectorAll(".sort")[1].click()`)
		eval[chromedp.Void](t, tb, last+`.querySelectorAll(".sort")[1].click()`)
		top := eval[[]string](t, tb, `[...`+last+`.querySelectorAll(".answer-table tbody tr:first-child td")].map((c) => c.textContent)`)
		assert.Equal(t, []string{"game <32>", "$4,400"}, top, "sorted by price, highest first, as numbers (not as text: $900 > $4,400)")
		// README: every header sorts, marked ↕, ▲ or ▼.
		marks := eval[[]string](t, tb, `[...`+last+`.querySelectorAll(".answer-table th .sort")].map((b) => getComputedStyle(b, "::after").content)`)
		assert.Equal(t, []string{`"↕"`, `"▼"`}, marks, "the sorted column marked, the other sortable")
		eval[chromedp.Void](t, tb, last+`.querySelectorAll(".sort")[0].click()`)
		marks = eval[[]string](t, tb, `[...`+last+`.querySelectorAll(".answer-table th .sort")].map((b) => getComputedStyle(b, "::after").content)`)
		assert.Equal(t, []string{`"▲"`, `"↕"`}, marks, "a text column sorts A to Z first")
		eval[chromedp.Void](t, tb, last+`.querySelectorAll(".sort")[1].click()`)
		eval[chromedp.Void](t, tb, last+`.querySelectorAll(".sort")[1].click()`)
		eval[chromedp.Void](t, tb, `(() => { const next = `+last+`.querySelector(".pager button:last-child");
		  for (let i = 0; i < 10 && !next.disabled; i++) next.click(); })()`)
		assert.Equal(t, "41–46 of 46", eval[string](t, tb, last+`.querySelector(".pager-where").textContent`), "the last page")
		assert.True(t, eval[bool](t, tb, last+`.querySelector(".pager button:last-child").disabled`), "no page after the last")
		lastRow := eval[[]string](t, tb, `[...`+last+`.querySelectorAll(".answer-table tbody tr:last-child td")].map((c) => c.textContent)`)
		assert.Equal(t, []string{"no price", answer.NullText}, lastRow, "NULL sorts after every number")
	})

	// README: results longer than 20 rows come in pages of 10; 20 rows
	// show whole.
	t.Run("pages from the 21st row", func(t *testing.T) {
		for _, tt := range []struct {
			rows, shown int
			where       string
		}{{20, 20, ""}, {21, 10, "1–10 of 21"}} {
			r := &warehouse.Result{Columns: []warehouse.Column{
				{Name: "name", Kind: warehouse.KindText}, {Name: "games", Kind: warehouse.KindNumber}}}
			for i := range tt.rows {
				r.Rows = append(r.Rows, []any{fmt.Sprintf("studio %02d", i), int64(100 + i)})
			}
			r.RowCount = len(r.Rows)
			v := newView(&answer.Answer{Question: fmt.Sprintf("%d studios?", tt.rows), Text: answer.ParseText("x"), Result: r, QueryID: fmt.Sprintf("q_p%d", tt.rows)})
			got := renderLast(t, tb, v, `({
			  rows: m.querySelectorAll(".answer-table tbody tr").length,
			  where: m.querySelector(".pager-where")?.textContent || "",
			})`)
			assert.EqualValues(t, tt.shown, got["rows"], "%d rows: shown at once", tt.rows)
			assert.Equal(t, tt.where, got["where"], "%d rows: the pager", tt.rows)
		}
	})

	// README: bars turn sideways when their labels need room; a line
	// labels as many points as fit, always the last.
	t.Run("charts make room for their labels", func(t *testing.T) {
		read := `(() => {
		  const cats = [...m.querySelectorAll(".answer-chart svg .chart-cat")];
		  return { anchors: [...new Set(cats.map((c) => c.getAttribute("text-anchor")))], labels: cats.length,
		    last: cats.length ? cats[cats.length - 1].textContent : "" };
		})()`
		bars := func(cats []string) *replyView {
			values := make([]float64, len(cats))
			for i := range values {
				values[i] = float64(10 + i)
			}
			return &replyView{Kind: answer.KindAnswer, Text: answer.Plain("x"),
				Chart: &chartView{Type: "bar", Title: "Games", Categories: cats, Series: []seriesValue{{Name: "games", Values: values}}}}
		}
		short := renderLast(t, tb, bars([]string{"A", "B", "C", "D"}), read)
		assert.Equal(t, []any{"middle"}, short["anchors"], "short labels sit under upright bars")
		var long []string
		for i := range 12 {
			long = append(long, fmt.Sprintf("A rather long publisher name %02d", i))
		}
		wide := renderLast(t, tb, bars(long), read)
		assert.Equal(t, []any{"end"}, wide["anchors"], "long labels turn the bars sideways, each label left of its bar")
		assert.EqualValues(t, 12, wide["labels"], "every bar labelled")

		var days []string
		var values []float64
		for i := range 90 {
			days = append(days, fmt.Sprintf("2019-%02d-%02d", 1+i/28, 1+i%28))
			values = append(values, float64(i))
		}
		line := renderLast(t, tb, &replyView{Kind: answer.KindAnswer, Text: answer.Plain("x"),
			Chart: &chartView{Type: "line", Title: "Daily", Categories: days, Series: []seriesValue{{Name: "n", Values: values}}}}, read)
		assert.Less(t, line["labels"], 90.0, "not every one of 90 points labelled")
		assert.Greater(t, line["labels"], 2.0, "but as many as fit")
		assert.Equal(t, days[89], line["last"], "the last point always")
	})

	t.Run("wide table says it scrolls", func(t *testing.T) {
		r := &warehouse.Result{}
		row := []any{}
		for i := range 30 {
			r.Columns = append(r.Columns, warehouse.Column{Name: fmt.Sprintf("a_rather_long_column_%02d", i), Kind: warehouse.KindText})
			row = append(row, "a value that takes room")
		}
		r.Rows = [][]any{row, row}
		got := renderLast(t, tb, newView(&answer.Answer{Text: answer.ParseText("x"), Result: r}), `({ columns: m.querySelectorAll("th").length })`)
		assert.EqualValues(t, 30, got["columns"], "every column, past Slack's 20")
		tb.waitUntil(t, "the hint", `document.querySelector("#log > .msg.bot:last-child .scroll-hint")?.textContent === "Scroll sideways for more columns →"`)
	})

	t.Run("show SQL", func(t *testing.T) {
		v := newView(&answer.Answer{Kind: answer.KindQuery, Question: "Top publishers?", QueryID: "q_test",
			Query: &warehouse.Shown{Language: "SQL", Text: "SELECT a\nFROM t\nWHERE x < 3 AND y > 1"}})
		got := renderLast(t, tb, v, `({
		  title: m.querySelector(".answer-query-title").textContent,
		  sql: m.querySelector("pre code")?.textContent,
		  copy: m.querySelector(".code-box .copy")?.textContent,
		})`)
		assert.Equal(t, map[string]any{"title": "SQL for: Top publishers?", "sql": "SELECT a\nFROM t\nWHERE x < 3 AND y > 1", "copy": "Copy"}, got)

		cube := newView(&answer.Answer{Kind: answer.KindQuery, Question: "Games?", QueryID: "q_cube",
			Query: &warehouse.Shown{Language: "Cube query", Text: `{"measures": ["apps.count"]}`, SQL: "SELECT count(*) FROM apps", SQLBy: "Cube"}})
		got = renderLast(t, tb, cube, `({
		  titles: [...m.querySelectorAll(".answer-query-title")].map((p) => p.textContent),
		  code: [...m.querySelectorAll("pre code")].map((c) => c.textContent),
		})`)
		assert.Equal(t, []any{"Cube query for: Games?", "SQL that Cube runs for it:"}, got["titles"])
		assert.Equal(t, []any{`{"measures": ["apps.count"]}`, "SELECT count(*) FROM apps"}, got["code"])
	})

	t.Run("error and notice", func(t *testing.T) {
		e := newView(&answer.Answer{Kind: answer.KindError, Text: answer.Plain("The database is not answering."),
			Questions: []string{"How many games were released in 2018?"}})
		got := renderLast(t, tb, e, `({
		  text: m.querySelector(".answer-text").textContent,
		  asks: [...m.querySelectorAll(".answer-asks p, .answer-asks button")].map((n) => n.textContent),
		  buttons: m.querySelectorAll(".answer-actions, .answer-feedback").length,
		})`)
		assert.Equal(t, map[string]any{"text": "⚠️ The database is not answering.",
			"asks": []any{"You could try:", "How many games were released in 2018?"}, "buttons": float64(0)}, got)

		n := newView(&answer.Answer{Kind: answer.KindNotice, Text: answer.Plain("I answer questions about the data."),
			Questions: []string{"Which publishers released the most games?"}})
		got = renderLast(t, tb, n, `({ asks: [...m.querySelectorAll(".answer-asks p")].map((n) => n.textContent) })`)
		assert.Equal(t, []any{"Try asking:"}, got["asks"])
		// Choosing a question asks it in the thread, as if typed.
		tb.do(t, "choose the question", chromedp.Click(chromedp.CSS("#log > .msg.bot:last-child .answer-asks .chip")))
		tb.waitUntil(t, "it is asked", `document.querySelector("#log > .msg.user:nth-last-child(2)")?.textContent.trim() === "Which publishers released the most games?"`)
		tb.waitUntil(t, "and answered", `document.querySelector("#log > .msg.bot:last-child .answer-chart") !== null`)
	})

	t.Run("asked back", func(t *testing.T) {
		const q = "How many games did Bethesda publish?"
		c := newView(&answer.Answer{Kind: answer.KindClarify, Question: q, Text: answer.Plain("Which Bethesda do you mean?"),
			Choices: []answer.Choice{{Label: "Bethesda Softworks", Ask: q + " (Bethesda Softworks)"}, {Label: "All three", Ask: q + " (All three)"}}})
		got := renderLast(t, tb, c, `({
		  text: m.querySelector(".answer-text").textContent,
		  chips: [...m.querySelectorAll(".answer-asks .chip")].map((n) => n.textContent),
		  headings: m.querySelectorAll(".answer-asks p").length,
		  buttons: m.querySelectorAll(".answer-actions, .answer-feedback").length,
		})`)
		assert.Equal(t, map[string]any{"text": "Which Bethesda do you mean?", "chips": []any{"Bethesda Softworks", "All three"},
			"headings": float64(0), "buttons": float64(0)}, got)
		// Choosing asks the question again with the choice, in the thread.
		tb.do(t, "choose", chromedp.Click(chromedp.CSS("#log > .msg.bot:last-child .answer-asks .chip")))
		tb.waitUntil(t, "it is asked", `document.querySelector("#log > .msg.user:nth-last-child(2)")?.textContent.trim() === "`+q+` (Bethesda Softworks)"`)
		tb.waitUntil(t, "and answered", `document.querySelector("#log > .msg.bot:last-child .answer-text")?.textContent.includes("(Bethesda Softworks): 35")`)
	})

	// Had any text above become markup, one of its handlers would have set __xss by now.
	eval[chromedp.Void](t, tb, `new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))`)
	assert.Equal(t, "undefined", eval[string](t, tb, `typeof window.__xss`), "no script from the texts ran")
	assert.Empty(t, tb.problems(nil), "the page logs no errors")
}

// renderLast shows a reply as a new bot message, the way the page shows an
// answer, and returns what the JavaScript expression pick reads from it (m
// is the message's bubble).
func renderLast(t *testing.T, tb *tab, reply any, pick string) map[string]any {
	t.Helper()
	data, err := json.Marshal(reply)
	require.NoError(t, err, "encode the reply")
	return eval[map[string]any](t, tb, `(() => { analyticsbot.renderReply(`+string(data)+`);
	  const m = document.querySelector("#log > .msg.bot:last-child .bubble"); return `+pick+`; })()`)
}
