package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/slackapp"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/telemetry"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// errProblems is doctor's exit when it found something to fix.
var errProblems = errors.New("doctor found problems to fix (✗ above)")

// checkup prints one line per check: ✓ fine, ! worth knowing, ✗ to fix,
// each with what to do.
type checkup struct {
	out      io.Writer
	problems int
}

func (c *checkup) ok(format string, args ...any) { fmt.Fprintf(c.out, "✓ "+format+"\n", args...) }
func (c *checkup) warn(format string, args ...any) {
	fmt.Fprintf(c.out, "! "+format+"\n", args...)
}
func (c *checkup) fail(format string, args ...any) {
	c.problems++
	fmt.Fprintf(c.out, "✗ "+format+"\n", args...)
}

// doctor checks what the bot needs and says what to fix: the
// configuration, the bot's database and its migrations and extensions, the
// reader role's login, schemas and grants, the access file and its roles,
// Slack's scopes, the model. It changes nothing.
func doctor(ctx context.Context, out io.Writer) error {
	c := &checkup{out: out}
	cfg, err := bot.ConfigFromEnv()
	if err != nil {
		c.fail("configuration: %v", err)
		return errProblems
	}
	c.ok("configuration: backend %s, analytics schemas %s", cfg.Backend, strings.Join(cfg.Postgres.Schemas, ", "))

	db, err := store.Open(ctx, cfg.DatabaseURL, store.WithSchema(cfg.BotSchema), store.WithTimeout(cfg.DatabaseTimeout))
	if err != nil {
		c.fail("the bot's database: %v (check DATABASE_URL and that PostgreSQL is running)", err)
		return errProblems
	}
	defer db.Close()
	c.ok("the bot's database answers")
	switch n, err := db.PendingMigrations(ctx); {
	case err != nil:
		c.fail("migrations: %v", err)
	case n > 0:
		c.fail("migrations: %d not applied: run `analyticsbot migrate`", n)
	default:
		c.ok("migrations: all applied")
	}
	if has, err := db.HasExtension(ctx, "pg_trgm"); err == nil && !has {
		c.warn("pg_trgm is not installed in the bot's database: misspelt names and examples are matched by whole words only (CREATE EXTENSION pg_trgm, as a superuser)")
	}

	postgres := cfg.Backend == "" || cfg.Backend == pgwarehouse.Name || cfg.Backend == "sql"
	if postgres {
		checkReader(ctx, c, cfg, db)
	}
	// The data source alone, not a bot, which would store the examples
	// file: doctor changes nothing.
	if backend, closeBackend, err := bot.OpenBackend(ctx, cfg, slog.New(slog.DiscardHandler)); err != nil {
		if !postgres {
			c.fail("%s: %v", cfg.Backend, err)
		} // PostgreSQL's reader: checkReader said why
	} else {
		if !postgres {
			// Opening the backend asks it nothing: its catalog is the
			// first thing a question reads, so doctor reads it too.
			if cat, err := backend.Catalog(ctx); err != nil {
				c.fail("%s does not answer: %v", cfg.Backend, err)
			} else {
				c.ok("%s answers: %s", cfg.Backend, answer.Plural(len(cat.Tables), "table", "tables"))
			}
		}
		checkExamplesFile(ctx, c, cfg, backend)
		closeBackend()
	}

	checkAccess(ctx, c, cfg, db)
	checkSlack(ctx, c)
	checkServe(c)
	if cfg.Provider() == "script" {
		c.warn("no language model: the offline demo answers its own questions only (set LLM_PROVIDER and a key, README \"Plugging in a real model\")")
	} else if name, err := bot.CheckModel(ctx, cfg); name == "" {
		c.fail("the model: %v", err) // its settings name no model it can call
	} else if err != nil {
		c.fail("the model %s does not answer: %v", name, err)
	} else {
		c.ok("the model answers: %s (one short call)", name)
	}
	if c.problems > 0 {
		return errProblems
	}
	return nil
}

// checkExamplesFile checks the examples file as a start does: one that
// cannot be read, or an example the guard refuses as unsafe, stops serve.
func checkExamplesFile(ctx context.Context, c *checkup, cfg bot.Config, backend warehouse.Backend) {
	if cfg.SQLExamples == "" {
		return // the demo's, left out on other data: nothing to fix
	}
	ch, err := bot.CheckExamples(ctx, cfg, backend)
	switch {
	case err != nil:
		c.fail("examples file: %v", err)
	case ch.Unchecked != nil:
		c.warn("examples file %s: its queries cannot be checked now (%v): a start stores none of them", ch.File, ch.Unchecked)
	case ch.Err() != nil:
		c.fail("%v", ch.Err())
	default:
		for _, l := range ch.LeftOut {
			c.warn("examples file %s: %s: left out, as the data does not fit it", ch.File, l)
		}
		c.ok("examples file %s: %s the guard lets run", ch.File, answer.Plural(len(ch.Passed), "example", "examples"))
	}
}

