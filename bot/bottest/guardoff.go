package bottest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"maps"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// guardOff is the PostgreSQL backend with its static guard taken out:
// every query runs as it was written, as the asker's policy role, so only
// the database stands between an asker and what their policy forbids. The
// bot never runs like this; the access matrix does, to show the database
// holds each policy alone.
type guardOff struct{ *pgwarehouse.Backend }

// Check passes text as it is, with no cap.
func (g guardOff) Check(_ context.Context, text string, _ int) (warehouse.Runnable, error) {
	return warehouse.Runnable{Query: warehouse.Query{Backend: g.Name(), Text: text}, Statement: text}, nil
}

// Permits lets every asker see every query (Show SQL, presses).
func (guardOff) Permits(context.Context, string) error { return nil }

// Export runs q unchecked and writes its rows as CSV.
func (g guardOff) Export(ctx context.Context, q warehouse.Query, w io.Writer, limit warehouse.ExportLimit) (warehouse.ExportStats, error) {
	res, err := g.Run(ctx, warehouse.Runnable{Query: q, Statement: q.Text})
	if err != nil {
		return warehouse.ExportStats{}, err
	}
	res.Truncated = false
	return warehouse.ExportResult(w, res, limit.Bytes)
}

// StartWithoutGuard connects a bot with cfg whose access file's policies
// have login roles of their own (ApplyPolicies, under a prefix of this
// test's, dropped when it ends) and whose backend has no static guard
// (guardOff). It closes the bot when the test ends.
func StartWithoutGuard(t testing.TB, cfg bot.Config, log *slog.Logger) *bot.Bot {
	t.Helper()
	require.NotEmpty(t, cfg.AccessFile, "the access file whose policies the database holds")
	require.NoError(t, cfg.Check())
	if log == nil {
		log = Logger(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	db, err := store.Open(ctx, cfg.DatabaseURL, store.WithSchema(cfg.BotSchema))
	require.NoError(t, err)
	t.Cleanup(db.Close)

	rules, err := access.Load(cfg.AccessFile)
	require.NoError(t, err)
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	prefix := "abt_noguard_" + hex.EncodeToString(suffix[:])
	roles, err := pgwarehouse.ApplyPolicies(ctx, db.Pool(), prefix, "", cfg.Postgres.Schemas, rules.AllPolicies())
	require.NoError(t, err, "the policies' roles")
	t.Cleanup(func() {
		// On a connection of its own: the bot closes db when it closes,
		// before this runs.
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		pool, err := pgxpool.New(ctx, cfg.DatabaseURL)
		if err != nil {
			t.Errorf("drop the policies' roles: %v", err)
			return
		}
		defer pool.Close()
		if err := pgwarehouse.DropRoles(ctx, pool, slices.Collect(maps.Values(roles))); err != nil {
			t.Error(err)
		}
	})

	exec := cfg.ReaderConfig()
	exec.IdentityKey, err = db.IdentityKey(ctx)
	require.NoError(t, err, "the key that signs who asks")
	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: exec, PolicyRoles: roles})
	t.Cleanup(b.Close)
	bt, err := bot.NewWithBackend(cfg, db, guardOff{b}, log)
	require.NoError(t, err, "new bot")
	t.Cleanup(bt.Close)
	return bt
}
