package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/analyticsbot/analyticsbot/pgpool"
)

// maintenanceDatabase is where a missing database is created from, as
// createdb does.
const maintenanceDatabase = "postgres"

// EnsureDatabase creates the database DATABASE_URL names when it does not
// exist, so that a fresh machine needs no manual createdb. Several callers
// at once (two `migrate` runs on a fresh server) all succeed: the ones
// whose CREATE DATABASE loses the race find the database there. Any other
// failure is returned as it is, never hidden behind a later "database does
// not exist".
func EnsureDatabase(ctx context.Context, url string) error {
	cfg, err := pgpool.ConnConfig(url)
	if err != nil {
		return fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	name := cfg.Database
	// The database itself first: it is there on every run but the first,
	// and the login may have no right to the maintenance database.
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil
	}
	if !isInvalidCatalog(err) {
		return fmt.Errorf("connect to database %s: %w", name, classify(err))
	}
	cfg.Database = maintenanceDatabase
	conn, err = pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("database %s does not exist, and to create it: connect to database %s: %w", name, maintenanceDatabase, classify(err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	if err == nil {
		return nil
	}
	// Created meanwhile: PostgreSQL says so with 42P04 duplicate_database
	// or, when both inserts into pg_database raced, 23505 on its unique
	// index of names. Rather than trust a list of codes, look: once the
	// winner's CREATE DATABASE has committed, its row is there.
	var exists bool
	if lookErr := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); lookErr == nil && exists {
		return nil
	}
	return fmt.Errorf("create database %s: %w", name, classify(err))
}

// isInvalidCatalog reports SQLSTATE 3D000: the database does not exist.
func isInvalidCatalog(err error) bool {
	pgErr, ok := errors.AsType[*pgconn.PgError](err)
	return ok && pgErr.Code == "3D000"
}
