// Command analyticsbot answers data questions from a Postgres database in
// Slack threads, a terminal chat or one-shot CLI calls.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/analyticsbot/analyticsbot/telemetry"
)

const usage = `analyticsbot answers data questions from Postgres.

Usage:
  analyticsbot migrate                 create the database if needed and apply migrations
  analyticsbot demo load [steam]       load the Steam demo data into the (first) analytics schema
  analyticsbot demo load defog         load Defog's 11 benchmark databases, each into the schema of its name
  analyticsbot grant                   let the reader role read every schema of ANALYTICS_SCHEMA
  analyticsbot access apply            one database role per ACCESS_FILE policy, with exactly its grants (docs/access.md)
  analyticsbot doctor                  check the setup (database, migrations, grants, access file, Slack scopes,
                                       model) and say what to fix
  analyticsbot graph                   print the workflow as a Mermaid flowchart
  analyticsbot chat                    chat in the terminal (:csv, :sql, :refresh, :explain, :schedule, :press,
                                       :good, :bad [note], a listed question's or choice's number, :new, :help, :quit)
  analyticsbot serve                   serve the web chat on HTTP_ADDR (MCP on /mcp), and Slack too when SLACK_* is set
  analyticsbot mcp [--as IDENTITY]     serve the bot's tools over MCP on stdin/stdout, for AI assistants and IDEs
                                       (docs/mcp.md); --as is required with ACCESS_FILE
  analyticsbot logs [--since 24h] [--slow] [--errors] [--feedback] [--user ID] [--ref e-…] [--json] [--limit N]
                                       summary of the query logs: turns, outcomes, p50/p95 per node, slowest, errors
                                       (with what went wrong last, e.g. the GRANT to run), and feedback (👍/👎 per
                                       day, the most 👎'd questions with their notes); --user lists one person's
                                       turns, --ref the failure a user was given that reference for
  analyticsbot validate-sql [--schema NAME]... < query.sql
                                       check SQL with the bot's guard: {"ok","class","reason"}; exit 0/1/2
  analyticsbot ask [--thread ID] [--json] QUESTION
                                       answer one question
  analyticsbot context [--thread ID] [--user ID] [--terms T1,T2] [--json] [--prompt] QUESTION
                                       what the query generator would be given, without a model call:
                                       the tables chosen (with scores and reasons), the stored values matched,
                                       token estimates, the examples retrieved, the prompt; under ACCESS_FILE
                                       as the policy of --user (default cli) sees it
  analyticsbot eval [--json] [--jobs N] [--retrieval-only | --oracle] [--min-accuracy X]
                    [--min-recall X] [--min-table|column|value-recall X] [--max-prompt-share X]
                    [--examples on|off|compare] FILE
                                       score the bot on an eval file (docs/eval.md): execution accuracy through
                                       the model (or the oracle: each gold query as the model's reply), or with
                                       --retrieval-only and no model call the recall of the gold query's tables,
                                       columns and values in what the generator is shown; --examples compare
                                       scores with and without retrieved examples
  analyticsbot press --thread ID --action export_csv|show_sql|refresh|schedule|feedback_up|feedback_down|verify_example
                     --value QUERY_ID [--user ID] [--note TEXT] [--json]
                                       press a button of an earlier answer (no model call)
  analyticsbot schedules list [--user ID] [--channel ID] [--state S] [--json] | runs ID | pause ID... |
                     resume ID... | delete ID... | run-now ID
                                       see and manage the scheduled questions and alerts (docs/schedules.md)
  analyticsbot examples list [--status S] [--source S] [--json] | show ID | verify ID... | reject ID...
                     | add --question Q [--assumption A]... < QUERY | export [--status verified|all]
                                       curate the examples the bot learns from (docs/examples.md)

Configuration comes from the environment; see README.md.
`

