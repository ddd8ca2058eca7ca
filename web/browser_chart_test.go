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
	// Values and ticks: at most two decimals, but a small value to its
	// first significant digits rather than 0, and never "-0".
	assert.Equal(t, []any{"1,234.57", "0.0042", "-0.0012", "0"},
		eval[[]any](t, tb, `[1234.567, 0.0042, -0.0012, -0].map(Chart.formatNumber)`))
	assert.Equal(t, []any{"-0.3", "-0.2", "-0.1", "0", "0.1"},
		eval[[]any](t, tb, `Chart.ticks([-0.25, 0.1]).list.map(Chart.formatNumber)`), "the zero tick is 0, not float noise")
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
	line := eval[map[string]any](t, tb, `(() => {
	  const fig = [...document.querySelectorAll("#log .answer-chart")].pop();
	  return { title: fig.querySelector("figcaption").textContent, points: fig.querySelectorAll("svg circle").length,
	    partial: fig.querySelectorAll("svg .chart-point-partial, svg .chart-partial").length, note: fig.querySelector(".chart-note")?.textContent,
	    label: fig.querySelector("svg").getAttribute("aria-label") };
	})()`)
	assert.Equal(t, "Games released per year", line["title"], "the title the interpreter proposed")
	assert.EqualValues(t, 23, line["points"], "every year, 1997 to 2019: Slack's 20-point limit is Slack's alone")
	assert.Contains(t, line["label"], "1997 1, 1998 1, 1999 2")
	assert.EqualValues(t, 2, line["partial"], "the partial 2019 is shaded and its point drawn hollow")
	assert.Equal(t, "2019 is shaded: the data covers only part of it.", line["note"])

	shot := tb.screenshot(t, "webchat-chart.png", 1024)
	if data, err := os.ReadFile(shot); assert.NoError(t, err) {
		require.NoError(t, os.WriteFile(chartScreenshot, data, 0o644))
	}
	// On a wide screen a chart takes the width its table leaves: no fixed width, no empty card.
	filled := eval[[]float64](t, tb, `[...document.querySelectorAll("#log .answer-data")].map((d) => {
	  const used = [...d.children].reduce((a, c) => Math.max(a, c.getBoundingClientRect().right), 0) - d.getBoundingClientRect().left;
	  return used / d.clientWidth;
	})`)
	require.Len(t, filled, 2, "both answers show a chart with its table")
	for _, f := range filled {
		assert.InDelta(t, 1, f, 0.02, "the chart and its table fill the answer's width: %v", filled)
	}
	assert.Greater(t, eval[float64](t, tb, `document.querySelector("#log .answer-chart").getBoundingClientRect().width`), 600.0,
		"the chart beside a narrow table is wide")

	tb.do(t, "narrow the viewport", chromedp.EmulateViewport(375, 740))
	// The charts are drawn again for the width they now get.
	tb.waitUntil(t, "the charts are laid out again", `[...document.querySelectorAll("#log .answer-chart svg")].every((s) =>
	  Math.abs(s.viewBox.baseVal.width - s.parentElement.clientWidth) < 2 || s.closest(".chart-pie"))`)
	fonts := eval[map[string]float64](t, tb, `(() => {
	  let least = Infinity, labels = 0;
	  for (const svg of document.querySelectorAll("#log .answer-chart svg")) {
	    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
	    for (const text of svg.querySelectorAll("text")) {
	      labels++;
	      least = Math.min(least, parseFloat(getComputedStyle(text).fontSize) * scale);
	    }
	  }
	  return { least, labels };
	})()`)
	assert.Greater(t, fonts["labels"], 20.0, "the charts have their labels")
	assert.GreaterOrEqual(t, fonts["least"], 11.0, "at 375 px every chart label is at least 11 px on screen: %v", fonts)
	got := eval[map[string]int](t, tb, `(() => {
	  const widest = Math.max(...[...document.querySelectorAll(".answer-chart")].map((e) => Math.ceil(e.getBoundingClientRect().right)));
	  return { client: document.documentElement.clientWidth, scroll: document.documentElement.scrollWidth, widest };
	})()`)
	assert.LessOrEqual(t, got["scroll"], got["client"], "no sideways scroll at 375 px")
	assert.LessOrEqual(t, got["widest"], 375, "the charts fit at 375 px")
	tb.screenshot(t, "webchat-chart-375.png", 375)
	assert.Empty(t, tb.problems(nil), "the page logs no errors")
}
