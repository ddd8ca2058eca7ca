package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// The CLI tests call run as main does, with the environment a user would
// set. t.Setenv rules out t.Parallel for the tests that need a database.

const (
	q2018    = "How many games were released in 2018?"
	sql2018  = "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018"
	csv2018  = "games\n8160\n"
	csv2017  = "games\n6357\n"
	cliTimeo = 2 * time.Minute
)

// cliResult is what one run of the program left behind.
type cliResult struct {
	err            error
	stdout, stderr string
}

func runCLI(t *testing.T, stdin string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeo)
	defer cancel()
	var out, errOut bytes.Buffer
	err := run(ctx, args, strings.NewReader(stdin), &out, &errOut)
	return cliResult{err: err, stdout: out.String(), stderr: errOut.String()}
}

// setUp points the program at dbURL in demo mode (setDemoEnv) and runs
// `migrate`, as a user does first, which sets up the database's own
// reader role.
func setUp(t *testing.T, dbURL string) {
	t.Helper()
	setDemoEnv(t, dbURL)
	got := runCLI(t, "", "migrate")
	require.NoError(t, got.err, "migrate; stderr: %s", got.stderr)
}

// setDemoEnv points the program at dbURL in demo mode: no model keys, so
// the scripted demo model answers whatever the developer's shell holds.
func setDemoEnv(t *testing.T, dbURL string) {
	t.Helper()
	t.Setenv("DATABASE_URL", dbURL)
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "LLM_PROVIDER", "LLM_SCRIPT", "LLM_MODEL", "LLM_BASE_URL", "SQL_EXAMPLES",
		"READER_ROLE", "READER_DATABASE_URL", "GLOSSARY_FILE", "WORDNET_DIR", "ANALYTICS_SCHEMA", "DATA_DESCRIPTION", "SCHEMA_BUDGET_TOKENS"} {
		t.Setenv(k, "")
	}
}

// readmeAskJSONKeys are the keys README says `ask --json` prints.
func readmeAskJSONKeys(t *testing.T) []string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	m := regexp.MustCompile("`ask --json` prints one object with `([^`]+)`").FindSubmatch(readme)
	require.NotNil(t, m, "README lists the keys of ask --json")
	return strings.Split(strings.Join(strings.Fields(string(m[1])), " "), ", ")
}

// decodeOne decodes the only JSON value of out into v, failing when out
// holds anything more.
func decodeOne(t *testing.T, out string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	require.NoError(t, dec.Decode(v), "stdout: %s", out)
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		t.Fatalf("got more than one JSON value on stdout (next: %s, err %v), want exactly one", extra, err)
	}
}

// turnOut is the part of the JSON output the tests check.
type turnOut struct {
	ThreadID         string          `json:"thread_id"`
	Model            string          `json:"model"`
	Intent           string          `json:"intent"`
	Question         string          `json:"question"`
	ResolvedQuestion string          `json:"resolved_question"`
	SQL              string          `json:"sql"`
	Assumptions      []string        `json:"assumptions"`
	Columns          []string        `json:"columns"`
	Rows             [][]json.Number `json:"rows"`
	RowCount         int             `json:"row_count"`
	Truncated        bool            `json:"truncated"`
	QueryID          string          `json:"query_id"`
	Answer           string          `json:"answer"`
	Text             string          `json:"text"`
	Blocks           json.RawMessage `json:"blocks"`
	CSV              string          `json:"csv"`
	CSVFilename      string          `json:"csv_filename"`
	Error            string          `json:"error"`
	LLMCalls         int             `json:"llm_calls"`
	TimingMS         struct {
		Total float64 `json:"total"`
	} `json:"timing_ms"`
}

func decodeTurn(t *testing.T, out string) turnOut {
	t.Helper()
	var got turnOut
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&got), "stdout: %s", out)
	return got
}

func rowsOf(rows [][]json.Number) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		for _, v := range r {
			out[i] = append(out[i], v.String())
		}
	}
	return out
}

var queryIDPattern = regexp.MustCompile(`^[0-9a-f]{8}$`)

func TestCLIUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		wantStderr string // part of stderr; "" when none is expected
	}{
		{name: "no args", args: nil, wantStderr: "Usage:"},
		{name: "unknown command", args: []string{"frobnicate"}, wantStderr: "Usage:"},
		{name: "ask without question", args: []string{"ask"}},
		{name: "ask json without question", args: []string{"ask", "--json"}},
		{name: "ask unknown flag", args: []string{"ask", "--bogus", "How many games are free?"}},
		{name: "press without flags", args: []string{"press"}},
		{name: "press without value", args: []string{"press", "--thread", "t1", "--action", "export_csv"}},
		{name: "press without action", args: []string{"press", "--thread", "t1", "--value", "0123abcd"}},
		{name: "press without thread", args: []string{"press", "--action", "show_sql", "--value", "0123abcd"}},
		{name: "press with extra argument", args: []string{"press", "--thread", "t1", "--action", "show_sql", "--value", "0123abcd", "extra"}},
		{name: "demo without load", args: []string{"demo"}},
		{name: "demo unknown subcommand", args: []string{"demo", "unload"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(t, "", tt.args...)
			if !errors.Is(got.err, errUsage) {
				t.Fatalf("got error %v, want a usage error (exit 2)", got.err)
			}
			if tt.wantStderr != "" {
				assert.Contains(t, got.stderr, tt.wantStderr, "stderr")
			}
			assert.Empty(t, got.stdout, "stdout")
		})
	}
}

func TestCLIHelp(t *testing.T) {
	t.Parallel()
	got := runCLI(t, "", "help")
	require.NoError(t, got.err)
	for _, cmd := range []string{"migrate", "demo load", "graph", "chat", "ask", "press"} {
		assert.Contains(t, got.stdout, "analyticsbot "+cmd, "help output")
	}
}

// `analyticsbot CMD --help` prints that command's usage and exits 0
// without running it: `migrate --help`, `grant --help` and `serve --help`
// used to migrate, grant and serve. The database is down, so a command
// that ran would fail.
func TestCLICommandHelp(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	for name := range commands {
		for _, flag := range []string{"--help", "-h"} {
			t.Run(name+" "+flag, func(t *testing.T) {
				got := runCLI(t, "", name, flag)
				require.NoError(t, got.err, "stderr: %s", got.stderr)
				assert.Contains(t, got.stdout, "Usage:\n  analyticsbot "+name, "stdout")
				for other := range commands {
					if other != name {
						assert.NotContains(t, got.stdout, "analyticsbot "+other+" ", "stdout shows only %s", name)
					}
				}
				assert.Empty(t, got.stderr, "stderr")
			})
		}
	}
}

// README: `analyticsbot COMMAND --help` prints that command's lines and
// exits 0; so does a subcommand's (`demo load --help`), for every
// subcommand the usage lists, and runs nothing (no database here).
func TestCLISubcommandHelp(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	for name, subs := range map[string][]string{
		"demo": {"load"}, "access": {"apply"},
		"schedules": {"list", "runs", "pause", "resume", "delete", "run-now"},
		"examples":  {"list", "show", "verify", "reject", "add", "export"},
	} {
		for _, sub := range subs {
			require.Regexp(t, `\b`+sub+`\b`, commandUsage(name), "the usage lists %s %s", name, sub)
			for _, flag := range []string{"--help", "-h"} {
				got := runCLI(t, "", name, sub, flag)
				if assert.NoError(t, got.err, "%s %s %s: stderr %s", name, sub, flag, got.stderr) {
					assert.Equal(t, commandUsage(name), got.stdout, "%s %s %s", name, sub, flag)
				}
			}
		}
	}
	// Deeper too: a subcommand's argument before the flag.
	for _, args := range [][]string{{"demo", "load", "defog", "--help"}, {"demo", "load", "steam", "-h"}, {"schedules", "pause", "abc123", "--help"}} {
		got := runCLI(t, "", args...)
		if assert.NoError(t, got.err, "%v: stderr %s", args, got.stderr) {
			assert.Equal(t, commandUsage(args[0]), got.stdout, "%v", args)
		}
	}
}

// README: LOG_LEVEL is DEBUG, INFO, WARN (or WARNING) or ERROR, in any
// case. Any other value stops every command at start, naming the variable,
// rather than logging at the default level; help and a mistyped command
// still print the usage.
func TestCLILogLevel(t *testing.T) {
	const want = `LOG_LEVEL must be DEBUG, INFO, WARN (or WARNING) or ERROR, got "verbose"`
	tests := []struct {
		name, level string
		args        []string
		wantErr     string // "" when the command runs
		wantUsage   bool   // a usage error that prints the usage
	}{
		{name: "verbose", level: "verbose", args: []string{"ask", "How many games are free?"}, wantErr: want},
		{name: "a number", level: "3", args: []string{"serve"}, wantErr: `LOG_LEVEL must be DEBUG, INFO, WARN (or WARNING) or ERROR, got "3"`},
		{name: "validate-sql cannot check", level: "verbose", args: []string{"validate-sql"}, wantErr: "validate-sql could not check the SQL: " + want},
		{name: "help", level: "verbose", args: []string{"help"}},
		{name: "unknown command", level: "verbose", args: []string{"frobnicate"}, wantUsage: true},
		{name: "no command", level: "verbose", wantUsage: true},
		{name: "lower case", level: "debug", args: []string{"help"}},
		{name: "upper case", level: "ERROR", args: []string{"help"}},
		{name: "warning", level: "warning", args: []string{"graph"}},
		{name: "WARNING", level: "WARNING", args: []string{"graph"}},
		{name: "unset", level: "", args: []string{"help"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("LOG_LEVEL", tt.level)
			got := runCLI(t, "SELECT 1", tt.args...)
			switch {
			case tt.wantUsage:
				assert.ErrorIs(t, got.err, errUsage, "exit 2")
				assert.Contains(t, got.stderr, "Usage:", "the usage is printed")
			case tt.wantErr == "":
				assert.NoError(t, got.err)
				assert.NotEmpty(t, got.stdout, "the command's output")
			default:
				require.Error(t, got.err)
				assert.Equal(t, tt.wantErr, got.err.Error())
				assert.NotErrorIs(t, got.err, errUsage, "a setting to fix is not a usage error")
				assert.Empty(t, got.stdout, "stdout")
			}
		})
	}
}

