package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// runLogs runs `analyticsbot logs args...` and returns its output.
func runLogs(t *testing.T, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeo)
	defer cancel()
	var out bytes.Buffer
	err := logsCommand(ctx, args, &out)
	return cliResult{err: err, stdout: out.String()}
}

// addTestLogs stores six turns of the last minutes and one of two days ago.
// Totals 50, 100, 200, 300, 400 and 1000 ms: p50 250, p95 850.
func addTestLogs(t *testing.T, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	msec := func(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }
	logs := []store.QueryLog{
		{Question: "How many games were released in 2018?", Intent: "analytics_query", Total: msec(100), ModelTime: msec(60),
			ModelCalls: 3, PromptTokens: 1000, CompletionTokens: 50, RowCount: 1,
			NodeTime: map[string]time.Duration{"generate_sql": msec(40), "execute_sql": msec(10)}},
		{Question: "Top 5 publishers", Intent: "analytics_query", Total: msec(200), ModelTime: msec(150),
			ModelCalls: 3, PromptTokens: 1100, CompletionTokens: 60, RowCount: 5,
			NodeTime: map[string]time.Duration{"generate_sql": msec(120), "execute_sql": msec(20)}},
		{Question: "Revenue by genre\nper year", Intent: "analytics_query", ErrorKind: "query_timeout", Total: msec(300),
			ModelCalls: 2, PromptTokens: 900, CompletionTokens: 40,
			NodeTime: map[string]time.Duration{"generate_sql": msec(80), "execute_sql": msec(200)}},
		{Question: "Tell me a joke", Intent: "off_topic", Total: msec(400), ModelCalls: 1, PromptTokens: 300},
		{Question: "and by tag?", Intent: "follow_up", ErrorKind: "query_timeout", Total: msec(1000), UserID: "U42", ChannelID: "C7",
			Policy: "analysts", Role: "analyticsbot_reader_x_analysts",
			ErrorDetail: "query timed out: canceling statement due to statement timeout (SQLSTATE 57014)",
			ModelCalls:  2, PromptTokens: 800, CompletionTokens: 30,
			NodeTime: map[string]time.Duration{"generate_sql": msec(160), "execute_sql": msec(800)}},
		{Question: "delete the apps", Intent: "analytics_query", ErrorKind: "unsafe_query", Total: msec(50), ModelCalls: 2,
			UserID: "U42", ErrorRef: "e-3f9a1c2b",
			ErrorDetail: `permission denied for table apps: run: GRANT SELECT ON "analytics"."apps" TO "analyticsbot_reader"; api_key=sk-live-1234567`},
		{Question: "an old export", Intent: "export_csv", ErrorKind: "internal", Total: msec(99999), ModelCalls: 9},
	}
	var old store.QueryLog
	for _, l := range logs {
		var err error
		old, err = db.AddQueryLog(ctx, l)
		require.NoError(t, err, "add log %q", l.Question)
	}
	_, err := db.Pool().Exec(ctx, `UPDATE chat_query_logs SET created_at = now() - interval '2 days' WHERE id = $1`, old.ID)
	require.NoError(t, err, "age the last log")
}

// lines returns the lines of out that match pattern, trimmed.
func lines(out, pattern string) []string {
	re := regexp.MustCompile(pattern)
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if re.MatchString(l) {
			got = append(got, strings.TrimSpace(l))
		}
	}
	return got
}

// fields splits a line padded by tabwriter into its first n cells, joined
// by "|".
func fields(line string, n int) string {
	cells := regexp.MustCompile(`\s{2,}`).Split(line, -1)
	return strings.Join(cells[:min(n, len(cells))], "|")
}

// logsOut is logsJSON as a reader decodes it.
type logsOut struct {
	Since string    `json:"since"`
	From  time.Time `json:"from"`
	Turns int       `json:"turns"`
	logSummaryJSON
	Slowest *[]logTurnJSON  `json:"slowest"`
	Errors  *[]logErrorJSON `json:"errors"`
}

