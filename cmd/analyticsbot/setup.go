package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
)

func migrate(ctx context.Context, out io.Writer) error {
	cfg, err := bot.ConfigFromEnv()
	if err != nil {
		return err
	}
	if err := ensureDatabase(ctx, cfg.DatabaseURL); err != nil {
		return err
	}
	db, err := store.Open(ctx, cfg.DatabaseURL)
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

// ensureDatabase creates the database DATABASE_URL names when it does not
// exist, so that a fresh machine needs no manual createdb.
func ensureDatabase(ctx context.Context, url string) error {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	name := cfg.Database
	cfg.Database = "postgres"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		// Without the maintenance database we cannot create anything; the
		// real connection will report the real problem.
		return nil
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("look up database %s: %w", name, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // created meanwhile
		return nil
	}
	if err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

func demoLoad(ctx context.Context, out io.Writer) error {
	cfg, err := bot.ConfigFromEnv()
	if err != nil {
		return err
	}
	db, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer db.Close()
	st, err := demo.Load(ctx, db.Pool(), demo.Options{Schema: cfg.Schema, ReaderRole: cfg.ReaderRole})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "demo data loaded into %q in %s: %d games, %d developers, %d publishers, %d genres, %d tags\n",
		cfg.Schema, st.Elapsed.Round(1e6), st.Apps, st.Developers, st.Publishers, st.Genres, st.Tags)
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