// The usage lists exactly the commands run runs, and every one checks
// LOG_LEVEL before it does anything.
func TestCLILogLevelEveryCommand(t *testing.T) {
	t.Setenv("LOG_LEVEL", "verbose")
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^  analyticsbot ([a-z-]+)`).FindAllStringSubmatch(usage, -1) {
		listed = append(listed, m[1])
		got := runCLI(t, "", m[1])
		assert.ErrorContains(t, got.err, "LOG_LEVEL must be", "analyticsbot %s", m[1])
	}
	slices.Sort(listed)
	assert.Equal(t, slices.Sorted(maps.Keys(commands)), slices.Compact(listed), "the commands run runs, and the usage's")
}

func TestCLIGraph(t *testing.T) {
	t.Parallel()
	got := runCLI(t, "", "graph")
	require.NoError(t, got.err)
	for _, doc := range []string{"../../README.md", "../../docs/workflow.md", "../../docs/architecture.md"} {
		text, err := os.ReadFile(doc)
		require.NoError(t, err)
		_, block, ok := strings.Cut(string(text), "<!-- analyticsbot graph -->\n```mermaid\n")
		require.True(t, ok, "%s must show the graph after an <!-- analyticsbot graph --> marker", doc)
		block, _, _ = strings.Cut(block, "```")
		assert.Equal(t, got.stdout, block, "%s shows what `analyticsbot graph` prints", doc)
	}
	assert.True(t, strings.HasPrefix(got.stdout, "flowchart"), "got %.40q, want a Mermaid flowchart", got.stdout)
	for _, node := range []string{
		nodes.NodeRouteIntent, nodes.NodeResolveContext, nodes.NodeGenerateQuery, nodes.NodeValidateQuery,
		nodes.NodeExecuteQuery, nodes.NodeInterpret, nodes.NodeFormatAnswer, nodes.NodeAskBack, nodes.NodeExportCSV,
		nodes.NodeShowSQL, nodes.NodeDecline, nodes.NodeHandleError, nodes.NodeSaveTurn,
	} {
		assert.Contains(t, got.stdout, `"`+node+`"`, "flowchart")
	}
}