// TestCLILogs reads a database with a few logged turns the way an operator
// would, as text and as JSON.
func TestCLILogs(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	addTestLogs(t, db)
	t.Setenv("DATABASE_URL", dbURL)

	t.Run("summary", func(t *testing.T) {
		got := runLogs(t)
		require.NoError(t, got.err)
		out := got.stdout
		assert.True(t, strings.HasPrefix(out, "6 turns in the last 24h (since "), "header: %s", out)
		want := []string{
			`^  analytics_query\s+4$`, `^  follow_up\s+1$`, `^  off_topic\s+1$`,
			`^  ok\s+3$`, `^  query_timeout\s+2$`, `^  unsafe_query\s+1$`,
			`^  total\s+250\.0\s+850\.0\s+6$`,
			`^  execute_sql\s+110\.0\s+710\.0\s+4$`, `^  generate_sql\s+100\.0\s+154\.0\s+4$`,
			`^  calls\s+13\s+2\.2$`, `^  prompt tokens\s+4100\s+683\.3$`, `^  completion tokens\s+180\s+30\.0$`,
			`^  query_timeout\s+2\s+latest .*"and by tag\?"$`, `^  unsafe_query\s+1\s+latest .*"delete the apps"$`,
		}
		for _, pattern := range want {
			assert.Len(t, lines(out, pattern), 1, "want one line matching %s in:\n%s", pattern, out)
		}
		assert.NotContains(t, out, "an old export", "a turn outside the window")
		for _, section := range []string{"By intent", "By outcome", "Time (ms)", "Model use", "Slowest questions", "Top errors"} {
			assert.Contains(t, out, "\n"+section, "section")
		}
		slowest := lines(out, ` ms  `)
		require.Len(t, slowest, 6, "slowest questions:\n%s", out)
		var got3 []string
		for _, l := range slowest[:3] {
			got3 = append(got3, fields(l, 3))
		}
		assert.Equal(t, []string{"1000.0 ms|follow_up|query_timeout", "400.0 ms|off_topic|ok", "300.0 ms|analytics_query|query_timeout"},
			got3, "slowest first")
		assert.Contains(t, out, `"Revenue by genre per year"`, "a question is shown on one line")
	})

	t.Run("slow only, limited", func(t *testing.T) {
		got := runLogs(t, "--slow", "--limit", "2")
		require.NoError(t, got.err)
		assert.Len(t, lines(got.stdout, ` ms  `), 2, "slowest questions:\n%s", got.stdout)
		assert.Contains(t, got.stdout, `"and by tag?"`, "the slowest")
		assert.Contains(t, got.stdout, `"Tell me a joke"`, "the second slowest")
		for _, other := range []string{"By intent", "Time (ms)", "Top errors"} {
			assert.NotContains(t, got.stdout, other, "--slow shows only the slowest questions")
		}
	})

	t.Run("errors only", func(t *testing.T) {
		got := runLogs(t, "--errors")
		require.NoError(t, got.err)
		assert.Contains(t, got.stdout, "Top errors", "section")
		assert.Len(t, lines(got.stdout, `latest `), 2, "error kinds:\n%s", got.stdout)
		for _, other := range []string{"By intent", "Slowest questions", "Model use"} {
			assert.NotContains(t, got.stdout, other, "--errors shows only the errors")
		}
	})

	t.Run("longer window", func(t *testing.T) {
		got := runLogs(t, "--since", "3d")
		require.NoError(t, got.err)
		assert.True(t, strings.HasPrefix(got.stdout, "7 turns in the last 3d"), "header: %s", got.stdout)
		assert.Contains(t, got.stdout, "an old export", "the slowest turn of the longer window")
	})

	t.Run("json", func(t *testing.T) {
		got := runLogs(t, "--json")
		require.NoError(t, got.err)
		var raw map[string]json.RawMessage
		decodeOne(t, got.stdout, &raw)
		assert.ElementsMatch(t, []string{"since", "from", "turns", "by_intent", "by_outcome", "total_ms", "model_ms",
			"db_ms", "nodes", "model", "slowest", "errors", "feedback"}, slices.Collect(maps.Keys(raw)), "keys")

		var j logsOut
		require.NoError(t, json.Unmarshal([]byte(got.stdout), &j))
		assert.Equal(t, "24h", j.Since, "since")
		assert.WithinDuration(t, time.Now().Add(-24*time.Hour), j.From, time.Minute, "from")
		assert.Equal(t, 6, j.Turns, "turns")
		assert.Equal(t, percentilesJSON{P50: 250, P95: 850}, j.TotalMS, "total percentiles")
		assert.Equal(t, []intentCountJSON{{"analytics_query", 4}, {"follow_up", 1}, {"off_topic", 1}}, j.ByIntent, "by intent")
		assert.Equal(t, []outcomeCountJSON{{"ok", 3}, {"query_timeout", 2}, {"unsafe_query", 1}}, j.ByOutcome, "by outcome")
		assert.Equal(t, []nodeLatencyJSON{{"execute_sql", 4, 110, 710}, {"generate_sql", 4, 100, 154}}, j.Nodes, "nodes")
		assert.Equal(t, int64(13), j.Model.Calls, "model calls")
		assert.InDelta(t, 13.0/6, j.Model.CallsPerTurn, 1e-9, "calls per turn")
		require.NotNil(t, j.Slowest)
		require.Len(t, *j.Slowest, 6, "slowest, all six under the default limit")
		assert.Equal(t, "and by tag?", (*j.Slowest)[0].Question, "slowest first")
		assert.Equal(t, 1000.0, (*j.Slowest)[0].TotalMS, "slowest total")
		require.NotNil(t, j.Errors)
		assert.Equal(t, []string{"query_timeout", "unsafe_query"}, []string{(*j.Errors)[0].Kind, (*j.Errors)[1].Kind}, "errors")
		assert.Equal(t, "and by tag?", (*j.Errors)[0].LatestQuestion, "latest timeout")
	})

	t.Run("json, errors only", func(t *testing.T) {
		got := runLogs(t, "--json", "--errors", "--limit", "1")
		require.NoError(t, got.err)
		var raw map[string]json.RawMessage
		decodeOne(t, got.stdout, &raw)
		assert.ElementsMatch(t, []string{"since", "from", "turns", "errors"}, slices.Collect(maps.Keys(raw)), "keys")
		var errs []logErrorJSON
		require.NoError(t, json.Unmarshal(raw["errors"], &errs))
		require.Len(t, errs, 1, "--limit 1")
		assert.Equal(t, logErrorJSON{Kind: "query_timeout", Turns: 2, LatestQuestion: "and by tag?", LatestAt: errs[0].LatestAt,
			LatestDetail: "query timed out: canceling statement due to statement timeout (SQLSTATE 57014)"}, errs[0])
	})
}

