package web

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// Questions of the sales data's examples file (salesExamples).
const (
	qGames    = "How many games do we sell?"
	qPayroll  = "What do we pay in salaries?"
	qNoStores = "How many stores are there?" // its table does not exist
)

// salesExamples is an examples file for the sales data: two questions
// whose queries run on it, one whose table it lacks.
const salesExamples = `
- question: ` + qGames + `
  sql: SELECT count(*) AS games FROM sales.games
- question: ` + qPayroll + `
  sql: SELECT sum(amount) AS paid FROM sales.salaries
- question: ` + qNoStores + `
  sql: SELECT count(*) AS stores FROM sales.stores
`

// salesBot is a bot with a model of its own (no demo) on a database of its
// own that holds sales data, not the demo's, with the examples file
// examples and, unless empty, the access file accessText.
func salesBot(t *testing.T, examples, accessText string) *bot.Bot {
	t.Helper()
	needDB(t)
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(ctx, `CREATE SCHEMA sales;
		CREATE TABLE sales.games (id int, released date);
		CREATE TABLE sales.salaries (id int, amount numeric)`)
	require.NoError(t, err)
	require.NoError(t, pgwarehouse.Grant(ctx, db.Pool(), "", []string{"sales"}))
	file := filepath.Join(t.TempDir(), "examples.yaml")
	require.NoError(t, os.WriteFile(file, []byte(examples), 0o600))
	return bottest.New(t, url, demoScript(""), func(c *bot.Config) {
		c.Postgres.Schemas, c.SQLExamples, c.Domain = []string{"sales"}, file, "our sales"
		if accessText != "" {
			c.AccessFile = accessFile(t, accessText)
		}
	})
}

// GET /api/examples (the web chat's welcome chips) offers the questions
// Slack's Messages tab does: the examples whose queries run on this data
// and that the web user's policy permits; none when there are none.
func TestExamplesOnOtherData(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		examples string
		access   string
		want     []string
	}{
		{name: "the examples that run on this data", examples: salesExamples, want: []string{qGames, qPayroll}},
		{name: "those the web's policy permits", examples: salesExamples, access: `
access:
  channels: [web]
policies:
  - name: web
    channels: [web]
    tables: ["sales.games"]
default: none
`, want: []string{qGames}},
		{name: "none where the web user is not answered", examples: salesExamples, access: `
access:
  channels: [CELSEWHERE]
policies:
  - name: sales
    channels: [CELSEWHERE]
    tables: ["sales.*"]
default: none
`, want: []string{}},
		{name: "none that run", examples: "- question: " + qNoStores + "\n  sql: SELECT count(*) FROM sales.stores\n", want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := salesBot(t, tt.examples, tt.access)
			resp, data := doJSON(t, newTestServer(t, b, Config{}), http.MethodGet, "/api/examples", nil, nil)
			require.Equal(t, http.StatusOK, resp.StatusCode, "status; body %s", data)
			var got struct {
				Domain   string   `json:"domain"`
				Examples []string `json:"examples"`
				Demo     bool     `json:"demo"`
			}
			require.NoError(t, json.Unmarshal(data, &got), "body %s", data)
			assert.Equal(t, "our sales", got.Domain)
			assert.False(t, got.Demo, "a model of its own")
			assert.ElementsMatch(t, tt.want, got.Examples, "examples")
			assert.NotContains(t, string(data), "null", "no nulls for the page to trip on")
		})
	}
}

// The welcome of the web chat on data other than the demo's: its examples
// as chips, which ask them; without examples, no chip row, and a hint to
// type a question.
func TestBrowserWelcomeOnOtherData(t *testing.T) {
	t.Parallel()
	tb := newTab(t)
	withExamples := newTestServer(t, salesBot(t, salesExamples, ""), Config{})
	without := newTestServer(t, salesBot(t, "- question: "+qNoStores+"\n  sql: SELECT count(*) FROM sales.stores\n", ""), Config{})

	tb.do(t, "open the chat", chromedp.Navigate(withExamples.URL+"/"), chromedp.WaitVisible(chromedp.CSS(".welcome .chip")))
	chips := eval[[]string](t, tb, `[...document.querySelectorAll(".welcome .chip")].map((c) => c.textContent)`)
	assert.ElementsMatch(t, []string{qGames, qPayroll}, chips, "the examples that run on this data, as chips")
	assert.Equal(t, "Ask a question about our sales", eval[string](t, tb, `document.querySelector(".welcome h2").textContent`))

	tb.do(t, "open the chat without examples", chromedp.Navigate(without.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(".welcome .hint")))
	got := eval[map[string]any](t, tb, `({ chips: document.querySelectorAll(".welcome .chip").length,
	  rows: document.querySelectorAll(".welcome .chips").length,
	  hint: document.querySelector(".welcome .hint").textContent })`)
	assert.Equal(t, map[string]any{"chips": 0.0, "rows": 0.0, "hint": "Type a question below and press Enter."}, got,
		"no chips and no empty row for them")
}
