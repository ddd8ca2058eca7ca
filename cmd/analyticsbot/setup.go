package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"strings"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/eval/defog"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

func migrate(ctx context.Context, out io.Writer) error {
	cfg, err := bot.ConfigFromEnv()
	if err != nil {
		return err
	}
	return setUpDatabase(ctx, cfg, out)
}

// setUpDatabase is `migrate` with cfg: it creates the database when
// missing, applies the migrations and sets up the reader.
func setUpDatabase(ctx context.Context, cfg bot.Config, out io.Writer) error {
	if err := store.EnsureDatabase(ctx, cfg.DatabaseURL); err != nil {
		return err
	}
	db, err := store.Open(ctx, cfg.DatabaseURL, store.WithSchema(cfg.BotSchema))
	if err != nil {
		return err
	}
	defer db.Close()
	// Two runs at once take turns from here on; before, creating the
	// database tolerates a twin.
	return db.InTurn(ctx, func() error {
		if err := db.Migrate(ctx); err != nil {
			return err
		}
		fmt.Fprintln(out, "migrations applied")
		if err := hardenDatabase(ctx, db, out); err != nil {
			return err
		}
		if cfg.Postgres.ReaderRole == pgwarehouse.DefaultReaderRole {
			// The migrations set up the shared reader; doctor says more.
			return pgwarehouse.SetStatementTimeout(ctx, db.Pool(), cfg.Postgres.ReaderRole, cfg.Postgres.StatementTimeout)
		}
		return ownReader(ctx, db, cfg, out)
	})
}

// hardenDatabase takes from PUBLIC what would let a session opened by
// hand as the reader or a policy role keep anything, and says what it
// changed or could not.
func hardenDatabase(ctx context.Context, db *store.DB, out io.Writer) error {
	changes, err := pgwarehouse.HardenDatabase(ctx, db.Pool())
	if err != nil {
		return err
	}
	for _, c := range changes {
		fmt.Fprintln(out, c)
	}
	return nil
}

// ownReader sets up the deployment's own reader like the one the
// migrations create, which every database on the server shares: the
// shared one's grants here are carried over (an upgrade), and it keeps
// nothing it does not use.
func ownReader(ctx context.Context, db *store.DB, cfg bot.Config, out io.Writer) error {
	shared := pgwarehouse.DefaultReaderRole
	if err := pgwarehouse.EnsureReaderRole(ctx, db.Pool(), cfg.Postgres.ReaderRole); err != nil {
		return err
	}
	if err := pgwarehouse.SetStatementTimeout(ctx, db.Pool(), cfg.Postgres.ReaderRole, cfg.Postgres.StatementTimeout); err != nil {
		return err
	}
	fmt.Fprintf(out, "reader role %s ready\n", cfg.Postgres.ReaderRole)
	adopted, err := pgwarehouse.AdoptReader(ctx, db.Pool(), shared, cfg.Postgres.ReaderRole, cfg.Postgres.Schemas)
	if err != nil {
		return err
	}
	if adopted.Any() {
		fmt.Fprintf(out, "%s now has the grants %s, the reader every database on this server shared, had here: %s\n",
			cfg.Postgres.ReaderRole, shared, adopted)
	}
	// Whatever it reads now, it may call what those views call.
	if _, err := pgwarehouse.GrantRoutines(ctx, db.Pool(), cfg.Postgres.ReaderRole, cfg.Postgres.Schemas); err != nil {
		return err
	}
	retired, err := pgwarehouse.RetireReader(ctx, db.Pool(), shared)
	if err != nil || retired {
		return err
	}
	revoke, err := pgwarehouse.RevokeStatements(ctx, db.Pool(), shared, cfg.Postgres.Schemas)
	if err != nil || len(revoke) == 0 {
		return err
	}
	fmt.Fprintf(out, "%s still reads here; once no process runs as it, take that away:\n  %s;\n", shared, strings.Join(revoke, ";\n  "))
	return nil
}

