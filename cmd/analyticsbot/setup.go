package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

func migrate(ctx context.Context, out io.Writer) error {
	cfg, err := bot.ConfigFromEnv()
	if err != nil {
		return err
	}
	if err := store.EnsureDatabase(ctx, cfg.DatabaseURL); err != nil {
		return err
	}
	db, err := store.Open(ctx, cfg.DatabaseURL, store.WithSchema(cfg.BotSchema))
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	fmt.Fprintln(out, "migrations applied")
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
	schema := cfg.Schemas[0]
	st, err := demo.Load(ctx, db.Pool(), demo.Options{Schema: schema, ReaderRole: cfg.ReaderRole})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "demo data loaded into %q in %s: %d games, %d developers, %d publishers, %d genres, %d tags\n",
		schema, st.Elapsed.Round(1e6), st.Apps, st.Developers, st.Publishers, st.Genres, st.Tags)
	if cfg.ValueIndexMaxDistinct <= 0 {
		return nil
	}
	// The value lookup can match the demo's names from the first question.
	b, err := bot.New(ctx, cfg, slog.Default())
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
	if err := pgwarehouse.Grant(ctx, db.Pool(), cfg.ReaderRole, cfg.Schemas); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s may now read every table of %s, and the tables created there later\n",
		cfg.ReaderRole, strings.Join(cfg.Schemas, ", "))
	return nil
}

func graph(_ context.Context, out io.Writer) error {
	g, err := nodes.Graph((&nodes.Nodes{}).Defaults()).Compile()
	if err != nil {
		return err
	}
	_, err = io.WriteString(out, g.Mermaid())
	return err
}
