package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeFlags are the flags README's "Using it" gives each command that
// takes flags directly (not through a subcommand, as schedules and
// examples do).
func readmeFlags(t *testing.T) map[string][]string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(readme), "## Using it\n\n```\n")
	require.True(t, ok, "README has a Using it block")
	block, _, _ = strings.Cut(block, "```")
	return flagsOf(block)
}

// flagsOf reads a list of command lines ("analyticsbot ask [--json] …",
// continued on indented lines) into the flags of each command.
func flagsOf(block string) map[string][]string {
	block = strings.ReplaceAll(block, "--min-table|column|value-recall", "--min-table-recall --min-column-recall --min-value-recall")
	flagRE := regexp.MustCompile(`--[a-z][a-z-]*`)
	out := map[string][]string{}
	cmd := ""
	for _, line := range strings.Split(block, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "analyticsbot "); ok {
			cmd = strings.Fields(rest)[0]
		}
		switch cmd {
		case "schedules", "examples", "demo", "access":
			continue
		}
		for _, f := range flagRE.FindAllString(line, -1) {
			if !slices.Contains(out[cmd], f) {
				out[cmd] = append(out[cmd], f)
			}
		}
	}
	return out
}

// Every flag README's "Using it" names is one its command takes (given
// alone, it is never "not defined"), and `analyticsbot help` names the same. The commands run against a database
// that does not answer, so none does real work.
func TestReadmeFlagsAreDefined(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	flags := readmeFlags(t)
	for _, cmd := range []string{"ask", "press", "context", "logs", "eval", "mcp", "validate-sql"} {
		require.NotEmpty(t, flags[cmd], "README gives flags of %s", cmd)
	}
	for _, cmd := range []string{"ask", "logs", "eval"} {
		got := runCLI(t, "", cmd, "--no-such-flag")
		require.Error(t, got.err)
		require.Contains(t, got.err.Error(), "not defined", "what an unknown flag of %s says", cmd)
	}
	for cmd, fs := range flags {
		for _, f := range fs {
			got := runCLI(t, "", cmd, f)
			if got.err != nil {
				assert.NotContains(t, got.err.Error(), "not defined", "analyticsbot %s %s", cmd, f)
			}
		}
	}
	// `analyticsbot help` gives the same flags.
	_, help, _ := strings.Cut(usage, "Usage:\n")
	helpFlags := flagsOf(help)
	for cmd, fs := range flags {
		assert.ElementsMatch(t, fs, helpFlags[cmd], "the flags of %s in README and in analyticsbot help", cmd)
	}
}

// chatCommandsOf reads the chat commands (":csv") that a list of command
// lines gives `analyticsbot chat`, its continuation lines included.
func chatCommandsOf(block string) []string {
	var line []string
	in := false
	for _, l := range strings.Split(block, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "analyticsbot "); ok {
			in = strings.Fields(rest)[0] == "chat"
		}
		if in {
			line = append(line, l)
		}
	}
	return regexp.MustCompile(`:[a-z]+`).FindAllString(strings.Join(line, "\n"), -1)
}

// README's "Using it", `analyticsbot help` and the chat's own :help name
// the same chat commands.
func TestReadmeChatCommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(readme), "## Using it\n\n```\n")
	require.True(t, ok, "README has a Using it block")
	block, _, _ = strings.Cut(block, "```")
	inReadme := chatCommandsOf(block)
	_, help, _ := strings.Cut(usage, "Usage:\n")
	var inChat []string
	for _, m := range regexp.MustCompile(`(?m)^  (:[a-z]+)`).FindAllStringSubmatch(chatHelp, -1) {
		inChat = append(inChat, m[1])
	}
	require.Contains(t, inChat, ":csv", "the chat's :help lists its commands")
	assert.ElementsMatch(t, inChat, inReadme, "the chat commands in README and in the chat's :help")
	assert.ElementsMatch(t, inChat, chatCommandsOf(help), "the chat commands in analyticsbot help and in the chat's :help")
}

// docs/eval.md's synopsis gives `eval` the flags README gives it.
func TestEvalDocSynopsis(t *testing.T) {
	doc, err := os.ReadFile("../../docs/eval.md")
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(doc), "```\nanalyticsbot eval ")
	require.True(t, ok, "docs/eval.md opens with the synopsis")
	block, _, _ = strings.Cut(block, "```")
	assert.ElementsMatch(t, readmeFlags(t)["eval"], flagsOf("analyticsbot eval " + block)["eval"])
}

// `press` without its flags names the actions README's "Using it" gives it.
func TestPressUsageNamesReadmeActions(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	actions := regexp.MustCompile(`analyticsbot press .*--action ([a-z_|]+)`).FindSubmatch(readme)
	require.NotNil(t, actions, "README gives press's actions")
	got := runCLI(t, "", "press")
	require.ErrorIs(t, got.err, errUsage)
	assert.Contains(t, got.err.Error(), "--action "+string(actions[1])+" ", "the usage line")
}