func demoLoad(ctx context.Context, out io.Writer) error {
	cfg, err := bot.ConfigFromEnv()
	if err != nil {
		return err
	}
	db, err := store.Open(ctx, cfg.DatabaseURL, store.WithSchema(cfg.BotSchema))
	if err != nil {
		return err
	}
	defer db.Close()
	// The demo goes into the first analytics schema.
	schema := cfg.Postgres.Schemas[0]
	st, err := demo.Load(ctx, db.Pool(), demo.Options{Schema: schema, ReaderRole: cfg.Postgres.ReaderRole})
	var foreign *demo.ForeignTablesError
	if errors.As(err, &foreign) {
		return fmt.Errorf("demo load changed nothing: it would drop and replace %s, which it did not create. "+
			"Load the demo into a schema of its own, named first in ANALYTICS_SCHEMA (e.g. ANALYTICS_SCHEMA=steam,%s), "+
			"or drop or rename those tables yourself first", strings.Join(foreign.Tables, ", "), strings.Join(cfg.Postgres.Schemas, ","))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "demo data loaded into %q in %s: %d games, %d developers, %d publishers, %d genres, %d tags\n",
		schema, st.Elapsed.Round(1e6), st.Apps, st.Developers, st.Publishers, st.Genres, st.Tags)
	return buildValueIndex(ctx, cfg, out)
}

// defogLoad loads Defog's benchmark databases (package eval/defog), each
// into the schema of its name, whatever ANALYTICS_SCHEMA says; the value
// index is built when ANALYTICS_SCHEMA names them all.
func defogLoad(ctx context.Context, out io.Writer) error {
	cfg, err := bot.ConfigFromEnv()
	if err != nil {
		return err
	}
	db, err := store.Open(ctx, cfg.DatabaseURL, store.WithSchema(cfg.BotSchema))
	if err != nil {
		return err
	}
	defer db.Close()
	st, err := defog.Load(ctx, db.Pool(), defog.Options{ReaderRole: cfg.Postgres.ReaderRole})
	var foreign *defog.ForeignTablesError
	if errors.As(err, &foreign) {
		return fmt.Errorf("demo load defog changed nothing: it drops and recreates the schemas %s, and %v. "+
			"Load the benchmark into a database of its own (set DATABASE_URL, as make eval-retrieval does), "+
			"or move those objects out yourself first", strings.Join(defog.Databases(), ", "), foreign)
	}
	if err != nil {
		return err
	}
	schemas := defog.Databases()
	fmt.Fprintf(out, "defog benchmark loaded in %s: %d schemas, %d tables, %d rows, %d column comments\n",
		st.Elapsed.Round(1e6), len(st.Schemas), st.Tables, st.Rows, st.Comments)
	for _, s := range schemas {
		if !slices.Contains(cfg.Postgres.Schemas, s) {
			fmt.Fprintf(out, "to ask them, set ANALYTICS_SCHEMA=%s\n", strings.Join(schemas, ","))
			return nil
		}
	}
	return buildValueIndex(ctx, cfg, out)
}

// buildValueIndex fills the value index at once, so that the lookup can
// match freshly loaded names from the first question.
func buildValueIndex(ctx context.Context, cfg bot.Config, out io.Writer) error {
	if cfg.ValueIndexMaxDistinct <= 0 {
		return nil
	}
	// This bot only fills the index: what it would warn about serving
	// (ACCESS_FILE unset) is said once, by `serve`, not here too.
	b, err := bot.New(ctx, cfg, slog.New(errorsOnly{slog.Default().Handler()}))
	if err != nil {
		return err
	}
	defer b.Close()
	vs, err := b.RefreshValueIndex(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "value index: %d values of %d text columns in %s\n", vs.Values, vs.Indexed, vs.Elapsed.Round(1e6))
	return nil
}

// errorsOnly passes on only the errors of the handler it wraps.
type errorsOnly struct{ slog.Handler }