// TestCLILogsUserAndRef: an operator follows up a user's "(Reference
// e-…)" or looks at one person's turns, and sees what went wrong last for
// each kind of error.
func TestCLILogsUserAndRef(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	addTestLogs(t, db)
	t.Setenv("DATABASE_URL", dbURL)

	got := runLogs(t, "--errors")
	require.NoError(t, got.err)
	assert.Contains(t, got.stdout, "\nLatest failure of each kind\n", "the details under the table")
	assert.Len(t, lines(got.stdout, `^  unsafe_query: e-3f9a1c2b: permission denied for table apps: run: GRANT SELECT ON "analytics"."apps" TO "analyticsbot_reader"; api_key=\[masked\]$`), 1,
		"the latest detail, its key masked:\n%s", got.stdout)
	assert.Len(t, lines(got.stdout, `^  query_timeout: query timed out`), 1, "a detail without a reference:\n%s", got.stdout)

	got = runLogs(t, "--ref", "e-3f9a1c2b")
	require.NoError(t, got.err)
	assert.True(t, strings.HasPrefix(got.stdout, "Turns of reference e-3f9a1c2b in the last 24h, newest first\n"), got.stdout)
	assert.Len(t, lines(got.stdout, `analytics_query\s+unsafe_query\s+"delete the apps"$`), 1, got.stdout)
	assert.Len(t, lines(got.stdout, `^\s+e-3f9a1c2b: permission denied for table apps`), 1, got.stdout)

	got = runLogs(t, "--user", "U42", "--json")
	require.NoError(t, got.err)
	var turns []userTurnJSON
	require.NoError(t, json.Unmarshal([]byte(got.stdout), &turns), got.stdout)
	require.Len(t, turns, 2, "U42's two turns in the window")
	assert.Equal(t, "delete the apps", turns[0].Question, "newest first")
	assert.Equal(t, "e-3f9a1c2b", turns[0].ErrorRef)
	assert.Equal(t, "and by tag?", turns[1].Question)
	assert.Equal(t, "C7", turns[1].ChannelID)
	// docs/access.md: --user shows the policy each turn ran under, and the
	// role it ran as.
	assert.Equal(t, "analysts", turns[1].Policy)
	assert.Equal(t, "analyticsbot_reader_x_analysts", turns[1].Role)
	assert.Empty(t, turns[0].Policy, "a turn under no policy")
	got = runLogs(t, "--user", "U42")
	require.NoError(t, got.err)
	assert.Len(t, lines(got.stdout, `C7\s+analysts\s+follow_up\s+query_timeout\s+"and by tag\?"$`), 1, got.stdout)

	got = runLogs(t, "--ref", "e-00000000")
	require.NoError(t, got.err)
	assert.Equal(t, "No turns of reference e-00000000 in the last 24h.\n"+
		"A failure while the bot's database was away reaches the query log once it is back. "+
		"Until then, or when the bot stopped first, only the bot's log (stderr) has it: look for ref=e-00000000.\n",
		got.stdout, "says where else to look")

	got = runLogs(t, "--user", "U999")
	require.NoError(t, got.err)
	assert.Equal(t, "No turns of user U999 in the last 24h.\n", got.stdout)
}

