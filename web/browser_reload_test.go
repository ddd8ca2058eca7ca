package web

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// conversation reads the page's conversation as a person sees it: each
// message's role, its first line (the user's words, the answer's text or
// the query's heading), whether it says how it was answered, and the lines
// under it (a download, a rating's thanks).
const conversation = `[...document.querySelectorAll("#log > .msg")].map((m) => {
  const user = m.classList.contains("user");
  const first = user ? m.querySelector(".user-text") : m.querySelector(".answer-text, .answer-query-title");
  return {
    role: user ? "user" : "bot",
    text: first ? first.textContent.trim() : "",
    how: m.querySelector(".meta summary")?.textContent ?? "",
    error: m.querySelector(".bubble.error, .error-text") !== null,
    statuses: m.querySelectorAll(".action-status").length,
    sql: m.querySelector("pre code")?.textContent ?? "",
  };
})`

// TestBrowserShowSQLAndReload: Show SQL says its heading once, highlights
// the SQL and keeps the Copy button off it on a phone; a reload shows the
// conversation as it was shown live: no message of the user's for a
// button's press, and each answer's "How it was answered".
func TestBrowserShowSQLAndReload(t *testing.T) {
	t.Parallel()
	tb := newTab(t)
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{})
	tb.allowDownloads(t, t.TempDir())

	tb.do(t, "open the chat", chromedp.EmulateViewport(375, 812), chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(".chip")))
	tb.do(t, "ask "+q2018, chromedp.Click(button(q2018)), chromedp.WaitVisible(chromedp.CSS("#log .msg.bot .answer-actions")))
	tb.waitUntil(t, "the CSV is downloaded", `(document.querySelector('#log .answer-actions button[data-action="export_csv"]').click(), true)`)
	tb.waitUntil(t, "the download's line", `document.querySelector("#log .msg.bot .action-status") !== null`)
	tb.do(t, "click Show SQL", chromedp.Click(button("Show SQL")),
		chromedp.WaitVisible(chromedp.CSS("#log > .msg.bot:last-child pre code")))

	got := eval[map[string]any](t, tb, `(() => {
	  const m = document.querySelector("#log > .msg.bot:last-child .bubble");
	  const pre = m.querySelector("pre").getBoundingClientRect(), copy = m.querySelector(".copy").getBoundingClientRect();
	  return {
	    headings: (m.textContent.match(/SQL for/g) || []).length,
	    heading: m.querySelector(".answer-query-title").textContent,
	    keywords: [...m.querySelectorAll("pre .tok-keyword")].map((k) => k.textContent),
	    sql: m.querySelector("pre code").textContent,
	    copyOverSQL: copy.bottom > pre.top && copy.top < pre.bottom,
	  };
	})()`)
	assert.EqualValues(t, 1, got["headings"], "Show SQL says “SQL for” once")
	assert.Equal(t, "SQL for: "+q2018, got["heading"])
	assert.Equal(t, []any{"SELECT", "AS", "FROM", "WHERE"}, got["keywords"], "the SQL's keywords are highlighted")
	assert.Equal(t, "SELECT count(*) AS games\nFROM analytics.apps\nWHERE release_year = 2018", got["sql"], "the highlighted code is the SQL, to the character")
	assert.Equal(t, false, got["copyOverSQL"], "at 375 px the Copy button is above the SQL, not over it")

	live := eval[[]map[string]any](t, tb, conversation)
	require.Len(t, live, 3, "the question, its answer and the SQL: %v", live)
	assert.Equal(t, "user", live[0]["role"])
	assert.Contains(t, live[1]["how"], "How it was answered", "the answer says how it was answered")
	assert.EqualValues(t, 1, live[1]["statuses"], "the download's line under the answer")

	tb.do(t, "reload", chromedp.Reload())
	tb.waitUntil(t, "the conversation is back", `document.querySelectorAll("#log > .msg").length >= 3 && document.querySelector("#log pre code") !== null`)
	again := eval[[]map[string]any](t, tb, conversation)
	assert.Equal(t, live, again, "after a reload the page shows what it showed live")
	assert.Empty(t, tb.problems(nil), "the page logs no errors")
}

// TestBrowserDemoUnknownQuestion: a question the offline demo has no script
// for is answered as a notice with the questions it knows, not styled as an
// error with a reference to a log.
func TestBrowserDemoUnknownQuestion(t *testing.T) {
	t.Parallel()
	tb := newTab(t)
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{})

	tb.do(t, "open the chat", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS(".chip")))
	tb.do(t, "type a question", chromedp.SendKeys(chromedp.CSS("#question"), "Which genre has the best games?"), pressEnter)
	tb.waitUntil(t, "the reply", `document.querySelector("#log .msg.bot .answer-asks") !== null`)
	got := eval[map[string]any](t, tb, `(() => {
	  const m = document.querySelector("#log .msg.bot .bubble");
	  return { text: m.querySelector(".answer-text").textContent, error: m.matches(".error") || m.querySelector(".error-text") !== null,
	    heading: m.querySelector(".answer-asks-heading").textContent, chips: m.querySelectorAll(".answer-asks .chip").length };
	})()`)
	assert.Contains(t, got["text"], "This is the offline demo")
	assert.NotContains(t, got["text"], "⚠️")
	assert.NotContains(t, got["text"], "Reference", "nothing for an operator to look up")
	assert.Equal(t, false, got["error"], "not styled as an error")
	assert.Equal(t, "Try asking:", got["heading"])
	assert.EqualValues(t, 7, got["chips"], "every question the demo knows")
}