// TestCLI follows a user through the demo on one database: load the data,
// ask, follow up, press the buttons, chat.
func TestCLI(t *testing.T) {
	_, dbURL := storetest.NewWithURL(t)
	setUp(t, dbURL)

	load := runCLI(t, "", "demo", "load")
	require.NoError(t, load.err, "demo load; stderr: %s", load.stderr)
	assert.NotContains(t, load.stderr, "ACCESS_FILE", "`make run` warns about ACCESS_FILE once, when it serves")
	assert.Regexp(t, `^demo data loaded into "analytics" in .*: 27075 games, \d+ developers, \d+ publishers, \d+ genres, \d+ tags\n`+
		`value index: \d+ values of 7 text columns in .*\n$`, load.stdout)

	var first, followUp turnOut
	// docs/observability.md: OTEL_TRACES_EXPORTER=console writes the spans
	// as JSON on stderr: a turn's workflow.run, its nodes and statements.
	t.Run("spans on the console", func(t *testing.T) {
		t.Setenv("OTEL_TRACES_EXPORTER", "console")
		got := runCLI(t, "", "ask", q2018)
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		for _, span := range []string{`{"Name":"workflow.run analytics"`, `{"Name":"workflow.node execute_query"`, `{"Name":"llm.call"`, `{"Name":"SELECT"`} {
			assert.Contains(t, got.stderr, span)
		}
		got = runCLI(t, "", "context", q2018)
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		assert.Contains(t, got.stderr, `{"Name":"bot.context"`, "context has a span of its own")
		assert.Contains(t, got.stderr, `{"Name":"SELECT"`, "with its statements below it")
	})
	t.Run("ask json", func(t *testing.T) {
		got := runCLI(t, "", "ask", "--json", q2018)
		require.NoError(t, got.err, "stderr: %s", got.stderr)

		var keys map[string]json.RawMessage
		decodeOne(t, got.stdout, &keys)
		assert.ElementsMatch(t, readmeAskJSONKeys(t), slices.Collect(maps.Keys(keys)), "the keys README lists for ask --json")
		assert.Contains(t, got.stderr, `level=WARN msg="ACCESS_FILE is not set: everyone who can reach the bot reads everything the reader role can`,
			"docs/access.md: without an access file the bot logs a warning at start")
		assert.NotContains(t, got.stderr, "level=INFO", "LOG_LEVEL is WARN by default outside serve")

		first = decodeTurn(t, got.stdout)
		assert.Equal(t, string(nodes.IntentAnalytics), first.Intent)
		assert.Equal(t, q2018, first.Question)
		assert.Equal(t, q2018, first.ResolvedQuestion)
		assert.Equal(t, sql2018, first.SQL)
		assert.NotEmpty(t, first.Assumptions, "assumptions")
		assert.Equal(t, []string{"games"}, first.Columns)
		assert.Equal(t, [][]string{{"8160"}}, rowsOf(first.Rows))
		assert.Equal(t, 1, first.RowCount)
		assert.False(t, first.Truncated)
		assert.Regexp(t, queryIDPattern, first.QueryID)
		assert.Contains(t, first.Answer, "8160")
		assert.Contains(t, first.Text, "8,160", "the count as the table writes it")
		assert.Contains(t, string(first.Blocks), "8,160", "blocks")
		assert.Empty(t, first.CSV, "csv")
		assert.Empty(t, first.Error, "error")
		assert.Equal(t, 3, first.LLMCalls, "llm_calls: classify, generate_sql, interpret")
		assert.Greater(t, first.TimingMS.Total, 0.0, "timing_ms.total")
		assert.True(t, strings.HasPrefix(first.ThreadID, "local-"), "got thread %q, want a local thread id", first.ThreadID)
		assert.Equal(t, "script:demo", first.Model, "without keys the demo model answers")
	})
	require.NotEmpty(t, first.ThreadID, "the first question must have answered")

	t.Run("ask follow-up in thread", func(t *testing.T) {
		got := runCLI(t, "", "ask", "--thread", first.ThreadID, "--json", "And in 2017?")
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		decodeOne(t, got.stdout, new(map[string]any))
		followUp = decodeTurn(t, got.stdout)
		assert.Equal(t, first.ThreadID, followUp.ThreadID)
		assert.Equal(t, string(nodes.IntentFollowUp), followUp.Intent)
		assert.Equal(t, "How many games were released in 2017?", followUp.ResolvedQuestion)
		assert.Equal(t, [][]string{{"6357"}}, rowsOf(followUp.Rows))
		assert.Regexp(t, queryIDPattern, followUp.QueryID)
		assert.NotEqual(t, first.QueryID, followUp.QueryID)
		assert.Empty(t, followUp.Error)
	})

	t.Run("press export csv", func(t *testing.T) {
		require.NotEmpty(t, followUp.QueryID, "the follow-up must have answered")
		got := runCLI(t, "", "press", "--thread", first.ThreadID, "--action", "export_csv", "--value", followUp.QueryID, "--json")
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		decodeOne(t, got.stdout, new(map[string]any))
		out := decodeTurn(t, got.stdout)
		assert.Equal(t, csv2017, out.CSV)
		assert.Equal(t, followUp.QueryID, out.QueryID)
		assert.Equal(t, 0, out.LLMCalls, "llm_calls")
		assert.True(t, strings.HasSuffix(out.CSVFilename, "-"+followUp.QueryID+".csv"), "got csv_filename %q", out.CSVFilename)
		assert.Empty(t, out.Error)
	})

	t.Run("press export csv of the first answer", func(t *testing.T) {
		got := runCLI(t, "", "press", "--thread", first.ThreadID, "--action", "export_csv", "--value", first.QueryID, "--json")
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		out := decodeTurn(t, got.stdout)
		assert.Equal(t, csv2018, out.CSV)
		assert.Equal(t, 0, out.LLMCalls, "llm_calls")
	})

	t.Run("press show sql", func(t *testing.T) {
		got := runCLI(t, "", "press", "--thread", first.ThreadID, "--action", "show_sql", "--value", first.QueryID, "--json")
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		out := decodeTurn(t, got.stdout)
		assert.Equal(t, sql2018, out.SQL)
		assert.Contains(t, out.Text, q2018)
		assert.Contains(t, string(out.Blocks), "release_year = 2018", "blocks")
		assert.Equal(t, 0, out.LLMCalls, "llm_calls")
	})

	t.Run("press plain text", func(t *testing.T) {
		got := runCLI(t, "", "press", "--thread", first.ThreadID, "--action", "export_csv", "--value", first.QueryID)
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		assert.Contains(t, got.stdout, csv2018)
		assert.Contains(t, got.stdout, "(thread "+first.ThreadID+")")
	})

	t.Run("press bad input", func(t *testing.T) {
		tests := []struct {
			name          string
			action, value string
			want          string // what the user reads: the reason, not the sentinel's words
		}{
			{name: "unknown action", action: "delete_everything", value: first.QueryID,
				want: `usage: unknown action "delete_everything"; the actions are export_csv, show_sql, refresh, explain, schedule, ` +
					"schedule_preset, feedback_up, feedback_down, verify_example, schedule_save, schedule_cancel, schedule_pause, " +
					"schedule_resume, schedule_delete"},
			{name: "a 10 KB value", action: "export_csv", value: strings.Repeat("7", 10<<10),
				want: `usage: "` + strings.Repeat("7", 39) + `…" is not a query id (8 hex characters)`},
			{name: "a preset too often", action: "schedule_preset", value: first.QueryID + " */2 * * * *",
				want: `usage: schedules run at most once every 5 minutes; "*/2 * * * *" runs more often`},
			{name: "value not a query id", action: "export_csv", value: "'; DROP TABLE x; --",
				want: `usage: "'; DROP TABLE x; --" is not a query id (8 hex characters)`},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got := runCLI(t, "", "press", "--thread", first.ThreadID, "--action", tt.action, "--value", tt.value, "--json")
				if !errors.Is(got.err, errUsage) {
					t.Fatalf("got error %v, want a usage error (exit 2)", got.err)
				}
				assert.Equal(t, tt.want, got.err.Error(), "error")
				assert.Empty(t, got.stdout, "stdout")
			})
		}
	})

	t.Run("ask plain text", func(t *testing.T) {
		got := runCLI(t, "", "ask", "Tell me a joke")
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		assert.Regexp(t, `\(thread local-[0-9a-f]{12}\)\n`, got.stdout)
		assert.Contains(t, got.stdout, "demo mode")
		assert.NotContains(t, got.stdout, "SELECT", "an off-topic question runs no SQL")
	})

	t.Run("ask prints the commands that press its buttons", func(t *testing.T) {
		got := runCLI(t, "", "ask", q2018)
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		assert.Contains(t, got.stdout, "8,160 games were released on Steam in 2018.\n", "no Slack syntax")
		m := regexp.MustCompile(`(?m)^Show SQL: analyticsbot (press .*)$`).FindStringSubmatch(got.stdout)
		require.NotNil(t, m, "a Show SQL command in %s", got.stdout)
		pressed := runCLI(t, "", strings.Fields(m[1])...)
		require.NoError(t, pressed.err, "the printed command runs: %s", pressed.stderr)
		assert.Contains(t, pressed.stdout, "WHERE release_year = 2018")
	})

	t.Run("ask prints the commands that choose when it asks back", func(t *testing.T) {
		got := runCLI(t, "", "ask", demo.AskBackQuestion)
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		assert.Contains(t, got.stdout, "Which Bethesda do you mean? The data spells the publisher three ways.\n")
		m := regexp.MustCompile(`(?m)^  • Bethesda-Softworks: analyticsbot ask --thread (\S+) '(.*)'$`).FindStringSubmatch(got.stdout)
		require.NotNil(t, m, "a command that chooses Bethesda-Softworks in %s", got.stdout)
		assert.Equal(t, demo.AskBackQuestion+" (Bethesda-Softworks)", m[2])
		chosen := runCLI(t, "", "ask", "--thread", m[1], m[2])
		require.NoError(t, chosen.err, "the printed command runs: %s", chosen.stderr)
		assert.Contains(t, chosen.stdout, "Games on Steam published by Bethesda (Bethesda-Softworks): 2.")
	})

	t.Run("chat", func(t *testing.T) {
		dir := t.TempDir()
		t.Chdir(dir)
		got := runCLI(t, q2018+"\n:sql\n:csv\n:quit\n", "chat")
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		assert.Contains(t, got.stdout, "DEMO MODE")
		assert.Contains(t, got.stdout, "8,160")
		assert.Contains(t, got.stdout, "    SELECT count(*) AS games\n    FROM analytics.apps\n    WHERE release_year = 2018\n", "the SQL, a clause a line")

		files, err := filepath.Glob(filepath.Join(dir, "*.csv"))
		require.NoError(t, err)
		require.Len(t, files, 1, "got CSV files %v, want one", files)
		data, err := os.ReadFile(files[0])
		require.NoError(t, err)
		assert.Equal(t, csv2018, string(data))
		assert.Contains(t, got.stdout, fmt.Sprintf("Saved %s (%d bytes).", filepath.Base(files[0]), len(csv2018)))
	})

	t.Run("chat after a huge paste", func(t *testing.T) {
		// A line of 2 MiB is one message the bot answers as too long, and
		// the chat goes on.
		got := runCLI(t, strings.Repeat("x", 2<<20)+"\n"+q2018+"\n:quit\n", "chat")
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		assert.Contains(t, got.stdout, "Your message is too long")
		assert.Contains(t, got.stdout, "8,160", "the next question is answered")
	})

	t.Run("chat follow-ups by number", func(t *testing.T) {
		t.Chdir(t.TempDir())
		got := runCLI(t, q2018+"\n:sql\n9\n2\n:quit\n", "chat")
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		assert.Contains(t, got.stdout, "8,160 games were released on Steam in 2018.", "no Slack syntax in the terminal")
		assert.Contains(t, got.stdout, "You could ask next: (type a number to ask it)\n  1. How many games were released per year?\n"+
			"  2. Which publishers released the most games?")
		assert.Contains(t, got.stdout, "Export CSV: :csv\nShow SQL: :sql\nExplain: :explain\nSchedule: :schedule\n")
		assert.Contains(t, got.stdout, "Type a number from 1 to 2, or a question.")
		assert.Contains(t, got.stdout, "> Which publishers released the most games?\n")
		assert.Contains(t, got.stdout, "Big Fish Games released the most games: 213.")
		for _, leak := range []string{"*8160*", ":warning:", "[Export CSV]", "```"} {
			assert.NotContains(t, got.stdout, leak)
		}
	})

	t.Run("chat asks back", func(t *testing.T) {
		t.Chdir(t.TempDir())
		got := runCLI(t, demo.AskBackQuestion+"\n1\n:quit\n", "chat")
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		assert.Contains(t, got.stdout, "  - "+demo.AskBackQuestion+" (the demo asks back which Bethesda)", "the intro offers it")
		assert.Contains(t, got.stdout, "Which Bethesda do you mean? The data spells the publisher three ways.\n\n"+
			"(type a number to choose)\n  1. Bethesda Softworks\n  2. Bethesda-Softworks\n  3. Bethesda-Soft\n  4. All three\n")
		assert.Contains(t, got.stdout, "> "+demo.AskBackQuestion+" (Bethesda Softworks)\n", "the number asks the question with the choice")
		assert.Contains(t, got.stdout, "Games on Steam published by Bethesda (Bethesda Softworks): 35.")
	})

	t.Run("LOG_LEVEL", func(t *testing.T) {
		t.Setenv("LOG_LEVEL", "info")
		got := runCLI(t, "", "ask", q2018)
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		assert.Contains(t, got.stderr, "level=INFO", "LOG_LEVEL=info shows what the default hides")
	})

	t.Run("the command line under an access file", func(t *testing.T) {
		// docs/access.md: the operator's command line is not subject to the
		// file's lists of users and channels; it gets a policy like anyone
		// else, as the user cli (ask) or terminal (chat).
		path := filepath.Join(t.TempDir(), "access.yaml")
		require.NoError(t, os.WriteFile(path, []byte(`
access:
  users: [UANA]
  channels: [C0DATA]
  direct_messages: false
policies:
  - name: games_only
    users: [cli]
    tables: ["analytics.apps"]
default: none
`), 0o600))
		t.Setenv("ACCESS_FILE", path)
		t.Chdir(t.TempDir())

		got := runCLI(t, "", "ask", q2018)
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		assert.Contains(t, got.stdout, "8,160", "cli is named by no list, and its policy reads apps")
		got = runCLI(t, "", "ask", "Which publishers released the most games?")
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		assert.Contains(t, got.stdout, "I can't answer that: you may not read analytics.", "the policy of cli holds")

		got = runCLI(t, q2018+"\n:quit\n", "chat")
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		assert.Contains(t, got.stdout, "You don't have access to any data here", "the terminal's user is terminal: the default, none")
		assert.NotContains(t, got.stdout, "8,160")
	})

	t.Run("chat :new and :help", func(t *testing.T) {
		t.Chdir(t.TempDir())
		got := runCLI(t, q2018+"\n:new\n:sql\n1\nAnd in 2017?\n:help\n:quit\n", "chat")
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		assert.Contains(t, got.stdout, "8,160", "the first thread's answer")
		assert.Regexp(t, `\n> new thread local-[0-9a-f]+\n`, got.stdout)
		assert.Contains(t, got.stdout, "> No answer with a result yet: ask a question first.", ":sql has no answer in the new thread")
		assert.NotContains(t, got.stdout, "> How many games were released per year?", "a number is not a question listed in the old thread")
		assert.Equal(t, 2, strings.Count(got.stdout, "This is the offline demo"), "neither \"1\" nor a follow-up finds the old thread: %s", got.stdout)
		assert.NotContains(t, got.stdout, "6,357", "no follow-up of the old thread's question")
		assert.Equal(t, 2, strings.Count(got.stdout, "  :new   start a new thread\n"), "the help at start and on :help")
	})

	t.Run("chat buttons before any answer", func(t *testing.T) {
		t.Chdir(t.TempDir())
		got := runCLI(t, ":csv\n:sql\n:good\n:bad\n", "chat")
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		assert.Equal(t, 4, strings.Count(got.stdout, "No answer with a result yet"), "stdout: %s", got.stdout)
	})

	t.Run("chat commands it does not know", func(t *testing.T) {
		got := runCLI(t, ":foo\n:csvv\n:press\n:) How many games are free?\n", "chat")
		require.NoError(t, got.err, "stderr: %s", got.stderr)
		for _, c := range []string{":foo", ":csvv"} {
			assert.Contains(t, got.stdout, "There is no command "+c+". Ask a question, or type one of these:\n  :csv ", "stdout: %s", got.stdout)
		}
		assert.Equal(t, 2+1, strings.Count(got.stdout, "  :quit  leave (or Ctrl-D)"), "the start's help, then the commands after each unknown one: %s", got.stdout)
		assert.Contains(t, got.stdout, "Type :press ACTION VALUE, as a reply lists it.")
		assert.Equal(t, 2, strings.Count(got.stdout, "There is no command"), "a question that starts with a smiley is asked: %s", got.stdout)
		assert.Equal(t, 1, strings.Count(got.stdout, "This is the offline demo"),
			"only the line that starts with a smiley is asked (and the demo's script does not know it): %s", got.stdout)
	})

	t.Run("a failed question's text", func(t *testing.T) {
		testCLIFailedQuestionText(t)
	})
	t.Run("data and model text print inert", func(t *testing.T) {
		testCLIInert(t)
	})

	t.Run("feedback and examples", func(t *testing.T) {
		testCLIFeedbackAndExamples(t, first)
	})

	t.Run("schedules", func(t *testing.T) {
		testCLISchedules(t, first)
	})
}