// checkServe checks serve's own settings (the web's, MCP's, Slack's) and
// telemetry's as serve checks them before it starts.
func checkServe(c *checkup) {
	if _, err := serveSettings(); err != nil {
		c.fail("serve would not start: %v", err)
	} else {
		c.ok("serve's settings (HTTP_ADDR, HTTP_TOKEN, MCP_*, SLACK_*) are usable")
	}
	if err := telemetry.CheckEnv(); err != nil {
		c.fail("telemetry: %v", err)
	}
}

// checkReader checks the reader role: its login, the analytics schemas it
// may use and the tables it may not read.
func checkReader(ctx context.Context, c *checkup, cfg bot.Config, db *store.DB) {
	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: cfg.ReaderConfig()})
	defer b.Close()
	if err := b.Ping(ctx); err != nil {
		c.fail("the reader role: %v", err)
		return
	}
	c.ok("the reader role %s logs in", cfg.Postgres.ReaderRole)
	checkShared(ctx, c, cfg, db)
	tables, err := pgwarehouse.Ungranted(ctx, db.Pool(), cfg.Postgres.ReaderRole, cfg.Postgres.Schemas)
	if err != nil {
		c.fail("grants: %v", err)
		return
	}
	problems, err := b.Problems(ctx)
	if err != nil {
		c.fail("schemas: %v", err)
	}
	for _, p := range problems {
		if strings.Contains(p, "does not exist") {
			c.fail("%s: create it, or fix ANALYTICS_SCHEMA", p)
		} else {
			c.fail("%s: run `analyticsbot grant`", p)
		}
	}
	switch {
	case len(tables) > 0:
		c.fail("%s may not read %s: the model never sees them; run `analyticsbot grant`, or GRANT SELECT ON %s TO %s",
			cfg.Postgres.ReaderRole, someOf(tables, 10), tables[0], cfg.Postgres.ReaderRole)
	case len(problems) == 0:
		c.ok("%s reads every table of %s", cfg.Postgres.ReaderRole, strings.Join(cfg.Postgres.Schemas, ", "))
	}
	switch public, err := pgwarehouse.PublicRoutines(ctx, db.Pool(), cfg.Postgres.Schemas); {
	case err != nil:
		c.fail("%v", err)
	case len(public) > 0:
		c.warn("every role may execute %s: with the guard off a policy could call them; run `analyticsbot access apply` (or `analyticsbot grant`)",
			someOf(public, 5))
	}
	checkSessions(ctx, c, db, cfg.Postgres.ReaderRole, "`analyticsbot migrate`")
	var temp bool
	if err := db.Pool().QueryRow(ctx, `SELECT has_database_privilege(current_database(), 'TEMPORARY')`).Scan(&temp); err != nil {
		c.fail("%v", err)
	} else if !temp {
		c.fail("the bot's own login may not create temporary tables, which refreshing the value index needs: GRANT TEMPORARY ON DATABASE to it")
	}
}

// checkSessions says what a session opened by hand as role could do that
// it should not, or that it can do nothing lasting; fix is the command
// that sets role up.
func checkSessions(ctx context.Context, c *checkup, db *store.DB, role, fix string) {
	problems, err := pgwarehouse.SessionProblems(ctx, db.Pool(), role, fix)
	if err != nil {
		c.fail("%v", err)
		return
	}
	for _, p := range problems {
		c.fail("%s: %s", role, p)
	}
	if len(problems) == 0 {
		c.ok("%s: a session opened by hand is read-only by default with a statement timeout, and even read-write could not write, "+
			"create anything, use temporary tables or keep large objects", role)
	}
	switch unlimited, err := pgwarehouse.UnlimitedTempFiles(ctx, db.Pool(), role); {
	case err != nil:
		c.fail("%v", err)
	case unlimited:
		c.warn("%s has no temp_file_limit here, nor has the server: a sort or hash spilling to disk is bounded only by the statement timeout; "+
			"run %s as a superuser, or GRANT SET ON PARAMETER temp_file_limit TO the role that runs it (PostgreSQL 15+) and run it again", role, fix)
	}
}

// someOf lists the first n of names, and how many more there are:
// "a, b and 3 more".
func someOf(names []string, n int) string {
	shown := strings.Join(names[:min(len(names), n)], ", ")
	if len(names) > n {
		shown += fmt.Sprintf(" and %d more", len(names)-n)
	}
	return shown
}

