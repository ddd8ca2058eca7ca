package bot_test

import (
	"context"
	"encoding/json"
	"github.com/analyticsbot/analyticsbot/blockkit"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// Facts of the demo data the answers must quote, checked against the Steam
// dataset rather than computed by the code under test.
const (
	games2018 = 8160
	games2017 = 6357
)

// sql2018 is the query the test script writes for the 2018 question; its id
// is what the buttons carry.
const sql2018 = "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018"

// testEnv is the package's database: migrated, with the demo data loaded
// once, shared by every bot the tests build.
type testEnv struct {
	// url is the database the bots connect to (as the owner role; the
	// executor switches to the reader role itself).
	url string
	// admin is a separate pool for the tests' own SQL.
	admin *store.DB
}

// newEnv creates the package's database and loads the demo data into it.
func newEnv(t testing.TB) *testEnv {
	t.Helper()
	db, url := storetest.NewWithURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, bottest.LoadDemo(ctx, db), "load the demo data")
	return &testEnv{url: url, admin: db}
}

// baseRules answer the questions the tests ask. A test puts its own rules
// first: the scripted model takes the first rule that matches.
const baseRules = `
  - step: classify
    match: '(?im)^Question: .*\b(joke|weather|poem)\b'
    reply: '{"intent": "off_topic", "confidence": 0.95}'
  - step: classify
    reply: '{"intent": "analytics_query", "confidence": 0.9}'
  - step: generate_sql
    match: '(?im)^Question: how many games were released in (?P<year>\d{4})'
    reply: |
      {"sql": "SELECT count(*) AS games FROM analytics.apps WHERE release_year = ${year}",
       "assumptions": ["A game counts in the year of its release date on the Steam store.", "The data covers releases up to May 2019."],
       "explanation": "Counts apps released in ${year}."}
  - step: generate_sql
    match: '(?im)^Question: .*\bpublishers?\b'
    reply: |
      {"sql": "SELECT p.name AS publisher, count(*) AS games FROM analytics.apps a JOIN analytics.app_publishers ap ON ap.app_id = a.app_id JOIN analytics.publishers p ON p.publisher_id = ap.publisher_id GROUP BY p.name ORDER BY games DESC, publisher LIMIT 5",
       "assumptions": ["A game with several publishers counts once for each."],
       "explanation": "Counts games per publisher."}
  - step: interpret
    match: '(?s)First rows \(tab-separated\):\ngames\n(?P<n>\d+)\n.*\nQuestion: How many games were released in (?P<year>\d{4})'
    reply: '*${n}* games were released on Steam in ${year}.'
  - step: interpret
    reply: 'The table below has the answer.'
`

// everyQuestion is a scripted rule classifying every message as a new
// question.
const everyQuestion = `  - step: classify
    reply: '{"intent": "analytics_query", "confidence": 0.9}'`

// script returns a scripted model file: the given rules, then baseRules.
func script(rules ...string) string {
	return "rules:\n" + strings.Join(rules, "") + baseRules
}

// testConfig returns the configuration's defaults, unaffected by the
// environment the tests run in, with the scripted model of rules.
func testConfig(t *testing.T, e *testEnv, rules string) bot.Config {
	t.Helper()
	return bottest.Config(t, e.url, rules)
}

// newBot builds a bot on the package database that plays rules, with the
// changes of adjust applied to its configuration.
func newBot(t *testing.T, e *testEnv, rules string, adjust ...func(*bot.Config)) *bot.Bot {
	t.Helper()
	return bottest.New(t, e.url, rules, adjust...)
}

// startBot connects a bot with cfg and closes it when the test ends.
func startBot(t *testing.T, cfg bot.Config) *bot.Bot {
	t.Helper()
	return bottest.Start(t, cfg, nil)
}

// discardLogger is for bots whose failures are the point of the test.
func discardLogger() *slog.Logger { return bottest.Discard() }