// TestCLIMigrate runs migrate twice on a database that does not exist yet,
// as on a fresh machine: the first run creates it and its own reader role,
// the second changes nothing. The reader the migrations share between
// databases is left with nothing here.
func TestCLIMigrate(t *testing.T) {
	adminURL := storetest.DefaultAdminURL()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeo)
	defer cancel()
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("postgres not reachable: %v", err)
		}
		t.Skipf("postgres not reachable: %v", err)
	}
	t.Cleanup(func() { admin.Close(context.Background()) })
	name := fmt.Sprintf("abt_cli_migrate_%d", time.Now().UnixNano())
	u, err := url.Parse(adminURL)
	require.NoError(t, err)
	u.Path = "/" + name
	reader, err := pgwarehouse.ReaderRoleFor(u.String())
	require.NoError(t, err)
	t.Cleanup(func() { // runs before the Close above
		if _, err := admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop %s: %v", name, err)
		}
		if _, err := admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+pgx.Identifier{reader}.Sanitize()); err != nil {
			t.Errorf("drop %s: %v", reader, err)
		}
	})
	setDemoEnv(t, u.String())

	for i, hardening := range []string{hardened(name), ""} {
		got := runCLI(t, "", "migrate")
		require.NoError(t, got.err, "migrate run %d; stderr: %s", i+1, got.stderr)
		assert.Equal(t, "migrations applied\n"+hardening+"reader role "+reader+" ready\n", got.stdout, "migrate run %d", i+1)
	}
	conn, err := pgx.Connect(ctx, u.String())
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var tables int
	require.NoError(t, conn.QueryRow(ctx,
		`SELECT count(*) FROM pg_tables WHERE tablename IN ('conversation_turns', 'query_results')`).Scan(&tables))
	assert.Equal(t, 2, tables, "got %d of the bot's tables, want both", tables)

	var own, shared []string
	require.NoError(t, conn.QueryRow(ctx, `
		SELECT coalesce((SELECT array_agg(g.privilege_type) FROM pg_database d, aclexplode(d.datacl) g
		                 WHERE d.datname = current_database() AND g.grantee = to_regrole($1)), '{}'),
		       coalesce((SELECT array_agg(g.privilege_type) FROM pg_database d, aclexplode(d.datacl) g
		                 WHERE d.datname = current_database() AND g.grantee = to_regrole($2)), '{}')`,
		reader, pgwarehouse.DefaultReaderRole).Scan(&own, &shared))
	assert.Equal(t, []string{"CONNECT"}, own, "the database's own reader may connect")
	assert.Empty(t, shared, "the shared reader no longer may")
	var settings int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
		WHERE d.datname = current_database() AND s.setrole = to_regrole($1)`, pgwarehouse.DefaultReaderRole).Scan(&settings))
	assert.Zero(t, settings, "the shared reader has no settings here any more")
	var readerSettings []string
	require.NoError(t, conn.QueryRow(ctx, `SELECT s.setconfig FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
		WHERE d.datname = current_database() AND s.setrole = to_regrole($1)`, reader).Scan(&readerSettings))
	assert.Subset(t, readerSettings, []string{"default_transaction_read_only=on", "statement_timeout=30s"}, "a session of its own opened by hand")

	t.Setenv("STATEMENT_TIMEOUT", "45s")
	require.NoError(t, runCLI(t, "", "migrate").err)
	require.NoError(t, conn.QueryRow(ctx, `SELECT s.setconfig FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
		WHERE d.datname = current_database() AND s.setrole = to_regrole($1)`, reader).Scan(&readerSettings))
	assert.Contains(t, readerSettings, "statement_timeout=45s", "STATEMENT_TIMEOUT's")
}

// docs/observability.md names the commands that set up OpenTelemetry.
func TestCLITelemetryCommandsAsDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/observability.md")
	require.NoError(t, err)
	m := regexp.MustCompile("\\n((?:`[a-z-]+`(?:, | and ))+`[a-z-]+`) set up OpenTelemetry").FindSubmatch(doc)
	require.NotNil(t, m, "docs/observability.md lists the commands that set up OpenTelemetry")
	var documented []string
	for _, c := range regexp.MustCompile("`([a-z-]+)`").FindAllSubmatch(m[1], -1) {
		documented = append(documented, string(c[1]))
	}
	var traced []string
	for name, c := range commands {
		if c.telemetry {
			traced = append(traced, name)
		}
	}
	assert.ElementsMatch(t, documented, traced)
}

// The commands that take no arguments refuse any, as a usage error (exit
// 2), before they touch anything: `migrate --dry-run` created the database
// and migrated it, `migrate down` migrated up, `grant --dry-run` granted.
func TestCLINoArguments(t *testing.T) {
	t.Run("migrate creates no database", func(t *testing.T) {
		dbURL := storetest.MissingURL(t)
		setDemoEnv(t, dbURL)
		for _, arg := range []string{"--dry-run", "down"} {
			got := runCLI(t, "", "migrate", arg)
			require.ErrorIs(t, got.err, errUsage, "stdout: %s", got.stdout)
			assert.EqualError(t, got.err, fmt.Sprintf("usage: analyticsbot migrate (no arguments): unexpected argument %q", arg))
			assert.Empty(t, got.stdout)
		}
		u, err := url.Parse(dbURL)
		require.NoError(t, err)
		conn, err := pgx.Connect(context.Background(), storetest.DefaultAdminURL())
		require.NoError(t, err)
		defer conn.Close(context.Background())
		var exists bool
		require.NoError(t, conn.QueryRow(context.Background(), `SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)`,
			strings.TrimPrefix(u.Path, "/")).Scan(&exists))
		assert.False(t, exists, "the database was not created")
	})
	t.Run("grant grants nothing", func(t *testing.T) {
		db, dbURL := storetest.NewWithURL(t)
		setUp(t, dbURL)
		_, err := db.Pool().Exec(context.Background(), `CREATE SCHEMA shop; CREATE TABLE shop.orders (id int)`)
		require.NoError(t, err)
		t.Setenv("ANALYTICS_SCHEMA", "shop")
		got := runCLI(t, "", "grant", "--dry-run")
		require.ErrorIs(t, got.err, errUsage, "stdout: %s", got.stdout)
		assert.Empty(t, got.stdout)
		var granted bool
		require.NoError(t, db.Pool().QueryRow(context.Background(),
			`SELECT nspacl IS NOT NULL FROM pg_namespace WHERE nspname = 'shop'`).Scan(&granted))
		assert.False(t, granted, "no role was granted the schema")
	})
	// The rest would serve, chat, check or print; the database is down,
	// so one that ran would fail otherwise, or print the graph.
	t.Run("the others", func(t *testing.T) {
		setDemoEnv(t, "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
		for _, name := range []string{"serve", "chat", "doctor", "graph"} {
			got := runCLI(t, "", name, "--verbose")
			require.ErrorIs(t, got.err, errUsage, "%s; stdout: %s", name, got.stdout)
			assert.ErrorContains(t, got.err, "analyticsbot "+name+" (no arguments): unexpected argument \"--verbose\"")
			assert.Empty(t, got.stdout, name)
		}
	})
}
