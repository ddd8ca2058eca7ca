package bot_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// The examples file's queries are shown to the model as answers to copy:
// they pass the guard as `examples add`'s do. A write or a pg_sleep in it
// stops the start with the file and each such entry named, and nothing of
// the file is stored; a query about a table this data lacks is left out,
// and the log says which.
func TestExamplesFileIsChecked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	write := func(body string) string {
		path := filepath.Join(t.TempDir(), "examples.yaml")
		require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
		return path
	}
	good := `
- question: How many games are free to play?
  sql: SELECT count(*) AS free_games FROM analytics.apps WHERE is_free
`
	unsafe := write(good + `
- question: Remove the old games
  sql: DELETE FROM analytics.apps WHERE release_year < 2000
- question: How slow is the database?
  sql: SELECT pg_sleep(600)
`)
	cfg := bottest.Config(t, e.url, script())
	cfg.SQLExamples = unsafe
	b, err := bot.New(ctx, cfg, bottest.Discard())
	if b != nil {
		b.Close()
	}
	require.Error(t, err, "an unsafe example stops the start")
	msg := err.Error()
	assert.Contains(t, msg, unsafe, "names the file")
	assert.Contains(t, msg, `example 2 ("Remove the old games"): write: only SELECT may run`)
	assert.Contains(t, msg, `example 3 ("How slow is the database?"): sleep: pg_sleep() only waits`)
	assert.NotContains(t, msg, "example 1 ", "the good one is not blamed")
	stored, err := e.admin.ListExamples(ctx, store.ExampleFilter{Source: store.SourceFile})
	require.NoError(t, err)
	for _, ex := range stored {
		assert.NotContains(t, []string{"Remove the old games", "How slow is the database?", "How many games are free to play?"}, ex.Question,
			"nothing of a refused file is stored")
	}

	stale := write(good + `
- question: What were the sales by region?
  sql: SELECT region, sum(amount) FROM analytics.sales GROUP BY region
`)
	var logs bytes.Buffer
	cfg.SQLExamples = stale
	b, err = bot.New(ctx, cfg, slog.New(slog.NewTextHandler(&logs, nil)))
	require.NoError(t, err, "a query the data does not fit does not stop the start")
	t.Cleanup(b.Close)
	assert.Contains(t, logs.String(), "left out")
	assert.Contains(t, logs.String(), "What were the sales by region?")
	stored, err = e.admin.ListExamples(ctx, store.ExampleFilter{Source: store.SourceFile})
	require.NoError(t, err)
	assert.Equal(t, []string{"How many games are free to play?"}, questions(stored), "only the one that runs here is stored")
}

// downCheck stands for a data source that cannot be reached at start:
// every check fails as unavailable.
type downCheck struct{ *pgwarehouse.Backend }

func (downCheck) Check(context.Context, string, int) (warehouse.Runnable, error) {
	return warehouse.Runnable{}, warehouse.Errorf(warehouse.Unavailable, "database unavailable")
}

// When the data source cannot check the examples file at start, the bot
// starts, stores none of the file this time and says so.
func TestExamplesFileUncheckedWhenTheDataSourceIsDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	cfg := bottest.Config(t, e.url, script())
	pg := pgwarehouse.New(pgwarehouse.Config{ExecConfig: cfg.ReaderConfig()})
	t.Cleanup(pg.Close)
	var logs bytes.Buffer
	b, err := bot.NewWithBackend(cfg, e.admin, downCheck{pg}, slog.New(slog.NewTextHandler(&logs, nil)))
	require.NoError(t, err)
	t.Cleanup(b.Close)
	require.NoError(t, bot.StoreExamples(b, ctx), "the start goes on")
	assert.Contains(t, logs.String(), "cannot be checked now")
	stored, err := e.admin.ListExamples(ctx, store.ExampleFilter{Source: store.SourceFile})
	require.NoError(t, err)
	assert.Empty(t, stored, "nothing unchecked is stored")
}
