package web

import (
	"os"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chartScreenshot is where TestBrowserChart copies its screenshot: the
// README's picture of the web chat comes from it.
const chartScreenshot = "/tmp/analyticsbot-webchat-chart.png"

// TestBrowserChart: an answer whose result has a shape for a chart shows
// it as inline SVG, with the values in its accessible name, at desktop
// width and at 375 px.
func TestBrowserChart(t *testing.T) {
	t.Parallel()
	tb := newTab(t)
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{})

	tb.do(t, "open the chat", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS(".chip")))
	tb.do(t, "ask for publishers", chromedp.Click(button("Which publishers released the most games?")),
		chromedp.WaitVisible(chromedp.CSS("#log .msg.bot .answer-chart svg")))
	bars := eval[map[string]any](t, tb, `(() => {
	  const fig = document.querySelector("#log .msg.bot .answer-chart");
	  return {
	    title: fig.querySelector("figcaption").textContent,
	    bars: fig.querySelectorAll("svg rect").length,
	    label: fig.querySelector("svg").getAttribute("aria-label"),
	    external: [...fig.querySelectorAll("[href], image")].length,
	  };
	})()`)
	assert.Equal(t, "Games by publisher", bars["title"])
	assert.EqualValues(t, 10, bars["bars"], "a bar per publisher")
	assert.Contains(t, bars["label"], "Big Fish Games 213", "the values in the chart's accessible name")
	assert.EqualValues(t, 0, bars["external"], "nothing loaded from elsewhere")
	links := eval[map[string]any](t, tb, `(() => {
	  const msg = document.querySelector("#log .msg.bot");
	  const cells = [...msg.querySelectorAll(".answer-table td a")];
	  return {
	    cells: cells.length,
	    first: cells[0]?.href, rel: cells[0]?.rel,
	    text: msg.querySelector(".answer-text a")?.textContent,
	  };
	})()`)
	assert.EqualValues(t, 10, links["cells"], "each publisher links to its games (the demo's links file)")
	assert.Equal(t, "https://store.steampowered.com/search/?publisher=Big+Fish+Games", links["first"])
	assert.Equal(t, "noopener noreferrer", links["rel"])
	assert.Equal(t, "Big Fish Games", links["text"], "the name in the answer links too")

	// The answer's follow-ups are buttons that ask in the same thread.
	hash := eval[string](t, tb, `location.hash`)
	tb.do(t, "click a follow-up", chromedp.Click(button("How many games were released per year?")))
	tb.waitUntil(t, "the line chart", `document.querySelectorAll("#log .answer-chart polyline").length === 1`)
	asked := eval[[]string](t, tb, `[...document.querySelectorAll("#log .msg.user")].map((m) => m.textContent.trim())`)
	assert.Equal(t, []string{"Which publishers released the most games?", "How many games were released per year?"}, asked,
		"the follow-up is asked as if typed")
	assert.Equal(t, hash, eval[string](t, tb, `location.hash`), "in the same thread")
	title := eval[string](t, tb, `[...document.querySelectorAll("#log .answer-chart figcaption")].pop().textContent`)
	assert.Equal(t, "Games released per year (last 20 of 23)", title, "the title the interpreter proposed")

	shot := tb.screenshot(t, "webchat-chart.png", 1024)
	if data, err := os.ReadFile(shot); assert.NoError(t, err) {
		require.NoError(t, os.WriteFile(chartScreenshot, data, 0o644))
	}
	tb.do(t, "narrow the viewport", chromedp.EmulateViewport(375, 740))
	got := eval[map[string]int](t, tb, `(() => {
	  const widest = Math.max(...[...document.querySelectorAll(".answer-chart")].map((e) => Math.ceil(e.getBoundingClientRect().right)));
	  return { client: document.documentElement.clientWidth, scroll: document.documentElement.scrollWidth, widest };
	})()`)
	assert.LessOrEqual(t, got["scroll"], got["client"], "no sideways scroll at 375 px")
	assert.LessOrEqual(t, got["widest"], 375, "the charts fit at 375 px")
	tb.screenshot(t, "webchat-chart-375.png", 375)
	assert.Empty(t, tb.problems(nil), "the page logs no errors")
}