// errUsage marks a command line the program cannot run; it exits 2.
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, errRejected):
		os.Exit(1)
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	case errors.Is(err, errNotChecked):
		fmt.Fprintln(os.Stderr, "analyticsbot:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "analyticsbot:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	level := slog.LevelWarn
	if len(args) > 0 && commands[args[0]].server {
		level = slog.LevelInfo
	}
	level, levelErr := logLevel(level)
	slog.SetDefault(slog.New(telemetry.LogHandler(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))))
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: no command", errUsage)
	}
	name := args[0]
	switch name {
	case "help", "-h", "--help":
		// Help prints the usage whatever LOG_LEVEL holds.
		fmt.Fprint(stdout, usage)
		return nil
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: unknown command %q", errUsage, name)
	}
	if asksHelp(args[1:]) {
		// `migrate --help` must print help, never migrate: the commands
		// that take no arguments would otherwise run. So does a
		// command's subcommand: `demo load --help`, `demo load defog -h`.
		fmt.Fprint(stdout, commandUsage(name))
		return nil
	}
	if cmd.noArgs && len(args) > 1 {
		// `migrate --dry-run` and `migrate down` must not migrate.
		return fmt.Errorf("%w: analyticsbot %s (no arguments): unexpected argument %q", errUsage, name, args[1])
	}
	if levelErr != nil {
		if cmd.notChecked {
			return fmt.Errorf("%w: %w", errNotChecked, levelErr)
		}
		return levelErr
	}
	in := invocation{args: args[1:], stdin: stdin, stdout: stdout, stderr: stderr}
	if cmd.telemetry {
		var err error
		if in.tel, err = telemetry.Setup(ctx, "analyticsbot", telemetry.WithConsoleWriter(stderr)); err != nil {
			return err
		}
		defer stopTelemetry(ctx, in.tel)
	}
	return cmd.run(ctx, in)
}

// isHelpFlag reports whether arg asks for help.
func isHelpFlag(arg string) bool {
	switch arg {
	case "-h", "-help", "--help":
		return true
	}
	return false
}

// asksHelp reports whether a command's arguments ask for its help: a
// help flag after nothing but words (its subcommands: `demo load defog
// --help`), not after a flag, whose value it may be.
func asksHelp(args []string) bool {
	for _, a := range args {
		if isHelpFlag(a) {
			return true
		}
		if strings.HasPrefix(a, "-") {
			return false
		}
	}
	return false
}

// commandUsage returns the usage's lines of the command name: those that
// start with it and the lines indented below them.
func commandUsage(name string) string {
	var b strings.Builder
	b.WriteString("Usage:\n")
	in := false
	for _, line := range strings.Split(usage, "\n") {
		switch {
		case strings.HasPrefix(line, "  analyticsbot "):
			in = strings.HasPrefix(line, "  analyticsbot "+name+" ") || line == "  analyticsbot "+name
		case !strings.HasPrefix(line, "   "):
			in = false
		}
		if in {
			b.WriteString(line + "\n")
		}
	}
	b.WriteString("\nConfiguration comes from the environment; see README.md.\n")
	return b.String()
}

// invocation is what a command is run with.
type invocation struct {
	// args are the arguments after the command's name.
	args           []string
	stdin          io.Reader
	stdout, stderr io.Writer
	// tel is set for the commands that set up telemetry.
	tel *telemetry.Telemetry
}

// command is one of the program's commands.
type command struct {
	run func(ctx context.Context, in invocation) error
	// server logs at info level by default, not warn: a server's log is
	// its only window, while interactive commands stay quiet.
	server bool
	// telemetry sets up traces, metrics and logs export before run.
	telemetry bool
	// notChecked marks a LOG_LEVEL to fix with errNotChecked, which exits
	// 2 as validate-sql's usage says, rather than 1.
	notChecked bool
	// noArgs refuses any argument as a usage error before run: a flag the
	// command does not know (--dry-run) must not be taken for consent.
	noArgs bool
}

