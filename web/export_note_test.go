package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
)

const qPerYear = "How many games were released per year?"

// cutExports is a bot whose answers hold 5 rows and whose exports 10: the
// demo's games per year (more years than that) is cut in both.
func cutExports(c *bot.Config) { c.MaxRows, c.ExportMaxRows = 5, 10 }

// README: a CSV export cut at EXPORT_MAX_ROWS says so wherever it is
// downloaded. On the web the file comes with X-Export-Note, which the page
// shows beside the download; a whole export has none.
func TestExportCutSaysSo(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "", cutExports)
	srv := newTestServer(t, b, Config{})
	end := lastMessageEnd(t, chat(t, srv, "", qPerYear, nil).all(t))
	resp, body := doJSON(t, srv, http.MethodPost, "/api/actions",
		map[string]string{"thread_id": end.ThreadID, "action": string(nodes.IntentExportCSV), "value": end.QueryID}, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	assert.Len(t, strings.Split(strings.TrimSpace(string(body)), "\n"), 11, "a header and 10 rows:\n%s", body)
	note, err := url.PathUnescape(resp.Header.Get("X-Export-Note"))
	require.NoError(t, err)
	assert.Equal(t, "The export was limited to 10 rows.", note)

	whole := lastMessageEnd(t, chat(t, srv, "", q2018, nil).all(t))
	resp, body = doJSON(t, srv, http.MethodPost, "/api/actions",
		map[string]string{"thread_id": whole.ThreadID, "action": string(nodes.IntentExportCSV), "value": whole.QueryID}, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	assert.Empty(t, resp.Header.Values("X-Export-Note"), "a whole export says nothing of the kind")
}

// The page shows the note beside the download's line.
func TestBrowserExportCutSaysSo(t *testing.T) {
	t.Parallel()
	tb := newTab(t)
	b := newTestBot(t, "", cutExports)
	srv := newTestServer(t, b, Config{})
	tb.allowDownloads(t, t.TempDir())
	tb.do(t, "open the chat", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS(".chip")))
	tb.do(t, "ask "+qPerYear, chromedp.SendKeys(chromedp.CSS("#question"), qPerYear), pressEnter,
		chromedp.WaitVisible(chromedp.CSS("#log .msg.bot .answer-actions")))
	tb.waitUntil(t, "the CSV is downloaded", `(document.querySelector('#log .answer-actions button[data-action="export_csv"]').click(), true)`)
	tb.waitUntil(t, "the download's line", `document.querySelector("#log .msg.bot .action-status") !== null`)
	line := eval[string](t, tb, `document.querySelector("#log .msg.bot .action-status").textContent`)
	assert.Regexp(t, `^Downloaded .+\.csv \(.+\)\. The export was limited to 10 rows\.$`, line)
}