func TestCLILogsEmpty(t *testing.T) {
	_, dbURL := storetest.NewWithURL(t)
	t.Setenv("DATABASE_URL", dbURL)

	got := runLogs(t, "--since", "1h")
	require.NoError(t, got.err)
	assert.Equal(t, "No turns logged in the last 1h.\n", got.stdout)

	got = runLogs(t, "--json")
	require.NoError(t, got.err)
	var j logsOut
	decodeOne(t, got.stdout, &j)
	assert.Zero(t, j.Turns, "turns")
	assert.Contains(t, got.stdout, `"by_intent": []`, "empty lists, not null")
	assert.Contains(t, got.stdout, `"slowest": []`, "empty lists, not null")
}

func TestCLILogsNotMigrated(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(context.Background(), `DROP TABLE chat_query_logs CASCADE`)
	require.NoError(t, err)
	t.Setenv("DATABASE_URL", dbURL)

	got := runLogs(t)
	require.Error(t, got.err)
	assert.False(t, errors.Is(got.err, errUsage), "a missing table is not a usage error")
	assert.Contains(t, got.err.Error(), "analyticsbot migrate", "says what to do")
	assert.Empty(t, got.stdout, "stdout")
}

func TestCLILogsUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
	}{
		{name: "bad since", args: []string{"--since", "bad"}},
		{name: "zero since", args: []string{"--since", "0"}},
		{name: "negative since", args: []string{"--since", "-1h"}},
		{name: "fractional days", args: []string{"--since", "1.5d"}},
		{name: "since without value", args: []string{"--since"}},
		{name: "zero limit", args: []string{"--limit", "0"}},
		{name: "limit not a number", args: []string{"--limit", "ten"}},
		{name: "unknown flag", args: []string{"--bogus"}},
		{name: "argument", args: []string{"yesterday"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := runLogs(t, tt.args...)
			assert.True(t, errors.Is(got.err, errUsage), "got error %v, want a usage error (exit 2)", got.err)
			assert.Empty(t, got.stdout, "stdout")
		})
	}
}

func TestSinceFlag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want time.Duration
	}{
		{name: "hours", in: "24h", want: 24 * time.Hour},
		{name: "minutes", in: "90m", want: 90 * time.Minute},
		{name: "days", in: "7d", want: 7 * 24 * time.Hour},
		{name: "mixed units", in: "1h30m", want: 90 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var s sinceFlag
			require.NoError(t, s.Set(tt.in))
			assert.Equal(t, tt.want, time.Duration(s), "duration of %q", tt.in)
		})
	}
	for _, d := range []struct {
		in   time.Duration
		want string
	}{{24 * time.Hour, "24h"}, {48 * time.Hour, "2d"}, {90 * time.Minute, "1h30m"}, {3 * time.Hour, "3h"}, {45 * time.Second, "45s"}, {14 * 24 * time.Hour, "14d"}} {
		assert.Equal(t, d.want, humanDuration(d.in), "humanDuration(%s)", d.in)
	}
}

