package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/pgpool"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// migrateConfig is the configuration `migrate` reads with DATABASE_URL
// dbURL and READER_ROLE reader ("" for the database's own), in demo mode.
func migrateConfig(t *testing.T, dbURL, reader string) bot.Config {
	t.Helper()
	setDemoEnv(t, dbURL)
	t.Setenv("READER_ROLE", reader)
	cfg, err := bot.ConfigFromEnv()
	require.NoError(t, err)
	return cfg
}

// migrateAtOnce starts `migrate` with each of cfgs at the same moment, as
// deploy hooks of several replicas or services do, and returns what each
// printed and its error.
func migrateAtOnce(cfgs []bot.Config) ([]string, []error) {
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeo)
	defer cancel()
	outs, errs := make([]string, len(cfgs)), make([]error, len(cfgs))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, cfg := range cfgs {
		wg.Go(func() {
			var out bytes.Buffer
			<-start
			errs[i] = setUpDatabase(ctx, cfg, &out)
			outs[i] = out.String()
		})
	}
	close(start)
	wg.Wait()
	return outs, errs
}

// withSettings is rawURL with the settings of query added.
func withSettings(t *testing.T, rawURL, query string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	require.NoError(t, err)
	if u.RawQuery != "" {
		u.RawQuery += "&"
	}
	u.RawQuery += query
	return u.String()
}

// TestMigrateAtOnce runs several `migrate` of one database at once, round
// after round: they take turns, and every one ends as a lone run does,
// whether the database exists (the reader's setup after the migrations
// once failed with "tuple concurrently updated") or not (CREATE DATABASE
// once failed with a unique violation on pg_database), and whatever pool
// settings DATABASE_URL holds (they once kept the database from being
// created).
func TestMigrateAtOnce(t *testing.T) {
	const poolSettings = "pool_max_conns=4&pool_min_conns=1&pool_max_conn_lifetime=1h&pool_max_conn_idle_time=5m&pool_health_check_period=30s"
	tests := []struct {
		name     string
		missing  bool   // a new database each round, which migrate creates
		settings string // added to DATABASE_URL
		rounds   int
		runs     int // at once
	}{
		{name: "an existing database", rounds: 8, runs: 3},
		{name: "a missing database", missing: true, rounds: 4, runs: 3},
		{name: "a missing database, DATABASE_URL with the pool's settings", missing: true, settings: poolSettings, rounds: 1, runs: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dbURL string
			if !tt.missing {
				_, dbURL = storetest.NewWithURL(t)
			}
			for round := range tt.rounds {
				if tt.missing {
					dbURL = storetest.MissingURL(t)
				}
				if tt.settings != "" {
					dbURL = withSettings(t, dbURL, tt.settings)
				}
				cfg := migrateConfig(t, dbURL, "")
				cfgs := make([]bot.Config, tt.runs)
				for i := range cfgs {
					cfgs[i] = cfg
				}
				outs, errs := migrateAtOnce(cfgs)
				for i := range cfgs {
					if assert.NoError(t, errs[i], "round %d, run %d", round+1, i+1) {
						assert.Contains(t, outs[i], "migrations applied\n", "round %d, run %d", round+1, i+1)
						assert.True(t, strings.HasSuffix(outs[i], "reader role "+cfg.Postgres.ReaderRole+" ready\n"),
							"round %d, run %d: %q", round+1, i+1, outs[i])
					}
				}
				assertReaderSetUp(t, dbURL, cfg.Postgres.ReaderRole)
			}
		})
	}
}

// TestMigrateWaitsItsTurn holds the turn of a database, as a `migrate`
// run does, and starts `migrate`: it must wait (PostgreSQL shows it
// waiting on an advisory lock) rather than run, and go on once the turn
// is given back, every step of it after the other run's, not only the
// migrations.
func TestMigrateWaitsItsTurn(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	cfg := migrateConfig(t, dbURL, "")
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeo)
	defer cancel()
	done := make(chan error, 1)
	var out bytes.Buffer
	err := db.InTurn(ctx, func() error {
		go func() { done <- setUpDatabase(ctx, cfg, &out) }()
		for {
			select {
			case err := <-done:
				return fmt.Errorf("migrate ran while another run held the turn (error %v), printing %q", err, out.String())
			default:
			}
			var waiting bool
			if err := db.Pool().QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_database d ON d.oid = l.database
				WHERE l.locktype = 'advisory' AND NOT l.granted AND d.datname = current_database())`).Scan(&waiting); err != nil {
				return err
			}
			if waiting {
				return nil
			}
		}
	})
	require.NoError(t, err)
	require.NoError(t, <-done)
	conf, err := pgpool.ConnConfig(dbURL)
	require.NoError(t, err)
	assert.Equal(t, "migrations applied\n"+hardened(conf.Database)+"reader role "+cfg.Postgres.ReaderRole+" ready\n", out.String())
}

// TestMigrateSharedReader migrates several databases of one server at
// once that share a reader role, round after round (the first creates
// them): roles belong to the whole server, so their `migrate` runs change
// one role's row, and no lock of one database keeps another's out. Every
// run must still end as a lone run does.
func TestMigrateSharedReader(t *testing.T) {
	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	named := "abt_shared_reader_" + hex.EncodeToString(suffix[:])
	t.Cleanup(func() { dropRole(t, named) }) // after the databases: Cleanup runs last first
	tests := []struct {
		name, reader string
	}{
		{"the reader the migrations share", pgwarehouse.DefaultReaderRole},
		{"a reader READER_ROLE names", named},
	}
	const rounds, databases = 8, 3
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfgs := make([]bot.Config, databases)
			urls := make([]string, databases)
			for i := range cfgs {
				urls[i] = storetest.MissingURL(t)
				cfgs[i] = migrateConfig(t, urls[i], tt.reader)
			}
			for round := range rounds {
				outs, errs := migrateAtOnce(cfgs)
				for i := range cfgs {
					assert.NoError(t, errs[i], "round %d, database %d: %s", round+1, i+1, outs[i])
				}
				for _, u := range urls {
					assertReaderSetUp(t, u, tt.reader)
				}
			}
		})
	}
}

// assertReaderSetUp checks what `migrate` leaves for reader in the
// database of dbURL: it may connect, and its sessions there start
// read-only with the statement timeout.
func assertReaderSetUp(t *testing.T, dbURL, reader string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeo)
	defer cancel()
	cfg, err := pgpool.ConnConfig(dbURL)
	require.NoError(t, err)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var connect bool
	var settings []string
	require.NoError(t, conn.QueryRow(ctx, `
		SELECT has_database_privilege($1, current_database(), 'CONNECT'),
		       coalesce((SELECT s.setconfig FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
		                 WHERE d.datname = current_database() AND s.setrole = to_regrole($1)), '{}')`, reader).
		Scan(&connect, &settings))
	assert.True(t, connect, "%s may connect to %s", reader, cfg.Database)
	assert.Subset(t, settings, []string{"default_transaction_read_only=on", "statement_timeout=30s"}, "%s's sessions in %s", reader, cfg.Database)
}

// dropRole drops role, a reader of test databases already dropped.
func dropRole(t *testing.T, role string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeo)
	defer cancel()
	cfg, err := pgpool.ConnConfig(storetest.DefaultAdminURL())
	require.NoError(t, err)
	admin, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return // no server: the tests were skipped
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(ctx, "DROP ROLE IF EXISTS "+pgx.Identifier{role}.Sanitize()); err != nil {
		t.Errorf("drop the role %s: %v", role, err)
	}
}
