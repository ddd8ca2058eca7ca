// Package bottest builds bots for tests, the one way every package's tests
// do it: the configuration's defaults (never the environment the tests run
// in), a scripted model, a database of package storetest, and Close when
// the test ends.
package bottest

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/store"
)

// startTimeout bounds connecting a bot.
const startTimeout = 30 * time.Second

// Config returns the configuration's defaults on the database at dbURL with
// the scripted model: playing script (a rules file's text), or the built-in
// demo script when script is empty.
func Config(t testing.TB, dbURL, script string) bot.Config {
	t.Helper()
	var cfg bot.Config
	require.NoError(t, env.ParseWithOptions(&cfg, env.Options{Environment: map[string]string{}}), "bot config defaults")
	cfg.DatabaseURL, cfg.LLMProvider = dbURL, "script"
	if script != "" {
		cfg.LLMScript = filepath.Join(t.TempDir(), "script.yaml")
		require.NoError(t, os.WriteFile(cfg.LLMScript, []byte(script), 0o600), "write the model script")
	}
	return cfg
}

// Start connects a bot with cfg, logging to log (Logger(t) when nil), and
// closes it when the test ends.
func Start(t testing.TB, cfg bot.Config, log *slog.Logger) *bot.Bot {
	t.Helper()
	if log == nil {
		log = Logger(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	b, err := bot.New(ctx, cfg, log)
	require.NoError(t, err, "new bot")
	t.Cleanup(b.Close)
	require.NotNil(t, b.Scripted, "the bot must play a scripted model")
	return b
}

// New builds a bot on the database at dbURL that plays script ("" for the
// demo's), with the changes of adjust applied to its configuration.
func New(t testing.TB, dbURL, script string, adjust ...func(*bot.Config)) *bot.Bot {
	t.Helper()
	cfg := Config(t, dbURL, script)
	for _, f := range adjust {
		f(&cfg)
	}
	return Start(t, cfg, nil)
}

// Logger shows warnings and errors in the test's output.
func Logger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// Discard is a logger for bots whose failures are the point of the test.
func Discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// LoadDemo loads the Steam demo data into db's analytics schema, and the
// access matrix's hr schema (LoadAccessFixtures): the setup of
// storetest.Main for packages whose tests ask the demo questions.
func LoadDemo(ctx context.Context, db *store.DB) error {
	if _, err := demo.Load(ctx, db.Pool(), demo.Options{}); err != nil {
		return err
	}
	return LoadAccessFixtures(ctx, db)
}

// DemoScript returns the offline demo's rules with extra rules first: the
// scripted model takes the first rule that matches.
func DemoScript(extra string) string {
	s := string(demo.Script())
	i := strings.Index(s, "\nrules:\n")
	if i < 0 {
		panic("bottest: the demo script has no rules list")
	}
	i += len("\nrules:\n")
	return s[:i] + extra + s[i:]
}