// docs/observability.md: `--limit N` (default 10) caps the slowest
// questions and the top errors.
func TestCLILogsDefaultLimit(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	ctx := context.Background()
	for i := range 12 {
		_, err := db.AddQueryLog(ctx, store.QueryLog{Question: "q", Intent: "analytics_query",
			ErrorKind: "kind_" + string(rune('a'+i)), Total: time.Duration(i+1) * time.Millisecond})
		require.NoError(t, err)
	}
	t.Setenv("DATABASE_URL", dbURL)

	got := runLogs(t, "--json")
	require.NoError(t, got.err)
	var j logsOut
	decodeOne(t, got.stdout, &j)
	assert.Equal(t, 12, j.Turns, "turns")
	require.NotNil(t, j.Slowest)
	require.NotNil(t, j.Errors)
	assert.Len(t, *j.Slowest, 10, "slowest questions under the default limit")
	assert.Len(t, *j.Errors, 10, "top errors under the default limit")
}

// A failure's detail quotes what the query wrote; an MCP caller's
// run_query can name a column "\x1b]0;PWNED\a\x1b[8m". `logs` shows it
// inert: no escape reaches the operator's terminal to retitle or blank it.
func TestCLILogsDetailIsInert(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	_, err := db.AddQueryLog(context.Background(), store.QueryLog{Question: "[run_query] SELECT …", Intent: "run_query",
		ErrorKind: "invalid_query", UserID: "token:dash", ErrorRef: "e-0badc0de",
		ErrorDetail: "column \"\x1b]0;PWNED\a\x1b[8m\" does not exist"})
	require.NoError(t, err)
	t.Setenv("DATABASE_URL", dbURL)
	for _, args := range [][]string{{"--errors"}, {"--user", "token:dash"}, {"--ref", "e-0badc0de"}} {
		got := runLogs(t, args...)
		require.NoError(t, got.err)
		assert.NotContains(t, got.stdout, "\x1b", "%v", args)
		assert.NotContains(t, got.stdout, "\a", "%v", args)
		assert.Contains(t, got.stdout, `e-0badc0de: column "�]0;PWNED��[8m" does not exist`, "%v", args)
	}
}

// Two deployments share a database, each with its own BOT_SCHEMA: `logs`
// reads the turns of the one it is run for, as every other command opens
// its store, never the other's.
func TestCLILogsBotSchema(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL) // the default deployment, BOT_SCHEMA unset
	t.Setenv("BOT_SCHEMA", "botx")
	require.NoError(t, runCLI(t, "", "migrate").err, "migrate the second deployment")
	ctx := context.Background()
	botx, err := store.Open(ctx, dbURL, store.WithSchema("botx"))
	require.NoError(t, err)
	defer botx.Close()
	_, err = db.AddQueryLog(ctx, store.QueryLog{Question: "What did the default deployment answer?", Intent: "analytics_query", Total: time.Second})
	require.NoError(t, err)
	_, err = botx.AddQueryLog(ctx, store.QueryLog{Question: "What did botx answer?", Intent: "analytics_query", Total: time.Second})
	require.NoError(t, err)

	for _, tt := range []struct{ schema, want, notWant string }{
		{schema: "botx", want: "What did botx answer?", notWant: "What did the default deployment answer?"},
		{schema: "", want: "What did the default deployment answer?", notWant: "What did botx answer?"},
	} {
		t.Setenv("BOT_SCHEMA", tt.schema)
		got := runLogs(t, "--slow")
		require.NoError(t, got.err, "BOT_SCHEMA=%s", tt.schema)
		assert.Contains(t, got.stdout, tt.want, "BOT_SCHEMA=%s", tt.schema)
		assert.NotContains(t, got.stdout, tt.notWant, "BOT_SCHEMA=%s", tt.schema)
	}
}