func (h errorsOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelError && h.Handler.Enabled(ctx, l)
}

func (h errorsOnly) WithAttrs(attrs []slog.Attr) slog.Handler {
	return errorsOnly{h.Handler.WithAttrs(attrs)}
}

func (h errorsOnly) WithGroup(name string) slog.Handler { return errorsOnly{h.Handler.WithGroup(name)} }

// grant lets the reader role read every analytics schema, as the bot's own
// login (which must own the tables or hold the grant option).
func grant(ctx context.Context, out io.Writer) error {
	cfg, err := bot.ConfigFromEnv()
	if err != nil {
		return err
	}
	db, err := store.Open(ctx, cfg.DatabaseURL, store.WithSchema(cfg.BotSchema))
	if err != nil {
		return err
	}
	defer db.Close()
	if err := pgwarehouse.Grant(ctx, db.Pool(), cfg.Postgres.ReaderRole, cfg.Postgres.Schemas); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s may now read every table of %s, and the tables created there later\n",
		cfg.Postgres.ReaderRole, strings.Join(cfg.Postgres.Schemas, ", "))
	changes, err := pgwarehouse.RestrictRoutines(ctx, db.Pool(), cfg.Postgres.Schemas)
	if err != nil {
		return err
	}
	for _, c := range changes {
		fmt.Fprintln(out, c)
	}
	return nil
}

// accessCommand runs `analyticsbot access apply`: one database role per
// policy of ACCESS_FILE, and per policy within a channel's ceiling, with
// exactly its grants, as the bot's own login (which must be able to
// create roles and grant on the tables).
func accessCommand(ctx context.Context, args []string, out io.Writer) error {
	if len(args) != 1 || args[0] != "apply" {
		return fmt.Errorf("%w: analyticsbot access apply", errUsage)
	}
	cfg, err := bot.ConfigFromEnv()
	if err != nil {
		return err
	}
	if cfg.AccessFile == "" {
		return errors.New("ACCESS_FILE is not set: there are no policies to apply (docs/access.md)")
	}
	rules, err := access.Load(cfg.AccessFile)
	if err != nil {
		return err
	}
	db, err := store.Open(ctx, cfg.DatabaseURL, store.WithSchema(cfg.BotSchema))
	if err != nil {
		return err
	}
	defer db.Close()
	applied, err := pgwarehouse.ApplyAccess(ctx, db.Pool(), pgwarehouse.ApplyConfig{Reader: cfg.Postgres.ReaderRole, Password: readerPassword(cfg.Postgres.ReaderURL),
		Schemas: cfg.Postgres.Schemas, StatementTimeout: cfg.Postgres.StatementTimeout}, rules.AllPolicies())
	if err != nil {
		return err
	}
	for _, p := range rules.AllPolicies() {
		name := p.Policy()
		fmt.Fprintf(out, "policy %s: role %s may read exactly what the policy allows in %s\n", name, applied.Roles[name], strings.Join(cfg.Postgres.Schemas, ", "))
		if fns := applied.Routines[name]; len(fns) > 0 {
			fmt.Fprintf(out, "policy %s: role %s may execute %s, which what it reads calls\n", name, applied.Roles[name], strings.Join(fns, ", "))
		}
	}
	for _, c := range applied.Changes {
		fmt.Fprintln(out, c)
	}
	fmt.Fprintln(out, "restart the bot to answer each policy as its role")
	return nil
}

// readerPassword is READER_DATABASE_URL's password, which the policy roles
// share; "" without one.
func readerPassword(readerURL string) string {
	u, err := url.Parse(readerURL)
	if err != nil || u.User == nil {
		return ""
	}
	pw, _ := u.User.Password()
	return pw
}

func graph(_ context.Context, out io.Writer) error {
	g, err := nodes.Graph((&nodes.Nodes{}).Defaults()).Compile()
	if err != nil {
		return err
	}
	_, err = io.WriteString(out, g.Mermaid())
	return err
}