// commands are the commands run runs, by name; the usage lists the same
// names. LOG_LEVEL is checked for these only, so that help and a mistyped
// command print the usage whatever it holds.
var commands = map[string]command{
	"migrate": {noArgs: true, run: func(ctx context.Context, in invocation) error { return migrate(ctx, in.stdout) }},
	"demo":    {run: func(ctx context.Context, in invocation) error { return demoCommand(ctx, in.args, in.stdout) }},
	"grant":   {noArgs: true, run: func(ctx context.Context, in invocation) error { return grant(ctx, in.stdout) }},
	"access":  {run: func(ctx context.Context, in invocation) error { return accessCommand(ctx, in.args, in.stdout) }},
	"doctor":  {noArgs: true, run: func(ctx context.Context, in invocation) error { return doctor(ctx, in.stdout) }},
	"graph":   {noArgs: true, run: func(ctx context.Context, in invocation) error { return graph(ctx, in.stdout) }},
	"chat": {
		noArgs:    true,
		telemetry: true,
		run:       func(ctx context.Context, in invocation) error { return chat(ctx, in.stdin, in.stdout) },
	},
	"serve": {
		noArgs:    true,
		server:    true,
		telemetry: true,
		run:       func(ctx context.Context, in invocation) error { return serve(ctx, in.stdout, in.tel) },
	},
	"mcp": {
		telemetry: true,
		run:       func(ctx context.Context, in invocation) error { return mcpCommand(ctx, in.args, in.stdin, in.stdout) },
	},
	"logs": {run: func(ctx context.Context, in invocation) error { return logsCommand(ctx, in.args, in.stdout) }},
	"validate-sql": {
		notChecked: true,
		run: func(ctx context.Context, in invocation) error {
			return validateSQL(ctx, in.args, in.stdin, in.stdout, in.stderr)
		},
	},
	"ask": {
		telemetry: true,
		run:       func(ctx context.Context, in invocation) error { return ask(ctx, in.args, in.stdout) },
	},
	"context": {
		telemetry: true,
		run:       func(ctx context.Context, in invocation) error { return contextCommand(ctx, in.args, in.stdout) },
	},
	"eval": {run: func(ctx context.Context, in invocation) error { return evalCommand(ctx, in.args, in.stdout) }},
	"press": {
		telemetry: true,
		run:       func(ctx context.Context, in invocation) error { return press(ctx, in.args, in.stdout) },
	},
	"schedules": {run: func(ctx context.Context, in invocation) error { return schedulesCommand(ctx, in.args, in.stdout) }},
	"examples": {run: func(ctx context.Context, in invocation) error {
		return examplesCommand(ctx, in.args, in.stdin, in.stdout)
	}},
}

// demoCommand loads a demo data set: Steam's, or Defog's benchmark
// databases.
func demoCommand(ctx context.Context, args []string, stdout io.Writer) error {
	switch {
	case len(args) == 1 && args[0] == "load", len(args) == 2 && args[0] == "load" && args[1] == "steam":
		return demoLoad(ctx, stdout)
	case len(args) == 2 && args[0] == "load" && args[1] == "defog":
		return defogLoad(ctx, stdout)
	}
	return fmt.Errorf("%w: analyticsbot demo load [steam|defog]", errUsage)
}

// stopTelemetry flushes spans and metrics, for a few seconds at most even
// when ctx was canceled by a signal.
func stopTelemetry(ctx context.Context, tel *telemetry.Telemetry) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := tel.Shutdown(sctx); err != nil {
		slog.WarnContext(ctx, "flush telemetry", "err", err)
	}
}

// logLevel returns LOG_LEVEL (debug, info, warn or warning, error, in
// any case), or def when it is unset. WARNING is the name many platforms
// set for every service. Any other value is an error rather than def: a
// LOG_LEVEL=verbose that quietly logged less than asked would hide the
// very lines it was set to show.
func logLevel(def slog.Level) (slog.Level, error) {
	v := os.Getenv("LOG_LEVEL")
	if v == "" {
		return def, nil
	}
	if strings.EqualFold(v, "warning") {
		return slog.LevelWarn, nil
	}
	var l slog.Level
	if err := l.UnmarshalText([]byte(v)); err != nil {
		return def, fmt.Errorf("LOG_LEVEL must be DEBUG, INFO, WARN (or WARNING) or ERROR, got %q", v)
	}
	return l, nil
}

// newFlagSet returns a flag set whose errors come back as usage errors.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseInterspersed parses args with fs, flags before, between and after
// the other arguments (`examples verify 42 43 --by ana` as well as
// `examples verify --by ana 42 43`: people type both), and returns the
// other arguments in their order. Go's flag package stops at the first
// argument that is no flag; here "--" alone does: what follows it is
// never read as a flag.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		left := fs.Args()
		if n := len(args) - len(left); n > 0 && args[n-1] == "--" {
			return append(rest, left...), nil
		}
		if len(left) == 0 {
			return rest, nil
		}
		rest, args = append(rest, left[0]), left[1:]
	}
}
