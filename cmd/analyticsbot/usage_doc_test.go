package main

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeUsingIt is the list of command lines in README's "Using it".
func readmeUsingIt(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(readme), "## Using it\n\n```\n")
	require.True(t, ok, "README has a Using it block")
	block, _, _ = strings.Cut(block, "```")
	return block
}

// readmeFlags are the flags README's "Using it" gives each command, by its
// name, or by its name and subcommand ("examples list") for the commands
// that take flags through a subcommand.
func readmeFlags(t *testing.T) map[string][]string {
	t.Helper()
	return flagsOf(readmeUsingIt(t))
}

// usageEntry is one command's lines in a list of command lines: the line
// that names it ("analyticsbot ask [--json] …") and the indented lines
// below it.
type usageEntry struct {
	command string
	lines   []string
}

// usageEntries reads a list of command lines into its entries, in order.
func usageEntries(block string) []usageEntry {
	var out []usageEntry
	for _, line := range strings.Split(strings.TrimRight(block, "\n"), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "analyticsbot "); ok {
			out = append(out, usageEntry{command: strings.Fields(rest)[0]})
		}
		if len(out) > 0 {
			out[len(out)-1].lines = append(out[len(out)-1].lines, line)
		}
	}
	return out
}

// subcommanded are the commands whose lines name subcommands, each with
// flags of its own, one " | " apart ("examples list [--status S] | show ID").
var subcommanded = []string{"schedules", "examples", "demo", "access"}

// flagsOf reads a list of command lines (see usageEntries) into the flags
// of each command, or of each subcommand ("examples list") of the
// subcommanded ones.
func flagsOf(block string) map[string][]string {
	flagRE := regexp.MustCompile(`--[a-z][a-z-]*`)
	out := map[string][]string{}
	add := func(key, text string) {
		text = strings.ReplaceAll(text, "--min-table|column|value-recall", "--min-table-recall --min-column-recall --min-value-recall")
		for _, f := range flagRE.FindAllString(text, -1) {
			if !slices.Contains(out[key], f) {
				out[key] = append(out[key], f)
			}
		}
	}
	for _, e := range usageEntries(block) {
		text := strings.Join(strings.Fields(strings.Join(e.lines, " ")), " ")
		if !slices.Contains(subcommanded, e.command) {
			add(e.command, text)
			continue
		}
		text = strings.TrimPrefix(text, "analyticsbot "+e.command+" ")
		for _, part := range regexp.MustCompile(`(^|\s)\|\s`).Split(text, -1) {
			if fields := strings.Fields(part); len(fields) > 0 {
				add(e.command+" "+fields[0], part)
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
	for _, cmd := range []string{"ask", "press", "context", "logs", "eval", "mcp", "validate-sql",
		"schedules list", "examples list", "examples add", "examples export"} {
		require.NotEmpty(t, flags[cmd], "README gives flags of %s", cmd)
	}
	for _, cmd := range []string{"ask", "logs", "eval", "schedules list", "examples list", "examples add"} {
		got := runCLI(t, "", append(strings.Fields(cmd), "--no-such-flag")...)
		require.Error(t, got.err)
		require.Contains(t, got.err.Error(), "not defined", "what an unknown flag of %s says", cmd)
	}
	for cmd, fs := range flags {
		for _, f := range fs {
			got := runCLI(t, "", append(strings.Fields(cmd), f)...)
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

// README: `analyticsbot COMMAND --help` prints that command's lines of the
// "Using it" list, and `analyticsbot help` the whole list; every command
// has its lines there.
func TestCommandHelpIsReadmes(t *testing.T) {
	block := readmeUsingIt(t)
	const footer = "\nConfiguration comes from the environment; see README.md.\n"
	indented := func(lines []string) string {
		var b strings.Builder
		for _, l := range lines {
			if l != "" {
				l = "  " + l
			}
			b.WriteString(l + "\n")
		}
		return b.String()
	}
	got := runCLI(t, "", "help")
	require.NoError(t, got.err)
	assert.Equal(t, "analyticsbot answers data questions from Postgres.\n\nUsage:\n"+
		indented(strings.Split(strings.TrimRight(block, "\n"), "\n"))+footer, got.stdout, "analyticsbot help")

	byCommand := map[string][]string{}
	for _, e := range usageEntries(block) {
		byCommand[e.command] = append(byCommand[e.command], e.lines...)
	}
	assert.ElementsMatch(t, slices.Collect(maps.Keys(commands)), slices.Collect(maps.Keys(byCommand)),
		"the commands README lists and the commands run runs")
	for name, lines := range byCommand {
		got := runCLI(t, "", name, "--help")
		require.NoError(t, got.err, "%s --help", name)
		assert.Equal(t, "Usage:\n"+indented(lines)+footer, got.stdout, "analyticsbot %s --help", name)
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
	inReadme := chatCommandsOf(readmeUsingIt(t))
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