// checkShared warns when the reader is shared with other databases of the
// server, or when this database's own reader stands beside the shared one
// that still reads here.
func checkShared(ctx context.Context, c *checkup, cfg bot.Config, db *store.DB) {
	others, err := pgwarehouse.OtherDatabases(ctx, db.Pool(), cfg.Postgres.ReaderRole)
	if err != nil {
		c.fail("%v", err)
		return
	}
	if len(others) > 0 {
		c.warn("the reader role %s is set up in other databases of this server too (%s): deployments sharing a reader can read what each granted it; "+
			"leave READER_ROLE unset (or name a role of this deployment's own) and run `analyticsbot migrate`",
			cfg.Postgres.ReaderRole, someOf(others, 5))
	}
	if cfg.Postgres.ReaderRole == pgwarehouse.DefaultReaderRole {
		return
	}
	revoke, err := pgwarehouse.RevokeStatements(ctx, db.Pool(), pgwarehouse.DefaultReaderRole, cfg.Postgres.Schemas)
	if err != nil {
		c.fail("%v", err)
		return
	}
	if len(revoke) > 0 {
		c.warn("%s, the reader databases on this server shared before, still reads here: once no process runs as it, %s",
			pgwarehouse.DefaultReaderRole, strings.Join(revoke, "; "))
	}
}

// checkAccess checks the access file: its tokens' secrets, its policies'
// database roles and what a session of each could do. HTTP_TOKEN's length
// is serve's setting (checkServe).
func checkAccess(ctx context.Context, c *checkup, cfg bot.Config, db *store.DB) {
	if cfg.AccessFile == "" {
		c.warn("ACCESS_FILE is not set: everyone who can reach the bot reads everything the reader role can (docs/access.md)")
		return
	}
	rules, err := access.Load(cfg.AccessFile)
	if err != nil {
		c.fail("%v", err)
		return
	}
	c.ok("access file: policies %s", strings.Join(rules.Policies(), ", "))
	checkUserGroups(ctx, c, rules.SlackGroups())
	// What serve refuses at start (bot.APITokens, mcpTokens): a short
	// secret, and one secret for two identities.
	seen := map[string]string{} // secret → token name
	for _, tk := range rules.Tokens() {
		secret := os.Getenv(tk.Env)
		if len(secret) < bot.MinTokenLength {
			c.fail("the token %q needs a secret of at least %d characters in %s", tk.Name, bot.MinTokenLength, tk.Env)
		} else if other, dup := seen[secret]; dup {
			c.fail("the tokens %q and %q have the same secret: give each a secret of its own", other, tk.Name)
		} else {
			seen[secret] = tk.Name
		}
	}
	if name, dup := seen[os.Getenv("HTTP_TOKEN")]; dup {
		c.fail("HTTP_TOKEN has the same secret as the access file's token %q: give each a secret of its own", name)
	}
	if cfg.Backend != "" && cfg.Backend != pgwarehouse.Name && cfg.Backend != "sql" {
		return
	}
	checkPatterns(ctx, c, cfg, db, rules)
	roles, missing, err := bot.PolicyRoles(ctx, cfg, rules)
	if err != nil {
		c.fail("policy roles: %v", err)
		return
	}
	if len(missing) > 0 {
		c.warn("policies without their database role (%s) are answered as the reader, the guard alone enforcing them: run `analyticsbot access apply`",
			strings.Join(missing, ", "))
	} else {
		c.ok("every policy has its database role")
	}
	checkLeftovers(ctx, c, cfg, db, rules)
	if len(roles) == 0 {
		return
	}
	for _, p := range rules.AllPolicies() {
		if r, ok := roles[p.Policy()]; ok {
			checkSessions(ctx, c, db, r, "`analyticsbot access apply`")
		}
	}
	checkDrift(ctx, c, cfg, db, rules)
}

// checkLeftovers fails on the role of a policy the access file no longer
// has that may still log in or read, as a role reading beyond its policy
// fails (checkDrift): `access apply` takes it away.
func checkLeftovers(ctx context.Context, c *checkup, cfg bot.Config, db *store.DB, rules *access.Rules) {
	leftovers, err := pgwarehouse.LeftoverRoles(ctx, db.Pool(), cfg.Postgres.ReaderRole, cfg.Postgres.Schemas, rules.AllPolicies())
	if err != nil {
		c.fail("%v", err)
		return
	}
	const fix = ": run `analyticsbot access apply`"
	for _, l := range leftovers {
		switch {
		case l.Login && len(l.Reads) > 0:
			c.fail("%s, may still log in and read %s%s", l, someOf(l.Reads, 5), fix)
		case l.Login:
			c.fail("%s, may still log in%s", l, fix)
		case len(l.Reads) > 0:
			c.fail("%s, may still read %s%s", l, someOf(l.Reads, 5), fix)
		default:
			c.warn("%s, is still set up in this database%s", l, fix)
		}
	}
}