// ask sends text in thread and fails the test if the workflow itself fails.
func ask(t *testing.T, b *bot.Bot, thread, text string) (*nodes.State, workflow.Result) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, res, err := b.AskState(ctx, bot.Message{ThreadID: thread, UserID: "U1", ChannelID: "C1", Text: text})
	require.NoError(t, err, "ask %q", text)
	return s, res
}

// press clicks a button in thread and fails the test if the workflow fails.
func press(t *testing.T, b *bot.Bot, thread, action, value string) (*nodes.State, workflow.Result) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, res, err := b.PressState(ctx, bot.Message{ThreadID: thread, UserID: "U1", ChannelID: "C1"}, action, value)
	require.NoError(t, err, "press %s %s", action, value)
	return s, res
}

// block is the part of a Block Kit block the tests look at, as Slack
// receives it.
type block struct {
	Type    string `json:"type"`
	BlockID string `json:"block_id"`
	Text    struct {
		Text string `json:"text"`
	} `json:"text"`
	Elements []blockElement  `json:"elements"`
	Rows     json.RawMessage `json:"rows"`
}

// blockElement is a context element (text is a string) or a button (text
// is an object).
type blockElement struct {
	Type     string          `json:"type"`
	Text     json.RawMessage `json:"text"`
	ActionID string          `json:"action_id"`
	Value    string          `json:"value"`
}

// decodeBlocks renders the state's blocks to the JSON Slack receives and
// reads them back.
func decodeBlocks(t *testing.T, s *nodes.State) []block {
	t.Helper()
	data, err := json.Marshal(blockkit.Reply(s.Reply).Blocks)
	require.NoError(t, err, "marshal blocks")
	var out []block
	require.NoError(t, json.Unmarshal(data, &out), "unmarshal blocks")
	return out
}

// blocksJSON is the reply's blocks as Slack receives them, for substring
// checks on what the user sees.
func blocksJSON(t *testing.T, s *nodes.State) string {
	t.Helper()
	data, err := json.Marshal(blockkit.Reply(s.Reply).Blocks)
	require.NoError(t, err, "marshal blocks")
	return string(data)
}

// blockTypes lists the type of each block in order.
func blockTypes(bs []block) []string {
	types := make([]string, len(bs))
	for i, b := range bs {
		types[i] = b.Type
	}
	return types
}

// contextTexts returns the texts of a context block's elements.
func contextTexts(t *testing.T, b block) []string {
	t.Helper()
	var texts []string
	for _, el := range b.Elements {
		var s string
		require.NoError(t, json.Unmarshal(el.Text, &s), "context element text")
		texts = append(texts, s)
	}
	return texts
}

// answerPath is the path of a question answered at the first attempt.
var answerPath = []string{
	nodes.NodeRouteIntent, nodes.NodeResolveContext, nodes.NodeGenerateQuery, nodes.NodeValidateQuery,
	nodes.NodeExecuteQuery, nodes.NodeInterpret, nodes.NodeFormatAnswer, nodes.NodeSaveTurn,
}

// recentTurns reads a thread's saved turns, oldest first.
func recentTurns(t *testing.T, e *testEnv, thread string) []store.Turn {
	t.Helper()
	turns, err := e.admin.RecentTurns(context.Background(), thread, 50)
	require.NoError(t, err, "recent turns of %s", thread)
	return turns
}

// cachedRows counts the results Postgres keeps for a thread.
func cachedRows(t *testing.T, e *testEnv, thread string) int {
	t.Helper()
	var n int
	err := e.admin.Pool().QueryRow(context.Background(),
		"SELECT count(*) FROM query_results WHERE thread_id = $1", thread).Scan(&n)
	require.NoError(t, err, "count cached results")
	return n
}

// pgID is the id of a PostgreSQL query's result (warehouse.IDOf).
func pgID(sql string) string {
	return warehouse.IDOf(pgwarehouse.New(pgwarehouse.Config{}), warehouse.Query{Backend: pgwarehouse.Name, Text: sql})
}