// checkPatterns warns of each pattern of the access file that matches no
// table or column of the analytics schemas: a typo says so nowhere else.
// It is no failure: a deny may name a table to come, on purpose.
func checkPatterns(ctx context.Context, c *checkup, cfg bot.Config, db *store.DB, rules *access.Rules) {
	unmatched, err := pgwarehouse.UnmatchedPatterns(ctx, db.Pool(), cfg.Postgres.Schemas, rules.List())
	if err != nil {
		c.fail("%v", err)
		return
	}
	for _, u := range unmatched {
		c.warn("%s", pgwarehouse.UnmatchedSentence(u, cfg.Postgres.Schemas))
	}
	if len(unmatched) == 0 {
		c.ok("every pattern of the access file matches a table or column of %s", strings.Join(cfg.Postgres.Schemas, ", "))
	}
}

// maxDrifts is how many differences of each kind checkDrift shows.
const maxDrifts = 5

// checkDrift compares what each policy's role may read with what `access
// apply` would grant it on the tables as they are now (new tables,
// partitions and children, grants changed by hand): reading beyond its
// policy fails, reading less is a warning.
func checkDrift(ctx context.Context, c *checkup, cfg bot.Config, db *store.DB, rules *access.Rules) {
	drifts, err := pgwarehouse.AccessDrift(ctx, db.Pool(), cfg.Postgres.ReaderRole, cfg.Postgres.Schemas, rules.AllPolicies())
	if err != nil {
		c.fail("%v", err)
		return
	}
	if len(drifts) == 0 {
		c.ok("every policy's role reads what its policy allows on the tables as they are now")
		return
	}
	const fix = ": run `analyticsbot access apply`"
	var beyond, short []pgwarehouse.Drift
	for _, d := range drifts {
		if d.Beyond {
			beyond = append(beyond, d)
		} else {
			short = append(short, d)
		}
	}
	for _, d := range beyond[:min(len(beyond), maxDrifts)] {
		c.fail("%s%s", d, fix)
	}
	if n := len(beyond) - maxDrifts; n > 0 {
		c.fail("and %d more their roles may read that the policies deny%s", n, fix)
	}
	for _, d := range short[:min(len(short), maxDrifts)] {
		c.warn("%s%s", d, fix)
	}
	if n := len(short) - maxDrifts; n > 0 {
		c.warn("and %d more the policies allow that their roles cannot read%s", n, fix)
	}
}

// checkUserGroups checks that Slack lists the Slack user groups the access
// file names: a mistyped id is a group with no members, whose people get
// another policy (or none), and without a bot token nobody can tell who is
// in one.
func checkUserGroups(ctx context.Context, c *checkup, groups []string) {
	if len(groups) == 0 {
		return
	}
	scfg, err := slackapp.ConfigFromEnv()
	if err != nil || scfg.BotToken == "" {
		c.warn("the access file names Slack user groups (%s), and SLACK_BOT_TOKEN is not set: nobody can tell who is in them, and a Slack user whose policy hangs on one is refused (docs/access.md)",
			someOf(groups, 5))
		return
	}
	unknown, err := slackapp.UnknownUserGroups(ctx, scfg, groups)
	if len(unknown) > 0 {
		c.fail("Slack has no user group %s, which the access file names: it has no members, so its people get another policy or none; check the id (the group's page in Slack shows it)",
			strings.Join(unknown, ", "))
	}
	switch {
	case errors.Is(err, slackapp.ErrMissingScope):
		// The scope check names the scope and its fix; a second ✗ here
		// would report the one problem twice.
		c.warn("the access file's Slack user groups (%s) are not checked: Slack will not list them to the bot token (its scopes below)",
			someOf(groups, 5))
	case err != nil:
		c.fail("Slack user groups: %v", err)
	}
	if len(unknown) == 0 && err == nil {
		c.ok("Slack lists the access file's user groups (%s)", someOf(groups, 5))
	}
}

// checkSlack checks the bot token's scopes when Slack is configured.
func checkSlack(ctx context.Context, c *checkup) {
	scfg, err := slackapp.ConfigFromEnv()
	switch {
	case err != nil:
		c.fail("Slack configuration: %v", err)
		return
	case !scfg.Configured():
		c.warn("Slack is not configured: the web chat and the command line only (README \"Add it to Slack\")")
		return
	case scfg.BotToken == "":
		c.fail("SLACK_BOT_TOKEN is not set")
		return
	}
	missing, err := slackapp.MissingScopes(ctx, scfg)
	switch {
	case err != nil:
		c.fail("Slack: %v", err)
	case len(missing) > 0:
		c.fail("Slack: the bot token lacks the scopes %s: add them under OAuth & Permissions (slack/manifest.yaml has them all) and reinstall the app",
			strings.Join(missing, ", "))
	default:
		c.ok("Slack: the bot token has every scope the app uses")
	}
}
